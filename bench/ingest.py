"""Ingestion throughput on the syllabusqa-dev corpus with the bundled embedder.

Prints files, pages, chunks, wall time, pages/s, chunks/s, the share of time spent embedding,
and peak memory. Run: python bench/ingest.py [DATASET_DIR] [--engine edge|local]
[--embedder fast|legacy] [--pictures off|on|both]

--pictures on keeps a picture of every PDF page (and of every slide, where LibreOffice is
installed) as the bot does (`core.page_pictures`), in a temporary folder, and prints how many
were kept and their size; --pictures both ingests the corpus without and with pictures in one
run, interleaved course by course like --compare, and prints the ratio of pages/s.

--compare ingests the corpus with the legacy and the fast bundled model in one run,
interleaved course by course (the order alternating), each into an index of its own, and
prints pages/s for each and the ratio: a busy machine then slows both alike."""

from __future__ import annotations

import argparse
import asyncio
import resource
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from qdrant_client import AsyncQdrantClient

from core.embedding.minilm_onnx import BUNDLED_MODELS, MiniLMOnnxEmbedder, bundled_embedder
from core.index import ChunkIndex, EdgeQdrantClient, SparseEncoder
from core.page_pictures import PagePictures
from ingestion import Ingestor, discover
from ingestion.slide_pictures import SlideConverter

DEFAULT_DATASET = Path(__file__).resolve().parents[1].parent / "shared/datasets/syllabusqa-dev"


class TimedEmbedder:
    """Wraps the embedder to measure the time spent inside it."""

    def __init__(self, inner: MiniLMOnnxEmbedder) -> None:
        self.inner = inner
        self.name, self.dimensions, self.max_tokens = inner.name, inner.dimensions, inner.max_tokens
        self.identity = inner.identity
        self.seconds = 0.0
        self.texts = 0
        self.tokens = 0

    def count_tokens(self, text: str) -> int:
        return self.inner.count_tokens(text)

    async def embed(self, texts):
        started = time.perf_counter()
        vectors = await self.inner.embed(texts)
        self._count(texts, started)
        return vectors

    async def embed_with_units(self, texts):
        """Ingestion's call (chunk and unit vectors from one pass), timed the same way."""
        started = time.perf_counter()
        vectors = await self.inner.embed_with_units(texts)
        self._count(texts, started)
        return vectors

    def _count(self, texts, started: float) -> None:
        self.seconds += time.perf_counter() - started
        self.texts += len(texts)
        self.tokens += sum(min(self.count_tokens(t), self.max_tokens) for t in texts)


@dataclass
class Run:
    """One embedder's ingestion: its index, and the figures summed over courses."""

    label: str
    embedder: TimedEmbedder
    index: ChunkIndex
    ingestor: Ingestor
    files: int = 0
    pages: int = 0
    chunks: int = 0
    failed: int = 0
    seconds: float = 0.0
    failures: list[str] = field(default_factory=list)
    pictures: int = 0
    picture_bytes: int = 0

    async def ingest(self, course: Path) -> None:
        sources, _ = discover([course])
        started = time.perf_counter()
        report = await self.ingestor.ingest(sources, course.name)
        self.seconds += time.perf_counter() - started
        self.files += len(report.results)
        self.pages += report.pages
        self.chunks += report.chunks
        self.failed += len(report.failed)

    def count_pictures(self) -> None:
        if self.ingestor.pictures is not None:
            kept = list(self.ingestor.pictures.root.rglob("p*.png"))
            self.pictures = len(kept)
            self.picture_bytes = sum(p.stat().st_size for p in kept)

    def print(self) -> None:
        embedder = self.embedder
        print(f"[{self.label}] {embedder.identity}")
        if self.ingestor.pictures is not None:
            each = self.picture_bytes / 1024 / max(self.pictures, 1)
            print(f"  pictures={self.pictures} ({each:.0f} KB each)")
        print(f"  files={self.files} failed={self.failed} pages={self.pages} chunks={self.chunks}")
        print(
            f"  wall={self.seconds:.1f}s pages/s={self.pages / self.seconds:.1f} "
            f"chunks/s={self.chunks / self.seconds:.1f}"
        )
        print(
            f"  embedding: {embedder.seconds:.1f}s "
            f"({100 * embedder.seconds / self.seconds:.0f}% of wall), "
            f"{embedder.tokens / embedder.seconds:.0f} tokens/s, "
            f"{embedder.tokens / max(self.chunks, 1):.0f} tokens/chunk"
        )


