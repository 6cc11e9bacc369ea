"""Study sets on a topic for one student: retrieved in their scope, built extractively (no
model) or by the language model, and cached in the material store per course, student,
kind, topic and parameters, so asking again is instant and `fresh=True` replaces the set.

The way of one request: the topic's top chunks in the asker's scope (the retriever applies
the tenant filter: course public material, plus their own notes in a private audience
only), teaching chunks only for a subject (`core.content_kind`), course logistics for a
topic about the course itself ("grading", "exams": the set is labelled a quiz about the
course); the chunks that are about the topic (embedding similarity or all its words); then
a set from them. When only the course's logistics name a subject (a syllabus's schedule
lists it, nothing teaches it) the reply says so in one line (`NotTaughtError`). When nothing
is about the topic, a model may write a fallback set labelled not grounded; without a model
the request is refused in one line."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar

import numpy as np
import structlog

from core.content_kind import ContentKind, topic_kind
from core.context import Context
from core.embedding.embedder import Embedder
from core.errors import BadInputError
from core.generation import MaterialKey, MaterialStore, NewMaterial, Writing
from core.index import SearchHit, SparseEncoder
from core.llm import LlmTimeoutError, LlmUnavailableError
from core.progress import READING, WRITING_SET, StepReport, Steps
from core.retrieval import MIN_TOPIC_SIMILARITY
from core.study import checks, extractive
from core.study.checks import FLASHCARD_COUNT, QUIZ_COUNT, CountRange
from core.study.llm import StudyWriteError, StudyWriter
from core.study.mindmap_image import render_mindmap
from core.study.models import SET_TYPES, FlashcardSet, MindMap, Quiz, StudySet
from core.visibility import Access, access, made_as

log = structlog.get_logger(__name__)

# Chunks fetched per request and judged for being about the topic: those that are make the
# set, all are its distractor pool.
POOL_HITS = 40
# On a subject, more of the course's teaching chunks join the pool: the terms they define are
# its glossary (a cloze's blank, a term's distractors). The 40 chunks on "dropout" all came
# from its own chapter and named one term, so no cloze had three wrong options.
GLOSSARY_HITS = 120
# Chunks a set is made from, and passages a model is shown.
SET_HITS = 40
MODEL_PASSAGES = 8
SET_STEPS = (READING, WRITING_SET)
# The embedder reads about this much of a chunk (256 tokens) anyway.
SIMILARITY_CHARS = 1000
MAX_TOPIC_CHARS = 200
# Part of the cache key: bump it when stored sets would no longer read back.
FORMAT_VERSION = 1
EXTRACTIVE = "extractive"

S = TypeVar("S", bound=StudySet)


class TopicRetriever(Protocol):
    """What the service needs of `core.retrieval.Retriever`."""

    async def retrieve(
        self, ctx: Context, question: str, k: int = 5, *, content: ContentKind | None = None
    ) -> list[SearchHit]: ...


@dataclass(frozen=True, slots=True)
class Served(Generic[S]):
    """A set as served: `material_id` names it in the store (for buttons and polls that must
    find it again after a restart), `cached` says it was found rather than built."""

    value: S
    material_id: int
    cached: bool


@dataclass(frozen=True, slots=True)
class _Material:
    about: list[SearchHit]  # the chunks on the topic, best first
    pool: list[SearchHit]  # everything retrieved: distractors of the same course
    # A topic about the course itself: its set is made of logistics and labelled so.
    course: bool = False


@dataclass(frozen=True, slots=True)
class Coverage:
    """How the course's material covers a subject (`StudySets.coverage`)."""

    topic: str
    about: list[SearchHit]  # the teaching chunks on it, best first
    pool: list[SearchHit]  # every teaching chunk retrieved for it
    taught: bool  # they hold something to learn: a definition, formula, table row, term
    listed: list[SearchHit] = field(default_factory=list)  # not taught: logistics naming it


# The label of a set about the course rather than its subject.
ABOUT_THE_COURSE = "a set about the course itself (dates, weights, rules), not its subject"
# What a student types for such a set on any subject the course only lists.
COURSE_TOPIC = "course"


class NotTaughtError(BadInputError):
    """The course material lists a teaching topic (a syllabus's schedule or outcomes) but no
    teaching chunk is about it: the one-line reply says so instead of a set of trivia."""


NOTES_STAY_PRIVATE = (
    "That set may show your private notes, so I only open it where you alone read along: "
    "ask me in a direct message."
)


