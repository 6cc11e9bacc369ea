"""Quality of the extractive study sets (no language model) on real material.

For each course and topic, the study-set service builds flashcards, a quiz and a mind map
exactly as `/flashcards`, `/quiz` and `/mindmap` would without an LLM (the real ingestion
pipeline, the bundled embedder, hybrid retrieval, a SQLite material store). Each set is then
re-checked from outside, per generator:

- items per topic (mean, median, min), the share of topics reaching the default minimum
  (10 cards, 15 questions); refused: topics answered with one line instead of a set;
- teaching: the share of items citing teaching chunks only (`core.content_kind`), and
  own: citing the course's own files only;
- pass: the share of items passing every check of `core.study.checks` (item, set, course);
- stated: the share whose answer is stated in the chunk it cites (normalised text);
- for topics the course only lists (a syllabus's schedule names them, nothing teaches them):
  honest, the share answered with the one line saying so.

Corpora: the sample course, the two teaching courses of ../shared/datasets/teaching (their
topics.txt), and three syllabusqa-dev courses with topics their schedules list and with
course topics (grading, exams, ...), each skipped with a message when absent.

Run: python bench/study_quality.py [--teaching DIR] [--syllabi DIR] [--only NAME]"""

from __future__ import annotations

import argparse
import asyncio
import logging
import statistics
import sys
import tempfile
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import structlog
from qdrant_client import AsyncQdrantClient

from core.content_kind import ContentKind
from core.context import Audience, Context
from core.database import create_engine, migrate
from core.embedding.minilm_onnx import MiniLMOnnxEmbedder
from core.errors import BadInputError
from core.generation import MaterialStore
from core.index import ChunkIndex, ChunkRecord, SparseEncoder
from core.index import fields as f
from core.retrieval import Retriever
from core.study import checks, extractive
from core.study.checks import FLASHCARD_COUNT, QUIZ_COUNT
from core.study.models import FlashcardSet, Quiz, Source
from core.study.service import NotTaughtError, StudySets
from ingestion import Ingestor, discover

ROOT = Path(__file__).resolve().parents[1]
DATASETS = ROOT.parent / "shared/datasets"
SAMPLE_COURSE = ROOT / "examples/sample-course"
# Course topics: a quiz about the course itself is the right answer.
COURSE_TOPICS = ("grading", "exams", "late assignments", "office hours")
SAMPLE_TOPICS = ("derivatives", "limits", "chain rule", "continuity")
# Three syllabi and topics their schedules or outcomes list without teaching them.
SYLLABUS_ONLY = {
    "umass-math3312023": ("Laplace transform", "separable equations", "eigenvalues"),
    "syllabus-astron101-summer2023": ("the night sky", "planets", "gravity"),
    "stat-111-syl-spring-2023": ("hypothesis testing", "confidence intervals", "sampling"),
}


@dataclass
class Tally:
    """Figures for one kind of set over one class of topics."""

    sizes: list[int] = field(default_factory=list)
    items: int = 0
    passing: int = 0
    stated: int = 0
    teaching: int = 0
    own: int = 0
    full: int = 0  # sets reaching the default minimum
    refused: int = 0
    honest: int = 0  # refusals saying the course lists the topic but does not teach it
    seconds: float = 0.0
    failed: Counter[str] = field(default_factory=Counter)  # the rules items fail

    def line(self, name: str, minimum: int | None) -> str:
        topics = len(self.sizes) + self.refused
        share = lambda part, whole: f"{part / whole:.3f}" if whole else "  n/a"  # noqa: E731
        honest = f"  honest {share(self.honest, topics)}"
        if not self.sizes:
            return f"  {name:<11} no sets ({self.refused} topics refused){honest}"
        full = f" reach {minimum}: {share(self.full, len(self.sizes))}" if minimum else ""
        return (
            f"  {name:<11} sets {len(self.sizes):>3}  refused {self.refused:>3}  items/topic "
            f"mean {statistics.mean(self.sizes):5.1f} min {min(self.sizes):>2}{full}  "
            f"teaching {share(self.teaching, self.items)}  own {share(self.own, self.items)}  "
            f"pass {share(self.passing, self.items)}  stated {share(self.stated, self.items)}"
            f"{honest}  ms/set {1000 * self.seconds / len(self.sizes):5.0f}"
            + (f"\n{'':15}failed: {dict(self.failed.most_common(5))}" if self.failed else "")
        )


@dataclass(frozen=True)
class Stored:
    text: str
    course_id: str
    teaching: bool
    section: str
    record: ChunkRecord


async def stored_chunks(index: ChunkIndex) -> dict[str, Stored]:
    """Every chunk's section, text, course and kind by id, to check what an item cites."""
    chunks: dict[str, Stored] = {}
    offset: Any = None
    while True:
        points, offset = await index.client.scroll(
            index.collection,
            limit=512,
            offset=offset,
            with_payload=True,
        )
        for point in points:
            payload = point.payload or {}
            chunks[str(point.id)] = Stored(
                f"{payload.get(f.SECTION, '')}\n{payload.get(f.TEXT, '')}",
                str(payload.get(f.COURSE_ID)),
                payload.get(f.CONTENT_KIND) == ContentKind.TEACHING.value,
                str(payload.get(f.SECTION) or ""),
                ChunkRecord.from_payload(point.id, payload),
            )
        if offset is None:
            return chunks


