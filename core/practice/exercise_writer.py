"""New exercises written by a language model in the course's own style, verified before any
student sees them, and kept in the material store so the guided session can run them.

The way of one `/exercise TOPIC [difficulty]`: the course's own exercises and worked examples
on the topic, and the lecture material on it, are retrieved in the asker's scope; the model
writes an `ExerciseDraft` through the structured-output layer (schema, repair, re-ask on
shape problems); the draft is verified in a killable worker (answers recomputed from its own
data, hints checked); a failing draft goes back to the model with what failed, a bounded
number of times, and is then refused. What passes is stored as `gen-{id}`, owned by the
student who asked, and runs like any course exercise. Written in a background job, it is
stored with the job's id: the job run again after it stored one takes that one, with no
model call and no second exercise."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import structlog

from core.answering.citations import citation_for
from core.context import Context
from core.embedding.embedder import Embedder
from core.errors import BadInputError
from core.exercises import ExerciseDefinition
from core.exercises.fair_pool import FairPool
from core.exercises.process_pool import JobTimeoutError
from core.generation import (
    MaterialKey,
    MaterialKind,
    MaterialStore,
    Message,
    NewMaterial,
    StructuredModel,
    Writing,
)
from core.generation.exercise_draft import ExerciseDraft, Verdict, shape_problems, verify_draft
from core.generation.worded import model_failures_worded
from core.index import SearchHit
from core.progress import READING, WRITING_EXERCISE, StepReport, Steps
from core.prompts import EXERCISE_DIFFICULTY, EXERCISE_FAILED, EXERCISE_SYSTEM, EXERCISE_USER
from core.replies import Citation, ExerciseSheet
from core.retrieval import MIN_TOPIC_SIMILARITY, Retriever
from core.visibility import Access, access, made_as

log = structlog.get_logger(__name__)

GENERATED_PREFIX = "gen-"
PASSAGES = 6
PASSAGE_CHARS = 1500
EXERCISE_STEPS = (READING, WRITING_EXERCISE)
VERIFIED_NOTE = "Every answer was recomputed from the exercise's own data."
PRIVATE_ELSEWHERE = (
    "'{exercise}' was written from your private notes, so I only open it where you alone "
    "read along: open it in a direct message."
)


@dataclass(frozen=True, slots=True)
class WrittenExercise:
    definition: ExerciseDefinition  # id `gen-{material id}`
    statement: str
    solution: str
    final_answer: str
    sources: tuple[Citation, ...]
    difficulty: str
    model: str
    verified: bool = True

    def sheet(self) -> ExerciseSheet:
        return ExerciseSheet(
            exercise_id=self.definition.id,
            title=self.definition.title,
            statement=self.statement,
            solution=self.solution,
            sources=self.sources,
            verified=self.verified,
            note=VERIFIED_NOTE,
        )

    def content(self) -> dict[str, Any]:
        return {
            "definition": self.definition.model_dump(mode="json"),
            "statement": self.statement,
            "solution": self.solution,
            "final_answer": self.final_answer,
            "sources": [_citation_data(c) for c in self.sources],
            "difficulty": self.difficulty,
            "verified": self.verified,
        }

    def named(self, material_id: int) -> WrittenExercise:
        """This exercise under its store id (the stored content keeps a placeholder id)."""
        definition = self.definition.model_copy(update={"id": f"{GENERATED_PREFIX}{material_id}"})
        return replace(self, definition=definition)

    @classmethod
    def from_content(cls, content: dict[str, Any], model: str) -> WrittenExercise:
        return cls(
            definition=ExerciseDefinition.model_validate(content["definition"]),
            statement=content["statement"],
            solution=content["solution"],
            final_answer=content["final_answer"],
            sources=tuple(Citation(**c) for c in content["sources"]),
            difficulty=content["difficulty"],
            model=model,
            verified=content["verified"],
        )


def _citation_data(citation: Citation) -> dict[str, Any]:
    return {
        "file_name": citation.file_name,
        "page": citation.page,
        "section": citation.section,
        "document_id": citation.document_id,
        "private": citation.private,
    }


def generated_material_id(exercise_id: str) -> int | None:
    """The store id in `gen-{id}`, or None for a course exercise's id."""
    if not exercise_id.startswith(GENERATED_PREFIX):
        return None
    digits = exercise_id.removeprefix(GENERATED_PREFIX)
    return int(digits) if digits.isdigit() else None


