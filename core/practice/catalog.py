"""The guided exercises a student can start: found by id, or by topic among the exercise
definitions in the student's course scope."""

from __future__ import annotations

import numpy as np

from core.context import Context
from core.embedding.embedder import Embedder
from core.exercises import ExerciseDefinition, parse_exercise
from core.index import ChunkIndex

# Below this similarity a topic is said not to match any exercise.
MIN_TOPIC_SIMILARITY = 0.3


class ExerciseCatalog:
    def __init__(self, index: ChunkIndex, embedder: Embedder) -> None:
        self.index = index
        self.embedder = embedder

    async def all(self, ctx: Context) -> list[ExerciseDefinition]:
        sources = await self.index.exercise_sources(ctx)
        return [
            parse_exercise(source, f"{exercise_id}.exercise.yaml")
            for exercise_id, source in sorted(sources.items())
        ]

    async def find(self, ctx: Context, query: str) -> ExerciseDefinition | None:
        """The exercise whose id is `query`, else the one whose topic matches it best."""
        exercises = await self.all(ctx)
        wanted = query.strip().lower()
        for exercise in exercises:
            if exercise.id.lower() == wanted:
                return exercise
        if not exercises or not wanted:
            return None
        described = [f"{e.title}. {e.topic}. {', '.join(e.skills)}" for e in exercises]
        vectors = await self.embedder.embed([query, *described])
        scores = vectors[1:] @ vectors[0]
        best = int(np.argmax(scores))
        return exercises[best] if scores[best] >= MIN_TOPIC_SIMILARITY else None

    async def get(self, ctx: Context, exercise_id: str) -> ExerciseDefinition | None:
        # Called for every answer: fetch the one exercise, not the course's whole list.
        source = (await self.index.exercise_sources(ctx, exercise_id)).get(exercise_id)
        return parse_exercise(source, f"{exercise_id}.exercise.yaml") if source else None