class StudySets:
    def __init__(
        self,
        retriever: TopicRetriever,
        store: MaterialStore,
        *,
        embedder: Embedder | None = None,
        writing: Writing | None = None,
    ) -> None:
        self._retriever = retriever
        self._store = store
        self._embedder = embedder
        self._writer = StudyWriter(writing) if writing is not None else None
        self._terms = SparseEncoder()

    @property
    def maker(self) -> str:
        return self._writer.model.name if self._writer is not None else EXTRACTIVE

    async def flashcards(
        self, ctx: Context, topic: str, *, fresh: bool = False, count: int | None = None,
        report: StepReport | None = None, job: str | None = None,
    ) -> Served[FlashcardSet]:  # fmt: skip
        """Flashcards on `topic`: 10 to 15, or exactly `count` (fewer with a reason)."""
        topic = _topic(topic, "flashcards")
        wanted = checks.wanted_count(FLASHCARD_COUNT, count, "flashcards")
        steps = Steps("flashcards", topic, SET_STEPS, report)

        async def build() -> FlashcardSet:
            await steps.begin(READING)
            material = await self._material(ctx, topic, "flashcards")
            await steps.begin(WRITING_SET)
            made = await self._made(
                topic,
                material,
                lambda: _off_loop(
                    _build_flashcards,
                    topic,
                    material.about[:SET_HITS],
                    wanted,
                    material.pool,
                    material.course,
                ),
                lambda writer, hits: writer.flashcards(topic, hits, wanted),
            )
            _require(made.cards, topic, "flashcards")
            return _labelled(made, material)

        return await self._serve(
            ctx, FlashcardSet, topic, {"count": count}, fresh, build, steps, job
        )

    async def quiz(
        self, ctx: Context, topic: str, *, fresh: bool = False, count: int | None = None,
        report: StepReport | None = None, job: str | None = None,
    ) -> Served[Quiz]:  # fmt: skip
        """A quiz on `topic`: 15 to 20 questions, or exactly `count` (fewer with a reason)."""
        topic = _topic(topic, "quiz")
        wanted = checks.wanted_count(QUIZ_COUNT, count, "questions")
        steps = Steps("quiz", topic, SET_STEPS, report)

        async def build() -> Quiz:
            await steps.begin(READING)
            material = await self._material(ctx, topic, "a quiz")
            await steps.begin(WRITING_SET)
            made = await self._made(
                topic,
                material,
                lambda: _off_loop(
                    _build_quiz,
                    topic,
                    material.about[:SET_HITS],
                    wanted,
                    material.pool,
                    material.course,
                ),
                lambda writer, hits: writer.quiz(topic, hits, wanted),
            )
            _require(made.items, topic, "quiz questions")
            return _labelled(made, material)

        return await self._serve(ctx, Quiz, topic, {"count": count}, fresh, build, steps, job)

    async def mindmap(
        self, ctx: Context, topic: str, *, fresh: bool = False,
        report: StepReport | None = None, job: str | None = None,
    ) -> Served[MindMap]:  # fmt: skip
        """A mind map of `topic`: without a model, the sections of the documents on it."""
        topic = _topic(topic, "mind map")
        steps = Steps("mind map", topic, SET_STEPS, report)

        async def build() -> MindMap:
            await steps.begin(READING)
            material = await self._material(ctx, topic, "a mind map")
            await steps.begin(WRITING_SET)
            made = await self._made(
                topic,
                material,
                lambda: _off_loop(_build_mindmap, topic, material.about),
                lambda writer, hits: writer.mindmap(topic, hits),
            )
            return _labelled(made, material)

        return await self._serve(ctx, MindMap, topic, {}, fresh, build, steps, job)

    async def mindmap_png(self, mindmap: MindMap) -> bytes:
        """The map as a PNG picture (drawn in a worker thread)."""
        return await render_mindmap(mindmap)

    async def load(
        self, ctx: Context, material_id: int, *, shown_here: bool = False
    ) -> StudySet | None:
        """A stored set of this course by id (a quiz whose buttons are pressed after a
        restart), or None. A course's set is its class's (a quiz posted to a group is
        answered by all); a private one (`core.visibility`) is its owner's alone, and with
        `shown_here` (its content is about to be shown) opened only where they alone read
        along."""
        material = await self._store.get(material_id)
        kind = SET_TYPES.get(material.kind) if material is not None else None
        if material is None or kind is None:
            return None
        allowed = access(ctx, material, classmates=True)
        if allowed is Access.NONE:
            return None
        if allowed is Access.ELSEWHERE and shown_here:
            raise BadInputError(NOTES_STAY_PRIVATE)
        return kind.from_json(material.content)

    # -------------------------------------------------------------------------------

    async def _serve(
        self,
        ctx: Context,
        kind: type[S],
        topic: str,
        parameters: Mapping[str, Any],
        fresh: bool,
        build: Callable[[], Awaitable[S]],
        steps: Steps,
        job: str | None,
    ) -> Served[S]:
        if job is not None and (saved := await self._store.saved_by(job)) is not None:
            # This job ran before, saved its set and died before answering: answer with
            # that set (even under --new), not another.
            await steps.finish()
            return Served(kind.from_json(saved.content), saved.id, cached=False)
        # The visibility is part of the key: a set built where private notes are read must
        # not be served where others read.
        key = {**parameters, "maker": self.maker, "format": FORMAT_VERSION}
        if not fresh:
            cached = await self._store.latest(
                MaterialKey(ctx.course_id, ctx.user_id, kind.kind, topic, made_as(ctx), key)
            )
            if cached is not None:
                return Served(kind.from_json(cached.content), cached.id, cached=True)
        value = await build()
        visibility = made_as(ctx, cites_notes=any(s.private for s in value.sources()))
        stored = NewMaterial(
            MaterialKey(ctx.course_id, ctx.user_id, kind.kind, topic, visibility, key),
            content=value.to_json(),
            source_chunks=[s.chunk_id for s in value.sources() if s.chunk_id],
            model=value.made_by,
            grounded=value.grounded,
            job=job,
        )
        if fresh:
            material_id = await self._store.replace(stored)
            await steps.finish()
            return Served(value, material_id, cached=False)
        material_id = await self._store.save(stored)
        await steps.finish()
        kept = await self._store.get(material_id)
        if kept is not None and kept.content != stored.content:
            # Another request stored this set first: serve that one, so ids match content.
            return Served(kind.from_json(kept.content), material_id, cached=True)
        return Served(value, material_id, cached=False)

    async def coverage(self, ctx: Context, topic: str) -> Coverage:
        """Whether the course's material teaches the subject `topic`, for study sets and
        drawn exercises alike: the one place a subject is found taught or only listed. The
        teaching chunks about it must hold something to learn (a syllabus's one paragraph
        read as teaching gave a mind map of its own section names); when they do not, the
        logistics chunks that name it (a syllabus's schedule) are looked up for the reply."""
        hits = await self._of_kind(ctx, topic, ContentKind.TEACHING, GLOSSARY_HITS)
        about = await self._about(topic, hits[:POOL_HITS])
        taught = bool(about) and await asyncio.to_thread(extractive.teaches, about, hits)
        if taught:
            return Coverage(topic, about, hits, taught=True)
        # A syllabus "lists" a subject in its own words: stems alone put "derivatives" in a
        # journalism syllabus's grading policy ("derived from"), a false line.
        logistics = await self._of_kind(ctx, topic, ContentKind.LOGISTICS)
        listed = await self._about(topic, logistics, as_written=True)
        return Coverage(topic, about, hits, taught=False, listed=listed)

    async def _material(self, ctx: Context, topic: str, noun: str) -> _Material:
        """The chunks a set on `topic` is made of: teaching ones for a subject, logistics for
        a topic about the course itself."""
        kind = topic_kind(topic)
        if kind is ContentKind.LOGISTICS:
            hits = await self._of_kind(ctx, topic, kind)
            about = await self._about(topic, hits)
            if not about:
                raise BadInputError(f"The course material says nothing about '{topic}'.")
            return _Material(about, hits, course=True)
        found = await self.coverage(ctx, topic)
        if found.listed:
            raise NotTaughtError(not_taught(topic, found.listed))
        if not found.about and self._writer is None:
            raise BadInputError(
                f"The course material has nothing on '{topic}', and without a language "
                f"model I cannot write {noun} from outside it."
            )
        return _Material(found.about, found.pool)

    async def _of_kind(
        self, ctx: Context, topic: str, kind: ContentKind, k: int = POOL_HITS
    ) -> list[SearchHit]:
        """The topic's best `k` chunks of one kind; chunks stored before chunks were
        classified pass the search and are told apart by their text here."""
        hits = await self._retriever.retrieve(ctx, topic, k=k, content=kind)
        return [hit for hit in hits if hit.chunk.content is kind]

    async def _about(
        self, topic: str, hits: list[SearchHit], *, as_written: bool = False
    ) -> list[SearchHit]:
        """The hits that are about the topic: holding all its words (stemmed; `as_written`:
        as written, but for a plural's s), or close in meaning (only the others are
        embedded: embedding is most of a request's time)."""
        words = self._written if as_written else self._terms.terms
        wanted = set(words(topic))
        about = [
            bool(wanted)
            and wanted <= set(words(f"{h.chunk.section} {h.chunk.file_name} {h.chunk.text}"))
            for h in hits
        ]
        unsure = [n for n, match in enumerate(about) if not match]
        if self._embedder is not None and unsure:
            texts = [hits[n].chunk.text[:SIMILARITY_CHARS] for n in unsure]
            vectors = np.asarray(await self._embedder.embed([topic, *texts]))
            for n, score in zip(unsure, vectors[1:] @ vectors[0], strict=True):
                about[n] = bool(score >= MIN_TOPIC_SIMILARITY)
        return [hit for hit, match in zip(hits, about, strict=True) if match]

    def _written(self, text: str) -> list[str]:
        """The words of `text` that are terms (no stop words), lower-cased, a final s off."""
        words = re.findall(r"[a-z0-9]+", text.casefold())
        return [w.removesuffix("s") if len(w) > 3 else w for w in words if self._terms.terms(w)]

    async def _made(
        self,
        topic: str,
        material: _Material,
        extract: Callable[[], Awaitable[S]],
        write: Callable[[StudyWriter, list[SearchHit]], Awaitable[S]],
    ) -> S:
        """Without a model, the extractive set. With one, the model's set; when the material
        covers the topic but the model fails, the extractive set with a note saying so; with
        no material, the model's fallback set (labelled not grounded)."""
        if self._writer is None:
            return await extract()
        about = material.about[:MODEL_PASSAGES]
        try:
            return await write(self._writer, about)
        except (LlmTimeoutError, LlmUnavailableError, StudyWriteError) as error:
            log.warning("study set: the model failed", topic=topic, error=str(error))
            if not about:
                raise BadInputError(
                    f"The course material has nothing on '{topic}', and the language model "
                    "could not write a set just now; try again later."
                ) from error
        made = await extract()
        note = "the language model could not write this set, so it was taken from the material"
        return made.model_copy(update={"reason": "; ".join(filter(None, [note, made.reason]))})