@dataclass(frozen=True, slots=True)
class Drafted:
    draft: ExerciseDraft
    verdict: Verdict  # passed
    rounds: int  # drafts written, rewrites included


class ExerciseDrafter:
    """The model's side of writing an exercise: draft through the structured layer, verify
    in the grading workers (shared fairly: the student asking owns the checks), send the
    problems back and let it rewrite, a bounded number of times. Model errors
    (`LlmUnavailableError`, `GenerationError`) propagate."""

    def __init__(
        self,
        writing: Writing,
        pool: FairPool,
        *,
        verify_timeout_s: float = 10.0,
        rewrites: int = 2,
    ) -> None:
        self.writing = writing
        self.pool = pool
        self.verify_timeout_s = verify_timeout_s
        self.rewrites = rewrites

    @property
    def model(self) -> StructuredModel:
        return self.writing.model

    async def draft(
        self, passages: str, count: int, topic: str, difficulty: str, *, owner: str | None = None
    ) -> Drafted | None:
        """A verified draft on `topic` from `count` numbered `passages`, or None when no
        draft checked out. `owner` (who asked) owns the verification jobs."""
        messages = [
            Message("system", EXERCISE_SYSTEM),
            Message("user", EXERCISE_USER.format(
                passages=passages, difficulty=EXERCISE_DIFFICULTY[difficulty], topic=topic,
            )),
        ]  # fmt: skip
        for attempt in range(1, self.rewrites + 2):
            result = await self.writing.generate(
                messages, ExerciseDraft,
                validate=lambda draft: shape_problems(draft, count), purpose="exercise",
            )  # fmt: skip
            verdict = await self._verify(result.value, count, owner)
            if verdict.passed:
                return Drafted(result.value, verdict, attempt)
            log.info("generated exercise failed verification", attempt=attempt,
                     problems=list(verdict.problems))  # fmt: skip
            problems = "\n".join(f"- {p}" for p in verdict.problems)
            messages = [
                *messages,
                Message("assistant", result.raw),
                Message("user", EXERCISE_FAILED.format(problems=problems)),
            ]
        return None

    async def _verify(self, draft: ExerciseDraft, count: int, owner: str | None) -> Verdict:
        try:
            return await self.pool.run(
                self.verify_timeout_s, verify_draft, draft, count, owner=owner
            )
        except JobTimeoutError:
            return Verdict(("the checks took too long to compute; use simpler expressions",))