def stated(answer: str, source: Source | None, chunks: dict[str, Stored]) -> bool:
    if source is None or source.chunk_id not in chunks:
        return False
    return checks.normalise(answer) in checks.normalise(chunks[source.chunk_id].text)


@dataclass
class Course:
    ctx: Context
    chunks: dict[str, Stored]
    tallies: dict[tuple[str, str], Tally]
    shown: list[str]
    scopes: dict[str, checks.CourseScope] = field(default_factory=dict)

    def scope(self, about: str) -> checks.CourseScope:
        """What a teacher's checks read: this course's sections, teaching chunks and terms."""
        if about not in self.scopes:
            self.scopes[about] = self._scope(about)
        return self.scopes[about]

    def _scope(self, about: str) -> checks.CourseScope:
        own = {key: c for key, c in self.chunks.items() if c.course_id == self.ctx.course_id}
        return checks.CourseScope(
            sections=frozenset(
                checks.normalise(part)
                for c in own.values()
                for part in c.section.split(" > ")
                if part
            ),
            teaching_chunks=frozenset(key for key, c in own.items() if c.teaching),
            subject=about != "course",
            # The terms the course defines may title their sections ("Dropout").
            terms=frozenset(
                checks.normalise(term)
                for term in extractive.glossary([c.record for c in own.values() if c.teaching])
            ),
        )

    def cites(self, sources: list[Source | None]) -> tuple[bool, bool]:
        """Whether every source is a teaching chunk, and a chunk of this course."""
        known = [self.chunks.get(s.chunk_id or "") if s else None for s in sources]
        teaching = all(k is not None and k.teaching for k in known)
        own = all(k is not None and k.course_id == self.ctx.course_id for k in known)
        return teaching, own


async def measure(sets: StudySets, course: Course, topic: str, about: str) -> None:
    """One topic's three sets; `about` is "teaching", "course" or "listed"."""
    kinds = (("flashcards", sets.flashcards), ("quiz", sets.quiz), ("mindmap", sets.mindmap))
    ctx, chunks = course.ctx, course.chunks
    scope = course.scope(about)
    for name, make in kinds:
        tally = course.tallies[(about, name)]
        started = time.perf_counter()
        try:
            served = await make(ctx, topic)
        except NotTaughtError as error:
            tally.refused += 1
            tally.honest += 1
            course.shown.append(f"[{ctx.course_id}] {name} '{topic}': {error}")
            continue
        except BadInputError as error:
            tally.refused += 1
            course.shown.append(f"[{ctx.course_id}] {name} '{topic}' refused: {error}")
            continue
        tally.seconds += time.perf_counter() - started
        value = served.value
        if isinstance(value, FlashcardSet):
            tally.sizes.append(len(value.cards))
            tally.full += len(value.cards) >= FLASHCARD_COUNT.minimum
            for card in value.cards:
                teaching, own = course.cites([card.source])
                tally.items += 1
                tally.teaching += teaching
                tally.own += own
                problems = [
                    *checks.card_problems(card.front, card.back),
                    *checks.course_problems(card.front, [card.back], 0, card.source, scope),
                ]
                tally.passing += own and not checks.errors(problems)
                tally.failed.update(p.rule.value for p in checks.errors(problems))
                tally.stated += stated(card.back, card.source, chunks)
        elif isinstance(value, Quiz):
            tally.sizes.append(len(value.items))
            tally.full += len(value.items) >= QUIZ_COUNT.minimum
            set_problems = [
                *checks.set_problems(value.items),
                *checks.repeated_options(value.items),
            ]
            tally.failed.update(p.rule.value for p in set_problems)
            set_ok = not set_problems and len(checks.dedupe_items(value.items)) == len(value.items)
            for item in value.items:
                teaching, own = course.cites([item.source])
                tally.items += 1
                tally.teaching += teaching
                tally.own += own
                problems = [
                    *checks.item_problems(item.question, item.options, item.correct),
                    *checks.course_problems(
                        item.question, item.options, item.correct, item.source, scope
                    ),
                ]
                tally.failed.update(p.rule.value for p in problems)
                ok = not problems
                tally.passing += ok and set_ok and own
                tally.stated += stated(item.answer, item.source, chunks)
            if value.items:
                item = value.items[0]
                options = " / ".join(item.options)
                course.shown.append(
                    f"[{ctx.course_id}] quiz '{topic}' ({len(value.items)}): {item.question} "
                    f"[{options}] -> {item.answer}"
                    + (f"  ({value.reason})" if value.reason else "")
                )
        else:
            nodes = [node for _, node in value.root.walk()][1:]
            tally.sizes.append(len(nodes))
            tally.items += len(nodes)
            for node in nodes:
                source = node.source if node.source and node.source.chunk_id else None
                teaching, own = course.cites([source]) if source else (True, True)
                tally.teaching += teaching
                tally.own += own
                tally.passing += own
                tally.stated += 1