def _labelled(made: S, material: _Material) -> S:
    if not material.course:
        return made
    reason = "; ".join(filter(None, [ABOUT_THE_COURSE, made.reason]))
    return made.model_copy(update={"reason": reason})


def not_taught(topic: str, listed: Sequence[SearchHit]) -> str:
    """One line: where the course lists a topic it does not teach, and what to do."""
    return (
        f"The course material lists {topic} {where_listed(topic, listed)} but does not teach "
        "it yet; ask your instructor to upload the lecture notes, or ask for a quiz on "
        f"'{COURSE_TOPIC}' for one about the course itself (dates, weights, rules)."
    )


_PLAN_COLUMN = re.compile(r"^(session|week|slot|lecture|class|unit|day|module)s?\b", re.I)
_NUMBER = re.compile(r"^\d{1,3}$")


def where_listed(topic: str, listed: Sequence[SearchHit]) -> str:
    """ "in sessions 4–7" where a plan's rows name the topic, else "in FILE (SECTION)"."""
    terms = SparseEncoder()
    wanted = set(terms.terms(topic))
    numbers: set[int] = set()
    noun = ""
    for hit in listed:
        header: list[str] = []
        for line in hit.chunk.text.splitlines():
            if not line.strip().startswith("|"):
                header = []
                continue
            cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
            if not header:
                header = cells
                continue
            plan = next((c for c in header if _PLAN_COLUMN.match(c)), None)
            if plan is None or not wanted & set(terms.terms(line)):
                continue
            number = next((c for c in cells if _NUMBER.match(c)), None)
            if number is not None:
                numbers.add(int(number))
                noun = _PLAN_COLUMN.match(plan)[1].lower()  # type: ignore[index]
    if numbers:
        low, high = min(numbers), max(numbers)
        span = f"{low}" if low == high else f"{low}–{high}"
        return f"in {noun}{'s' if low != high else ''} {span}"
    chunk = listed[0].chunk
    section = f" ({chunk.section})" if chunk.section else ""
    return f"in {chunk.file_name}{section}"