class ExerciseWriter:
    def __init__(
        self,
        *,
        retriever: Retriever,
        embedder: Embedder,
        store: MaterialStore,
        drafter: ExerciseDrafter | None,
    ) -> None:
        self._retriever = retriever
        self._embedder = embedder
        self._store = store
        self._drafter = drafter

    @property
    def available(self) -> bool:
        """Whether a model is configured; without one, `/exercise` draws parametric ones."""
        return self._drafter is not None

    async def write(
        self, ctx: Context, topic: str, difficulty: str, *,
        report: StepReport | None = None, job: str | None = None,
    ) -> WrittenExercise:  # fmt: skip
        """A verified new exercise on `topic`, stored for `ctx`'s student; `BadInputError`
        with one clear line when the course has nothing on it or no draft checks out. Its
        steps are told to `report`. The one the job `job` stored already, if it did."""
        if self._drafter is None:
            raise BadInputError("No language model is configured to write new exercises.")
        steps = Steps("exercise", topic, EXERCISE_STEPS, report)
        if job is not None and (saved := await self._store.saved_by(job)) is not None:
            # This job ran before and died after storing it: that one, not a second.
            await steps.finish()
            return WrittenExercise.from_content(saved.content, saved.model).named(saved.id)
        await steps.begin(READING)
        hits = await self._passages(ctx, topic)
        await steps.begin(WRITING_EXERCISE)
        with model_failures_worded("exercise", topic):
            drafted = await self._drafter.draft(
                _numbered(hits), len(hits), topic, difficulty, owner=ctx.user_id
            )
        if drafted is None:
            raise BadInputError(
                f"I could not write an exercise on '{topic}' whose answers check out "
                f"({self._drafter.rewrites + 1} tries). Try again, or use /practice for the "
                "course's own."
            )
        written = await self._save(ctx, topic, difficulty, drafted, hits, job)
        await steps.finish()
        return written

    async def load(self, ctx: Context, exercise_id: str) -> WrittenExercise | None:
        """The generated exercise `gen-{id}` if `ctx` may see it here (`core.visibility`):
        None when it is not this student's in this course; a private one (written where her
        notes were read) is refused in a shared place, with one line, and so never started,
        shown or run there."""
        material_id = generated_material_id(exercise_id)
        if material_id is None:
            return None
        material = await self._store.get(material_id)
        if material is None or material.kind is not MaterialKind.EXERCISE:
            return None
        allowed = access(ctx, material)
        if allowed is Access.NONE:
            return None
        if allowed is Access.ELSEWHERE:
            raise BadInputError(PRIVATE_ELSEWHERE.format(exercise=exercise_id))
        return WrittenExercise.from_content(material.content, material.model).named(material_id)

    async def _passages(self, ctx: Context, topic: str) -> list[SearchHit]:
        # Templates first (the course's exercises and worked examples), then the lecture.
        templates = await self._retriever.retrieve(ctx, f"{topic} exercise worked example", k=4)
        lecture = await self._retriever.retrieve(ctx, topic, k=4)
        hits: dict[str, SearchHit] = {}
        for hit in [*templates, *lecture]:
            hits.setdefault(hit.chunk.id, hit)
        chosen = list(hits.values())[:PASSAGES]
        if not chosen or await self._similarity(topic, chosen) < MIN_TOPIC_SIMILARITY:
            raise BadInputError(
                f"The course material has nothing on '{topic}' to model an exercise on."
            )
        return chosen

    async def _similarity(self, topic: str, hits: list[SearchHit]) -> float:
        vectors = await self._embedder.embed([topic, *(h.chunk.text[:PASSAGE_CHARS] for h in hits)])
        return float(np.max(vectors[1:] @ vectors[0]))

    async def _save(
        self, ctx: Context, topic: str, difficulty: str, drafted: Drafted,
        hits: list[SearchHit], job: str | None,
    ) -> WrittenExercise:  # fmt: skip
        definition = drafted.verdict.definition
        assert definition is not None and self._drafter is not None
        draft, model = drafted.draft, self._drafter.model.name
        followed = [hits[n - 1] for n in dict.fromkeys(draft.sources)] or hits[:1]
        written = WrittenExercise(
            definition=definition,
            statement=draft.statement,
            solution=draft.solution,
            final_answer=draft.final_answer,
            sources=tuple(dict.fromkeys(citation_for(hit) for hit in followed)),
            difficulty=difficulty,
            model=model,
        )
        # Each request is a new exercise: the request's own id keeps them apart in the store.
        visibility = made_as(ctx, cites_notes=any(c.private for c in written.sources))
        parameters = {"difficulty": difficulty, "request": ctx.message_id or _fresh_id()}
        key = MaterialKey(
            ctx.course_id, ctx.user_id, MaterialKind.EXERCISE, topic, visibility, parameters
        )
        material_id = await self._store.save(NewMaterial(
            key, content=written.content(), source_chunks=[hit.chunk.id for hit in hits],
            model=model, grounded=True, job=job,
        ))  # fmt: skip
        kept = await self._store.get(material_id)
        if kept is not None and kept.content != written.content():
            # Another run of this request stored its exercise first: that one is what
            # `gen-{id}` runs and grades, so it is the one shown.
            return WrittenExercise.from_content(kept.content, kept.model).named(material_id)
        return written.named(material_id)


def _fresh_id() -> str:
    return uuid.uuid4().hex


def _numbered(hits: list[SearchHit]) -> str:
    blocks = []
    for number, hit in enumerate(hits, 1):
        label = citation_for(hit).label()
        blocks.append(f"[{number}] ({label})\n{hit.chunk.text[:PASSAGE_CHARS]}")
    return "\n\n".join(blocks)