async def open_run(label: str, choice: str, engine: str, root: Path, pictures: bool) -> Run:
    embedder = TimedEmbedder(bundled_embedder(choice))
    # The embedded engine as the composition root configures it: Edge with payload indexes.
    edge = engine == "edge"
    client = EdgeQdrantClient(root) if edge else AsyncQdrantClient(path=str(root))
    index = ChunkIndex(
        client, "bench", embedder.dimensions, payload_indexes=edge, unit_vectors=True
    )
    await index.ensure()
    ingestor = Ingestor(
        index=index,
        embedder=embedder,
        sparse=SparseEncoder(),
        max_bytes=50 << 20,
        pictures=PagePictures(root / "pages", 500 << 20) if pictures else None,
        # Decks are pictured as the bot does, where LibreOffice is installed.
        slides=SlideConverter.find() if pictures else None,
    )
    return Run(label, embedder, index, ingestor)


async def run(dataset: Path, engine: str, choices: list[str], pictures: str) -> None:
    courses = sorted(p for p in (dataset / "courses").iterdir() if p.is_dir())
    kept = {"off": [False], "on": [True], "both": [False, True]}[pictures]
    with tempfile.TemporaryDirectory() as tmp:
        runs = []
        for choice in choices:
            for with_pictures in kept:
                label = f"{choice}+pictures" if with_pictures else choice
                root = Path(tmp) / label
                runs.append(await open_run(label, choice, engine, root, with_pictures))
        for number, course in enumerate(courses):
            # Alternating which run goes first cancels out warm-up and drift.
            order = runs if number % 2 == 0 else runs[::-1]
            for each in order:
                await each.ingest(course)
        for each in runs:
            each.count_pictures()
            await each.index.close()
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"dataset: {dataset}; engine: {engine}; courses: {len(courses)}; pictures: {pictures}")
    for each in runs:
        each.print()
    if pictures == "both" and len(runs) == 2:
        plain, pictured = runs
        print(
            f"ratio {pictured.label}/{plain.label}: pages/s "
            f"{(pictured.pages / pictured.seconds) / (plain.pages / plain.seconds):.2f}x"
        )
    elif len(runs) == 2:
        legacy, fast = runs
        print(
            f"ratio {fast.label}/{legacy.label}: pages/s "
            f"{(fast.pages / fast.seconds) / (legacy.pages / legacy.seconds):.2f}x, "
            f"embedding time {legacy.embedder.seconds / fast.embedder.seconds:.2f}x"
        )
    print(f"peak_rss_mb={peak_mb:.0f}")


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("dataset", nargs="?", type=Path, default=DEFAULT_DATASET)
    parser.add_argument("--engine", choices=("edge", "local"), default="edge")
    parser.add_argument("--embedder", choices=sorted(BUNDLED_MODELS), default="fast")
    parser.add_argument(
        "--compare", action="store_true", help="legacy and fast in one run, interleaved"
    )
    parser.add_argument(
        "--pictures",
        choices=("off", "on", "both"),
        default="off",
        help="keep pictures of PDF pages (both: without and with, interleaved)",
    )
    args = parser.parse_args()
    if not (args.dataset / "courses").is_dir():
        print(f"no courses/ folder under {args.dataset}", file=sys.stderr)
        return 2
    choices = ["legacy", "fast"] if args.compare else [args.embedder]
    asyncio.run(run(args.dataset, args.engine, choices, args.pictures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
