"""The guided exercises a student can start: found by id, or by topic among the exercise
definitions in the student's course scope.

Definitions are stored as YAML source in the index and parsed (YAML, validation, sympy) on
use: on every answer and every autocomplete keystroke. Parsed definitions are kept in a
`DefinitionCache` keyed by the source's hash, so a re-ingested file with new text is parsed
again and an unchanged one never is; a miss is parsed in a worker thread."""

from __future__ import annotations

import asyncio
import hashlib
from collections import OrderedDict
from typing import Protocol

import numpy as np

from core.context import Context
from core.embedding.embedder import Embedder
from core.exercises import ExerciseDefinition, draw_instance, parse_exercise
from core.exercises.families import drawn_instance
from core.exercises.parameters import split_instance_id
from core.index import ChunkIndex
from core.practice.exercise_writer import WrittenExercise, generated_material_id
from core.retrieval import MIN_TOPIC_SIMILARITY

_Key = tuple[str, str, str]  # course, exercise id, sha256 of the source


def exercise_file_name(exercise_id: str) -> str:
    return f"{exercise_id}.exercise.yaml"


class DefinitionCache:
    """The last `max_size` parsed definitions, least recently used dropped first. A
    definition is immutable, so one parse serves every student of the course."""

    def __init__(self, max_size: int = 256) -> None:
        if max_size < 1:
            raise ValueError("the cache needs room for at least one definition")
        self.max_size = max_size
        self._entries: OrderedDict[_Key, ExerciseDefinition] = OrderedDict()
        self.hits = 0
        self.misses = 0

    def __len__(self) -> int:
        return len(self._entries)

    async def get(self, course_id: str, exercise_id: str, source: str) -> ExerciseDefinition:
        return (await self.get_many(course_id, {exercise_id: source}))[exercise_id]

    async def get_many(
        self, course_id: str, sources: dict[str, str]
    ) -> dict[str, ExerciseDefinition]:
        """exercise id -> definition for each exercise id -> source; misses are parsed
        together in one worker thread. An invalid source raises ExerciseFormatError."""
        keys = {eid: _key(course_id, eid, source) for eid, source in sources.items()}
        found: dict[str, ExerciseDefinition] = {}
        missing: dict[str, str] = {}
        for exercise_id, key in keys.items():
            definition = self._entries.get(key)
            if definition is None:
                missing[exercise_id] = sources[exercise_id]
            else:
                self._entries.move_to_end(key)
                found[exercise_id] = definition
        self.hits += len(found)
        self.misses += len(missing)
        if missing:
            parsed = await asyncio.to_thread(_parse_all, missing)
            for exercise_id, definition in parsed.items():
                self._put(keys[exercise_id], definition)
            found.update(parsed)
        return found

    def _put(self, key: _Key, definition: ExerciseDefinition) -> None:
        self._entries[key] = definition
        self._entries.move_to_end(key)
        while len(self._entries) > self.max_size:
            self._entries.popitem(last=False)


def _key(course_id: str, exercise_id: str, source: str) -> _Key:
    return course_id, exercise_id, hashlib.sha256(source.encode("utf-8")).hexdigest()


def _parse_all(sources: dict[str, str]) -> dict[str, ExerciseDefinition]:
    return {eid: parse_exercise(source, exercise_file_name(eid)) for eid, source in sources.items()}


class GeneratedExercises(Protocol):
    async def load(self, ctx: Context, exercise_id: str) -> WrittenExercise | None: ...


class ExerciseCatalog:
    """The course's guided exercises (from the index), their parametric instances, the
    draws of the built-in exercise families (`core.exercises.families`), and the exercises a
    model wrote for this student (`gen-{id}`, from `generated`)."""

    def __init__(
        self,
        index: ChunkIndex,
        embedder: Embedder,
        cache: DefinitionCache | None = None,
        generated: GeneratedExercises | None = None,
    ) -> None:
        self.index = index
        self.embedder = embedder
        self.cache = cache if cache is not None else DefinitionCache()
        self.generated = generated
        self._instances: OrderedDict[_Key, ExerciseDefinition] = OrderedDict()

    async def all(self, ctx: Context) -> list[ExerciseDefinition]:
        sources = await self.index.exercise_sources(ctx)
        parsed = await self.cache.get_many(ctx.course_id, sources)
        return [parsed[exercise_id] for exercise_id in sorted(sources)]

    async def find(
        self, ctx: Context, query: str, *, parametric: bool = False
    ) -> ExerciseDefinition | None:
        """The exercise whose id is `query`, else the one whose topic matches it best (among
        the parametric ones only, with `parametric`)."""
        exercises = await self.all(ctx)
        if parametric:
            exercises = [e for e in exercises if e.parametric]
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
        """The exercise, or the instance of a parametric one (`{id}-v{seed}`: its base
        definition with that seed's values)."""
        if generated_material_id(exercise_id) is not None:
            written = await self.written(ctx, exercise_id)
            return written.definition if written else None
        instance = split_instance_id(exercise_id)
        if instance is not None:
            base = await self._get(ctx, instance[0])
            if base is not None and base.parametric:
                return await self.instance(ctx, base, instance[1])
            if base is None:  # a built-in family's draw, unless the course names it
                drawn = await asyncio.to_thread(drawn_instance, exercise_id)
                if drawn is not None:
                    return drawn.definition
        return await self._get(ctx, exercise_id)

    async def written(self, ctx: Context, exercise_id: str) -> WrittenExercise | None:
        """A generated exercise of this student's, with its statement and solution."""
        return await self.generated.load(ctx, exercise_id) if self.generated else None

    async def instance(
        self, ctx: Context, base: ExerciseDefinition, seed: int
    ) -> ExerciseDefinition:
        key = (ctx.course_id, f"{base.id}@{seed}", base.fingerprint())
        found = self._instances.get(key)
        if found is None:
            found = await asyncio.to_thread(draw_instance, base, seed)
            self._instances[key] = found
            while len(self._instances) > self.cache.max_size:
                self._instances.popitem(last=False)
        self._instances.move_to_end(key)
        return found

    async def _get(self, ctx: Context, exercise_id: str) -> ExerciseDefinition | None:
        # Called for every answer: fetch the one exercise, not the course's whole list.
        source = (await self.index.exercise_sources(ctx, exercise_id)).get(exercise_id)
        return await self.cache.get(ctx.course_id, exercise_id, source) if source else None
