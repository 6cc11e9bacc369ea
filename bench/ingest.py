"""Ingestion throughput on the syllabusqa-dev corpus with the bundled embedder.

Prints files, pages, chunks, wall time, pages/s, chunks/s, the share of time spent embedding,
and peak memory. Run: python bench/ingest.py [DATASET_DIR] [--engine edge|local]"""

from __future__ import annotations

import argparse
import asyncio
import resource
import sys
import tempfile
import time
from pathlib import Path

from qdrant_client import AsyncQdrantClient

from core.embedding.minilm_onnx import MiniLMOnnxEmbedder
from core.index import ChunkIndex, EdgeQdrantClient, SparseEncoder
from ingestion import Ingestor, discover

DEFAULT_DATASET = Path(__file__).resolve().parents[1].parent / "shared/datasets/syllabusqa-dev"


class TimedEmbedder:
    """Wraps the embedder to measure the time spent inside it."""

    def __init__(self, inner: MiniLMOnnxEmbedder) -> None:
        self.inner = inner
        self.name, self.dimensions, self.max_tokens = inner.name, inner.dimensions, inner.max_tokens
        self.seconds = 0.0
        self.texts = 0
        self.tokens = 0

    def count_tokens(self, text: str) -> int:
        return self.inner.count_tokens(text)

    async def embed(self, texts):
        started = time.perf_counter()
        vectors = await self.inner.embed(texts)
        self.seconds += time.perf_counter() - started
        self.texts += len(texts)
        self.tokens += sum(min(self.count_tokens(t), self.max_tokens) for t in texts)
        return vectors


async def run(dataset: Path, engine: str) -> None:
    courses = sorted(p for p in (dataset / "courses").iterdir() if p.is_dir())
    embedder = TimedEmbedder(MiniLMOnnxEmbedder())
    with tempfile.TemporaryDirectory() as tmp:
        # The embedded engine as the composition root configures it: Edge with payload indexes.
        edge = engine == "edge"
        client = EdgeQdrantClient(Path(tmp)) if edge else AsyncQdrantClient(path=tmp)
        index = ChunkIndex(client, "bench", embedder.dimensions, payload_indexes=edge)
        await index.ensure()
        ingestor = Ingestor(
            index=index, embedder=embedder, sparse=SparseEncoder(), max_bytes=50 << 20
        )
        files = pages = chunks = failed = 0
        started = time.perf_counter()
        for course in courses:
            sources, _ = discover([course])
            report = await ingestor.ingest(sources, course.name)
            files += len(report.results)
            pages += report.pages
            chunks += report.chunks
            failed += len(report.failed)
        elapsed = time.perf_counter() - started
        await index.close()
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"dataset: {dataset}; engine: {engine}")
    print(f"files={files} failed={failed} pages={pages} chunks={chunks}")
    print(f"wall={elapsed:.1f}s pages/s={pages / elapsed:.1f} chunks/s={chunks / elapsed:.1f}")
    print(
        f"embedding: {embedder.seconds:.1f}s ({100 * embedder.seconds / elapsed:.0f}% of wall), "
        f"{embedder.tokens / embedder.seconds:.0f} tokens/s, "
        f"{embedder.tokens / max(chunks, 1):.0f} tokens/chunk"
    )
    print(f"peak_rss_mb={peak_mb:.0f}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("dataset", nargs="?", type=Path, default=DEFAULT_DATASET)
    parser.add_argument("--engine", choices=("edge", "local"), default="edge")
    args = parser.parse_args()
    if not (args.dataset / "courses").is_dir():
        print(f"no courses/ folder under {args.dataset}", file=sys.stderr)
        return 2
    asyncio.run(run(args.dataset, args.engine))
    return 0


if __name__ == "__main__":
    sys.exit(main())