def _topic(topic: str, noun: str) -> str:
    topic = " ".join(topic.split())
    if not topic:
        raise BadInputError(f"Which topic should the {noun} be about? Name one, like 'limits'.")
    if len(topic) > MAX_TOPIC_CHARS:
        raise BadInputError(f"Please name the topic in at most {MAX_TOPIC_CHARS} characters.")
    return topic


def _require(items: Sequence[object], topic: str, noun: str) -> None:
    if not items:
        raise BadInputError(
            f"The material on '{topic}' holds no definitions, formulas or tables I can make "
            f"{noun} from."
        )


def _build_quiz(
    topic: str, about: list[SearchHit], wanted: CountRange, pool: list[SearchHit], course: bool
) -> Quiz:
    return extractive.build_quiz(topic, about, wanted, pool=pool, subject=not course)


def _build_flashcards(
    topic: str, about: list[SearchHit], wanted: CountRange, pool: list[SearchHit], course: bool
) -> FlashcardSet:
    return extractive.build_flashcards(topic, about, wanted, pool=pool, subject=not course)


def _build_mindmap(topic: str, about: list[SearchHit]) -> MindMap:
    return extractive.build_mindmap(topic, about)


async def _off_loop(function: Callable[..., S], *args: Any) -> S:
    return await asyncio.to_thread(function, *args)