async def run_corpus(
    title: str,
    courses: list[tuple[str, Path, list[tuple[str, str]]]],
    embedder: MiniLMOnnxEmbedder,
    show: bool,
) -> None:
    """`courses`: id, folder, and (topic, "teaching" | "course" | "listed") pairs."""
    # Unit vectors, as the bot's index keeps them with the bundled embedder.
    index = ChunkIndex(
        AsyncQdrantClient(location=":memory:"), "study", embedder.dimensions, False, None, True
    )
    await index.ensure()
    ingestor = Ingestor(index=index, embedder=embedder, sparse=SparseEncoder(), max_bytes=50 << 20)
    started = time.perf_counter()
    for course_id, folder, _ in courses:
        sources, _ = discover([folder])
        await ingestor.ingest(sources, course_id)
    chunks = await stored_chunks(index)
    teaching = sum(chunk.teaching for chunk in chunks.values())
    print(
        f"\n{title}: {len(courses)} courses, {len(chunks)} chunks ({teaching} teaching), "
        f"{sum(len(t) for *_, t in courses)} topics (ingested in "
        f"{time.perf_counter() - started:.0f} s)"
    )
    tallies: dict[tuple[str, str], Tally] = defaultdict(Tally)
    shown: list[str] = []
    with tempfile.TemporaryDirectory() as scratch:
        url = f"sqlite:///{Path(scratch) / 'study.db'}"
        await migrate(url)
        engine = create_engine(url)
        sets = StudySets(
            Retriever(index, embedder, SparseEncoder()), MaterialStore(engine), embedder=embedder
        )
        for course_id, _, topics in courses:
            ctx = Context(
                platform="bench", course_id=course_id, user_id="bench", audience=Audience.PRIVATE
            )
            course = Course(ctx, chunks, tallies, shown)
            for topic, about in topics:
                await measure(sets, course, topic, about)
        await engine.dispose()
    await index.close()
    for about in ("teaching", "course", "listed"):
        if not any(key[0] == about for key in tallies):
            continue
        print(f" {about} topics")
        print(tallies[(about, "flashcards")].line("flashcards", FLASHCARD_COUNT.minimum))
        print(tallies[(about, "quiz")].line("quiz", QUIZ_COUNT.minimum))
        line = tallies[(about, "mindmap")].line("mind map", None)
        print(line.replace("items/topic", "nodes/topic"))
    if show:
        print("\n".join(f"    {line}" for line in shown))


def topics_of(folder: Path) -> list[tuple[str, str]]:
    lines = (folder / "topics.txt").read_text(encoding="utf-8").splitlines()
    return [(line.strip(), "teaching") for line in lines if line.strip()]


async def main_async(args: argparse.Namespace) -> int:
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING))
    embedder = MiniLMOnnxEmbedder()
    wanted = lambda name: not args.only or args.only in name  # noqa: E731
    if wanted("sample"):
        topics = [(t, "teaching") for t in SAMPLE_TOPICS] + [(t, "course") for t in COURSE_TOPICS]
        await run_corpus("sample course", [("sample", SAMPLE_COURSE, topics)], embedder, args.show)
    for dataset in sorted(args.teaching.glob("*/courses")) if args.teaching.is_dir() else []:
        if wanted(dataset.parent.name):
            folders = sorted(p for p in dataset.iterdir() if p.is_dir())
            courses = [(p.name, p, topics_of(dataset.parent)) for p in folders]
            await run_corpus(dataset.parent.name, courses, embedder, args.show)
    if not args.teaching.is_dir():
        print(f"teaching courses: not found at {args.teaching}; skipped")
    folders = [args.syllabi / "courses" / name for name in SYLLABUS_ONLY]
    if wanted("syllabusqa"):
        if all(folder.is_dir() for folder in folders):
            courses = [
                (
                    folder.name,
                    folder,
                    [(t, "listed") for t in SYLLABUS_ONLY[folder.name]]
                    + [(t, "course") for t in COURSE_TOPICS],
                )
                for folder in folders
            ]
            await run_corpus("syllabusqa-dev", courses, embedder, args.show)
        else:
            print(f"syllabusqa-dev: not found at {args.syllabi}; skipped")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--teaching", type=Path, default=DATASETS / "teaching")
    parser.add_argument("--syllabi", type=Path, default=DATASETS / "syllabusqa-dev")
    parser.add_argument("--only", default="", help="one corpus: sample, d2l, cs231n, syllabusqa")
    parser.add_argument("--show", action="store_true", help="print each quiz's first question")
    return asyncio.run(main_async(parser.parse_args()))


if __name__ == "__main__":
    sys.exit(main())
