"""Query latency on one 10,000-chunk course, without the LLM: embed the question, hybrid
search in Qdrant (embedded on disk: Qdrant Edge, or local mode with --engine local), rerank.
Prints p50/p95/mean in ms per stage and in total, for the default variant and the same fusion
with reranking switched the other way (or the --variant given).

With --answer, the whole answer path without an LLM is timed too, as the answer service runs
it: the follow-up rewrite (with one earlier turn), retrieval, packing into the default context
budget (core/answering/budget.pack, 4,000 characters) and the extractive answer on the packed
passages: stages "pack" and "answer", and "path" for all of it.

Material: the syllabusqa-dev PDFs, loaded and chunked by the real ingestion pipeline and
embedded with the bundled model (cached under /tmp), repeated with small variations up to
--chunks. The copies' vectors are the originals plus small Gaussian noise unless --exact,
which embeds every varied chunk for real (about 6 minutes for 10,000; cached too).
Questions: the dataset's student questions. Without the dataset: synthetic sentences.

Run: python bench/query.py [--dataset DIR] [--chunks 10000] [--queries 200] [--exact]
[--variant NAME ...] [--reranker-model DIR] [--engine edge|local] [--qdrant-url URL] [--answer]"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import logging
import random
import statistics
import sys
import tempfile
import time
import uuid
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import structlog
from qdrant_client import AsyncQdrantClient, models

from core.answering import DEFAULT_CONTEXT_CHARS, ExtractiveAnswerer, pack
from core.context import Context, Role
from core.conversation import QuestionRewriter, Turn
from core.embedding.minilm_onnx import MiniLMOnnxEmbedder
from core.index import ChunkIndex, EdgeQdrantClient, SearchHit, SparseEncoder, Visibility
from core.index import fields as f
from core.reranking import CrossEncoderReranker, EmbeddingReranker, Reranker
from core.retrieval import DEFAULT_VARIANT, VARIANTS, Retriever
from ingestion import Ingestor, discover

DEFAULT_DATASET = Path(__file__).resolve().parents[1].parent / "shared/datasets/syllabusqa-dev"
CACHE = Path(tempfile.gettempdir()) / "coursebot-bench"
COURSE = "bench-course"
NOISE = 0.01  # per dimension; the copies keep a cosine of about 0.98 with their original
KINDS = ("syllabus", "slides", "notes", "exercises", "slides", "notes")
WARMUP = 5

Timings = dict[str, list[float]]
# "embed" holds the answerer's embedder calls too, when it makes any.
STAGES = ("rewrite", "embed", "search", "rerank", "pack", "answer")
ANSWER_STAGES = ("rewrite", "pack", "answer")


class Stopwatch:
    """Collects the time spent in named stages of one query."""

    def __init__(self) -> None:
        self.current: dict[str, float] = defaultdict(float)

    def add(self, stage: str, started: float) -> None:
        self.current[stage] += (time.perf_counter() - started) * 1000


class TimedEmbedder:
    def __init__(self, inner: MiniLMOnnxEmbedder, watch: Stopwatch) -> None:
        self.inner, self.watch = inner, watch
        self.name, self.dimensions, self.max_tokens = inner.name, inner.dimensions, inner.max_tokens

    def count_tokens(self, text: str) -> int:
        return self.inner.count_tokens(text)

    async def embed(self, texts: Sequence[str]) -> np.ndarray:
        started = time.perf_counter()
        try:
            return await self.inner.embed(texts)
        finally:
            self.watch.add("embed", started)


class TimedIndex(ChunkIndex):
    def __init__(self, inner: ChunkIndex, watch: Stopwatch) -> None:
        super().__init__(
            inner.client,
            inner.collection,
            inner.dimensions,
            inner.payload_indexes,
            unit_vectors=inner.units,
        )
        self.watch = watch

    async def search(self, *args: Any, **kwargs: Any) -> list[SearchHit]:
        started = time.perf_counter()
        try:
            return await super().search(*args, **kwargs)
        finally:
            self.watch.add("search", started)


class TimedReranker:
    def __init__(self, inner: Reranker, watch: Stopwatch) -> None:
        self.inner, self.watch = inner, watch
        self.uses_vectors = inner.uses_vectors

    async def rerank(self, question: str, hits: list[SearchHit], k: int) -> list[SearchHit]:
        started = time.perf_counter()
        try:
            return await self.inner.rerank(question, hits, k)
        finally:
            self.watch.add("rerank", started)


# --- material -------------------------------------------------------------------------------


def save_units(path: Path, units: list[np.ndarray]) -> None:
    np.savez(path, vectors=np.concatenate(units), counts=[len(u) for u in units])


def load_units(path: Path) -> list[np.ndarray]:
    stored = np.load(path)
    return np.split(stored["vectors"], np.cumsum(stored["counts"])[:-1])


async def source_chunks(
    dataset: Path, embedder: MiniLMOnnxEmbedder
) -> tuple[list[str], np.ndarray, list[np.ndarray]]:
    """The dataset's chunks as the ingestion pipeline makes them, with their vectors and unit
    vectors (cached)."""
    files = sorted(p for p in (dataset / "courses").rglob("*") if p.is_file())
    key = hashlib.sha256(
        "\n".join(f"{p}:{p.stat().st_size}" for p in files).encode() + embedder.name.encode()
    ).hexdigest()[:16]
    texts_file, vectors_file = CACHE / f"source-{key}.json", CACHE / f"source-{key}.npy"
    units_file = CACHE / f"source-{key}-units.npz"
    if texts_file.exists() and vectors_file.exists() and units_file.exists():
        return json.loads(texts_file.read_text()), np.load(vectors_file), load_units(units_file)
    print(f"ingesting {len(files)} files once to get real chunks (cached in {CACHE})")
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING))
    index = ChunkIndex(
        AsyncQdrantClient(location=":memory:"), "source", embedder.dimensions, False, None, True
    )
    await index.ensure()
    ingestor = Ingestor(index=index, embedder=embedder, sparse=SparseEncoder(), max_bytes=50 << 20)
    for course in sorted(p for p in (dataset / "courses").iterdir() if p.is_dir()):
        await ingestor.ingest(discover([course])[0], course.name)
    texts, vectors, units = [], [], []
    offset: Any = None
    while True:
        points, offset = await index.client.scroll(
            index.collection,
            limit=512,
            offset=offset,
            with_payload=[f.TEXT],
            with_vectors=[f.DENSE, f.UNITS],
        )
        for point in points:
            texts.append((point.payload or {})[f.TEXT])
            vectors.append(point.vector[f.DENSE])  # type: ignore[index]
            units.append(np.asarray(point.vector[f.UNITS], dtype=np.float32))  # type: ignore[index]
        if offset is None:
            break
    await index.close()
    CACHE.mkdir(parents=True, exist_ok=True)
    texts_file.write_text(json.dumps(texts))
    np.save(vectors_file, np.asarray(vectors, dtype=np.float32))
    save_units(units_file, units)
    return texts, np.asarray(vectors, dtype=np.float32), units


def synthetic_chunks(count: int, rng: random.Random) -> list[str]:
    subjects = ["The final exam", "Homework", "The lab report", "Attendance", "The project"]
    verbs = ["counts for", "is due in", "is graded out of", "takes place in", "is worth"]
    objects = ["week 3", "20% of the grade", "100 points", "room 210", "the last lecture"]
    return [
        " ".join(
            f"{rng.choice(subjects)} {rng.choice(verbs)} {rng.choice(objects)}."
            for _ in range(rng.randint(3, 8))
        )
        for _ in range(count)
    ]


def vary(text: str, copy: int, rng: random.Random) -> str:
    """A copy of a chunk that reads like another section of the same course."""
    if copy == 0:
        return text
    sentences = [s for s in text.replace("\n", " ").split(". ") if s]
    rng.shuffle(sentences)
    return f"Part {copy}. " + ". ".join(sentences)


async def material(
    args: argparse.Namespace, embedder: MiniLMOnnxEmbedder, rng: random.Random
) -> tuple[list[str], np.ndarray, list[np.ndarray], list[str], str]:
    """The course's texts, vectors and unit vectors, the questions, and a line saying how
    they were made."""
    if (args.dataset / "courses").is_dir():
        base_texts, base_vectors, base_units = await source_chunks(args.dataset, embedder)
        questions = [
            json.loads(line)["question"]
            for line in (args.dataset / "questions.jsonl").read_text().splitlines()
            if line.strip()
        ]
        origin = f"{len(base_texts)} syllabusqa-dev chunks"
    else:
        base_texts = synthetic_chunks(1000, rng)
        base_vectors, base_units = await embedder.embed_with_units(base_texts)
        questions = [f"What {t.split('.')[0].lower()}?" for t in synthetic_chunks(500, rng)]
        origin = "1000 synthetic chunks (no dataset found)"
    rng.shuffle(questions)
    picks = [
        (copy, i)
        for copy in range(-(-args.chunks // len(base_texts)))
        for i in range(len(base_texts))
    ]
    picks = picks[: args.chunks]
    texts = [vary(base_texts[i], copy, rng) for copy, i in picks]
    if args.exact:
        vectors, units = await exact_vectors(texts, embedder)
        how = f"{origin} repeated with variations to {len(texts)}, every one embedded"
    else:
        noise = np.random.default_rng(0)
        copies = np.array([c > 0 for c, _ in picks])[:, None]
        vectors = base_vectors[[i for _, i in picks]] + copies * noise.normal(
            0, NOISE, (len(texts), embedder.dimensions)
        )
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        units = [
            base_units[i] + (copy > 0) * noise.normal(0, NOISE, base_units[i].shape)
            for copy, i in picks
        ]
        units = [u / np.linalg.norm(u, axis=1, keepdims=True) for u in units]
        how = (
            f"{origin} repeated with variations to {len(texts)}; copies' vectors (chunk and "
            f"unit) = original + Gaussian noise (sigma {NOISE}/dim), not re-embedded (--exact "
            "embeds them)"
        )
    return texts, vectors.astype(np.float32), units, questions[: args.queries + WARMUP], how


async def exact_vectors(
    texts: list[str], embedder: MiniLMOnnxEmbedder
) -> tuple[np.ndarray, list[np.ndarray]]:
    key = hashlib.sha256("\x00".join(texts).encode() + embedder.name.encode()).hexdigest()[:16]
    cached, cached_units = CACHE / f"exact-{key}.npy", CACHE / f"exact-{key}-units.npz"
    if cached.exists() and cached_units.exists():
        return np.load(cached), load_units(cached_units)
    print(f"embedding {len(texts)} chunks (cached in {cached})")
    vectors, units = await embedder.embed_with_units(texts)
    CACHE.mkdir(parents=True, exist_ok=True)
    np.save(cached, vectors)
    save_units(cached_units, units)
    return vectors, units


async def build_index(
    client: AsyncQdrantClient | EdgeQdrantClient,
    server: bool,
    payload_indexes: bool,
    texts: list[str],
    vectors: np.ndarray,
    units: list[np.ndarray],
) -> ChunkIndex:
    collection = f"coursebot-bench-{uuid.uuid4().hex[:8]}" if server else "bench"
    index = ChunkIndex(
        client, collection, vectors.shape[1], payload_indexes=payload_indexes, unit_vectors=True
    )
    await index.ensure()
    sparse = SparseEncoder()
    batch: list[models.PointStruct] = []
    for n, (text, vector, unit_vectors) in enumerate(zip(texts, vectors, units, strict=True)):
        terms = sparse.encode_document(text)
        document = n // 40
        batch.append(
            models.PointStruct(
                id=str(uuid.UUID(int=n + 1)),
                vector={
                    f.DENSE: vector.tolist(),
                    f.UNITS: unit_vectors.tolist(),
                    f.SPARSE: models.SparseVector(indices=terms.indices, values=terms.values),
                },
                payload={
                    f.COURSE_ID: COURSE,
                    f.DOCUMENT_ID: f"{COURSE}/doc-{document}",
                    f.FILE_NAME: f"doc-{document}.pdf",
                    f.TEXT: text,
                    f.PAGE: n % 40 + 1,
                    f.SECTION: "",
                    f.KIND: KINDS[document % len(KINDS)],
                    f.VISIBILITY: Visibility.PUBLIC.value,
                    f.OWNER_ID: None,
                    f.CHUNK_INDEX: n % 40,
                },
            )
        )
        if len(batch) == 500:
            await index.upsert(batch)
            batch = []
    await index.upsert(batch)
    return index


# --- timing ---------------------------------------------------------------------------------


async def time_variant(
    variant: str,
    index: ChunkIndex,
    embedder: MiniLMOnnxEmbedder,
    reranker: Reranker,
    questions: list[str],
    answer: bool = False,
) -> Timings:
    watch = Stopwatch()
    timed_embedder = TimedEmbedder(embedder, watch)
    retriever = Retriever(
        TimedIndex(index, watch),
        timed_embedder,
        SparseEncoder(),
        VARIANTS[variant],
        reranker=TimedReranker(reranker, watch),
    )
    ctx = Context(
        platform="bench", course_id=COURSE, user_id="student", roles=frozenset({Role.STUDENT})
    )
    rewriter, answerer = QuestionRewriter(), ExtractiveAnswerer()
    timings: Timings = defaultdict(list)
    for n, question in enumerate(questions):
        watch.current.clear()
        path_started = time.perf_counter()
        if answer:
            started = time.perf_counter()
            # One earlier turn, so a follow-up ("and the resit?") is rewritten as in a chat.
            previous = [Turn(question=questions[n - 1], answer="")] if n else []
            question = await rewriter.standalone(question, previous)
            watch.add("rewrite", started)
        started = time.perf_counter()
        # The answer path asks for the units' scores (the extractive answerer reads them).
        hits = await retriever.retrieve(ctx, question, k=5, unit_scores=answer)
        total = (time.perf_counter() - started) * 1000
        if answer:
            started = time.perf_counter()
            packed = pack(hits, DEFAULT_CONTEXT_CHARS)
            watch.add("pack", started)
            started = time.perf_counter()
            await answerer.answer(question, packed)
            watch.add("answer", started)
        path = (time.perf_counter() - path_started) * 1000
        if n < WARMUP:
            continue
        for stage in STAGES:
            timings[stage].append(watch.current.get(stage, 0.0))
        timings["total"].append(total)
        if answer:
            timings["path"].append(path)
    return timings


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * len(ordered)) - 1))]


def report(variant: str, timings: Timings) -> None:
    config = VARIANTS[variant]
    print(
        f"\nvariant {variant} (mode {config.mode}, candidates {config.candidates}, "
        f"rerank {config.rerank}): {len(timings['total'])} queries, k=5"
    )
    print(f"{'stage':<8}{'p50':>9}{'p95':>9}{'mean':>9}  (ms; total = retrieval)")
    for stage in (*STAGES, "total", "path"):
        values = timings[stage]
        if not values or (stage in ANSWER_STAGES and "path" not in timings):
            continue
        print(
            f"{stage:<8}{percentile(values, 0.5):9.1f}{percentile(values, 0.95):9.1f}"
            f"{statistics.fmean(values):9.1f}"
        )


def counterpart(variant: str) -> str:
    """The same fusion with reranking switched the other way, to show what reranking costs."""
    config = VARIANTS[variant]
    for name, other in VARIANTS.items():
        same_fusion = other.mode is config.mode and not other.reserve_general
        if same_fusion and other.rerank is not config.rerank:
            return name
    return variant


async def run(args: argparse.Namespace) -> None:
    rng = random.Random(0)
    embedder = MiniLMOnnxEmbedder()
    reranker: Reranker = (
        CrossEncoderReranker(args.reranker_model)
        if args.reranker_model
        else EmbeddingReranker(embedder)
    )
    texts, vectors, units, questions, how = await material(args, embedder, rng)
    variants = args.variant or [DEFAULT_VARIANT, counterpart(DEFAULT_VARIANT)]
    with tempfile.TemporaryDirectory(prefix="coursebot-bench-") as tmp:
        server = args.qdrant_url is not None
        client: AsyncQdrantClient | EdgeQdrantClient
        if server:
            client, where = AsyncQdrantClient(url=args.qdrant_url), f"server {args.qdrant_url}"
        elif args.engine == "edge":
            client, where = EdgeQdrantClient(Path(tmp)), "Edge on disk"
        else:
            client, where = AsyncQdrantClient(path=tmp), "local mode on disk"
        # Payload indexes as the composition root sets them: everywhere but local mode.
        indexed = server or args.engine == "edge"
        started = time.perf_counter()
        index = await build_index(client, server, indexed, texts, vectors, units)
        built = time.perf_counter() - started
        print(f"material: {how}")
        print(f"index: Qdrant {where}, {len(texts)} chunks in one course, built in {built:.1f}s")
        print(
            f"reranker: {type(reranker).__name__}; "
            f"questions: {len(questions) - WARMUP} (+{WARMUP} warm-up)"
        )
        try:
            for variant in dict.fromkeys(variants):
                timings = await time_variant(
                    variant, index, embedder, reranker, questions, answer=args.answer
                )
                report(variant, timings)
        finally:
            if isinstance(client, AsyncQdrantClient) and server:
                await client.delete_collection(index.collection)
            await index.close()


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--dataset", type=Path, default=DEFAULT_DATASET)
    parser.add_argument("--chunks", type=int, default=10_000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--exact", action="store_true", help="embed every chunk (slow; cached)")
    parser.add_argument("--variant", action="append", choices=sorted(VARIANTS))
    parser.add_argument("--reranker-model", type=Path, help="a cross-encoder folder")
    parser.add_argument(
        "--engine",
        choices=("edge", "local"),
        default="edge",
        help="embedded engine when no --qdrant-url: Qdrant Edge or qdrant-client's local mode",
    )
    parser.add_argument("--qdrant-url", help="time a Qdrant server instead of an embedded engine")
    parser.add_argument(
        "--answer",
        action="store_true",
        help="time the whole no-LLM answer path: rewrite, retrieve, pack, extractive answer",
    )
    asyncio.run(run(parser.parse_args()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
