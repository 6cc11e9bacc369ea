"""Quality of the extractive study sets (no language model) on real material.

For each course and topic, the study-set service builds flashcards, a quiz and a mind map
exactly as `/flashcards`, `/quiz` and `/mindmap` would without an LLM (the real ingestion
pipeline, the bundled embedder, hybrid retrieval, a SQLite material store). Each set is then
re-checked from outside:

- pass: the share of items passing every item check (and, for quizzes, the set checks);
- stated: the share whose answer is stated in the chunk it cites (normalised text);
- items per topic (mean, median, min), and the share of topics reaching the default
  minimum (10 cards, 15 questions); refused: topics the material does not cover.

Corpora: a sample of syllabusqa-dev courses (skipped with a message when the dataset is
absent) and the sample course.

Run: python bench/study_quality.py [--dataset DIR] [--courses 6] [--seed 7]
[--topics "grading,attendance"] [--skip-dataset]"""

from __future__ import annotations

import argparse
import asyncio
import logging
import random
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import structlog
from qdrant_client import AsyncQdrantClient

from core.context import Audience, Context
from core.database import create_engine, migrate
from core.embedding.minilm_onnx import MiniLMOnnxEmbedder
from core.errors import BadInputError
from core.generation import MaterialStore
from core.index import ChunkIndex, SparseEncoder
from core.index import fields as f
from core.retrieval import Retriever
from core.study import checks
from core.study.checks import FLASHCARD_COUNT, QUIZ_COUNT
from core.study.models import FlashcardSet, Quiz, Source
from core.study.service import StudySets
from ingestion import Ingestor, discover

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATASET = ROOT.parent / "shared/datasets/syllabusqa-dev"
SAMPLE_COURSE = ROOT / "examples/sample-course"
SYLLABUS_TOPICS = (
    "grading",
    "attendance",
    "exams",
    "late assignments",
    "office hours",
    "textbook",
    "academic integrity",
    "course objectives",
)
SAMPLE_TOPICS = ("derivatives", "limits", "chain rule", "continuity", "grading policy", "exams")


@dataclass
class Tally:
    """Figures for one kind of set over a corpus."""

    sizes: list[int] = field(default_factory=list)
    items: int = 0
    passing: int = 0
    stated: int = 0
    full: int = 0  # sets reaching the default minimum
    refused: int = 0
    seconds: float = 0.0

    def line(self, name: str, minimum: int | None) -> str:
        sets = len(self.sizes)
        if not sets:
            return f"  {name:<11} no sets ({self.refused} topics refused)"
        share = lambda part, whole: f"{part / whole:.3f}" if whole else "  n/a"  # noqa: E731
        full = f" reach {minimum}: {share(self.full, sets)}" if minimum else ""
        return (
            f"  {name:<11} sets {sets:>3}  refused {self.refused:>3}  items/topic "
            f"mean {statistics.mean(self.sizes):5.1f} median {statistics.median(self.sizes):4.1f} "
            f"min {min(self.sizes):>2}{full}  pass {share(self.passing, self.items)}  "
            f"stated {share(self.stated, self.items)}  ms/set {1000 * self.seconds / sets:6.0f}"
        )


async def chunk_texts(index: ChunkIndex) -> dict[str, str]:
    """Every chunk's section and text by id, to check what an item cites."""
    texts: dict[str, str] = {}
    offset: Any = None
    while True:
        points, offset = await index.client.scroll(
            index.collection, limit=512, offset=offset, with_payload=[f.TEXT, f.SECTION]
        )
        for point in points:
            payload = point.payload or {}
            texts[str(point.id)] = f"{payload.get(f.SECTION, '')}\n{payload.get(f.TEXT, '')}"
        if offset is None:
            return texts


def stated(answer: str, source: Source | None, texts: dict[str, str]) -> bool:
    if source is None or source.chunk_id not in texts:
        return False
    return checks.normalise(answer) in checks.normalise(texts[source.chunk_id])


async def measure(
    sets: StudySets, ctx: Context, topic: str, texts: dict[str, str], tallies: dict[str, Tally]
) -> None:
    kinds = (("flashcards", sets.flashcards), ("quiz", sets.quiz), ("mindmap", sets.mindmap))
    for name, make in kinds:
        tally = tallies[name]
        started = time.perf_counter()
        try:
            served = await make(ctx, topic)
        except BadInputError:
            tally.refused += 1
            continue
        tally.seconds += time.perf_counter() - started
        value = served.value
        if isinstance(value, FlashcardSet):
            tally.sizes.append(len(value.cards))
            tally.full += len(value.cards) >= FLASHCARD_COUNT.minimum
            for card in value.cards:
                tally.items += 1
                tally.passing += not checks.errors(checks.card_problems(card.front, card.back))
                tally.stated += stated(card.back, card.source, texts)
        elif isinstance(value, Quiz):
            tally.sizes.append(len(value.items))
            tally.full += len(value.items) >= QUIZ_COUNT.minimum
            set_ok = not checks.set_problems(value.items) and len(
                checks.dedupe_items(value.items)
            ) == len(value.items)
            for item in value.items:
                tally.items += 1
                ok = not checks.item_problems(item.question, item.options, item.correct)
                tally.passing += ok and set_ok
                tally.stated += stated(item.answer, item.source, texts)
        else:
            nodes = value.nodes()
            tally.sizes.append(nodes)
            tally.items += nodes
            tally.passing += nodes
            tally.stated += sum(
                1
                for _, node in value.root.walk()
                if node.source is None
                or node.source.chunk_id is None
                or node.source.chunk_id in texts
            )


async def run_corpus(
    title: str,
    courses: list[tuple[str, Path]],
    topics: tuple[str, ...],
    embedder: MiniLMOnnxEmbedder,
) -> None:
    # Unit vectors, as the bot's index keeps them with the bundled embedder.
    index = ChunkIndex(
        AsyncQdrantClient(location=":memory:"), "study", embedder.dimensions, False, None, True
    )
    await index.ensure()
    ingestor = Ingestor(index=index, embedder=embedder, sparse=SparseEncoder(), max_bytes=50 << 20)
    started = time.perf_counter()
    for course_id, folder in courses:
        sources, _ = discover([folder])
        await ingestor.ingest(sources, course_id)
    texts = await chunk_texts(index)
    print(
        f"\n{title}: {len(courses)} courses, {len(texts)} chunks, {len(topics)} topics each "
        f"(ingested in {time.perf_counter() - started:.0f} s)"
    )
    with tempfile.TemporaryDirectory() as scratch:
        url = f"sqlite:///{Path(scratch) / 'study.db'}"
        await migrate(url)
        engine = create_engine(url)
        sets = StudySets(
            Retriever(index, embedder, SparseEncoder()), MaterialStore(engine), embedder=embedder
        )
        tallies: dict[str, Tally] = defaultdict(Tally)
        for course_id, _ in courses:
            ctx = Context(
                platform="bench", course_id=course_id, user_id="bench", audience=Audience.PRIVATE
            )
            for topic in topics:
                await measure(sets, ctx, topic, texts, tallies)
        await engine.dispose()
    await index.close()
    print(tallies["flashcards"].line("flashcards", FLASHCARD_COUNT.minimum))
    print(tallies["quiz"].line("quiz", QUIZ_COUNT.minimum))
    print(tallies["mindmap"].line("mind map", None).replace("items/topic", "nodes/topic"))


async def main_async(args: argparse.Namespace) -> int:
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING))
    embedder = MiniLMOnnxEmbedder()
    topics = tuple(t.strip() for t in args.topics.split(",") if t.strip()) or SYLLABUS_TOPICS
    if args.skip_dataset:
        print("syllabusqa-dev: skipped (--skip-dataset)")
    elif not (args.dataset / "courses").is_dir():
        print(f"syllabusqa-dev: not found at {args.dataset}; skipped")
    else:
        folders = sorted(p for p in (args.dataset / "courses").iterdir() if p.is_dir())
        chosen = random.Random(args.seed).sample(folders, min(args.courses, len(folders)))
        await run_corpus("syllabusqa-dev", [(p.name, p) for p in sorted(chosen)], topics, embedder)
    await run_corpus("sample course", [("sample", SAMPLE_COURSE)], SAMPLE_TOPICS, embedder)
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--dataset", type=Path, default=DEFAULT_DATASET)
    parser.add_argument("--courses", type=int, default=6, help="syllabusqa courses sampled")
    parser.add_argument("--seed", type=int, default=7, help="which courses are sampled")
    parser.add_argument(
        "--topics", default="", help="comma-separated syllabus topics (default: eight common ones)"
    )
    parser.add_argument("--skip-dataset", action="store_true", help="the sample course only")
    return asyncio.run(main_async(parser.parse_args()))


if __name__ == "__main__":
    sys.exit(main())
