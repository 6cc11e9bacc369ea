"""Unit vectors in the index, on both embedded engines: ingestion writes them where the
embedder makes them, the dense side of a search scores a chunk by its best unit, reindexing
keeps them, and a collection created before them is still searched by its chunk vectors."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import numpy as np
import pytest
from qdrant_client import AsyncQdrantClient, models

from core.context import Audience, Context
from core.embedding.minilm_onnx import MiniLMOnnxEmbedder
from core.index import ChunkIndex, EdgeQdrantClient, SearchMode, SparseEncoder
from core.index import fields as f
from core.retrieval import Retriever
from ingestion import FileStatus, Ingestor, SourceFile
from ingestion.reindex import reindex_course

COLLECTION = "chunks"
COURSE = "algebra"
# One file: a chunk of unrelated policies with one sentence holding the office hours.
POLICIES = (
    "# Course policies\n\n"
    "Academic honesty is expected in all work. Plagiarism is reported to the dean. "
    "Students with disabilities should contact the accessibility office. "
    "Office hours are on Tuesdays from 2 to 4 pm in room 210. "
    "The library offers workshops on citation styles every month.\n"
)
QUESTION = "When are the office hours?"


@pytest.fixture(params=["local", "edge"])
def engine(request: pytest.FixtureRequest) -> str:
    return request.param


def client_for(engine: str, root: Path) -> AsyncQdrantClient | EdgeQdrantClient:
    if engine == "edge":
        return EdgeQdrantClient(root / "edge")
    return AsyncQdrantClient(path=str(root / "local"))


async def opened(engine: str, root: Path, dimensions: int, unit_vectors: bool) -> ChunkIndex:
    index = ChunkIndex(
        client_for(engine, root), COLLECTION, dimensions, engine == "edge", None, unit_vectors
    )
    await index.ensure()
    return index


async def ingest(index: ChunkIndex, embedder, root: Path) -> None:
    folder = root / "files"
    folder.mkdir(exist_ok=True)
    (folder / "policies.md").write_text(POLICIES, encoding="utf-8")
    ingestor = Ingestor(index=index, embedder=embedder, sparse=SparseEncoder(), max_bytes=1 << 20)
    report = await ingestor.ingest([SourceFile.at(folder / "policies.md")], COURSE)
    assert [r.status for r in report.results] == [FileStatus.ADDED]


async def dense_score(index: ChunkIndex, embedder: MiniLMOnnxEmbedder) -> float:
    [query] = await embedder.embed([QUESTION])
    ctx = Context(platform="test", course_id=COURSE, user_id="ana", audience=Audience.PRIVATE)
    [hit] = await index.search(
        ctx, query.tolist(), SparseEncoder().encode_query(QUESTION), 5, mode=SearchMode.DENSE
    )
    return hit.score


@pytest.fixture
async def with_units(
    engine: str, tmp_path: Path, embedder: MiniLMOnnxEmbedder
) -> AsyncIterator[ChunkIndex]:
    """An index keeping unit vectors, with the policies ingested."""
    index = await opened(engine, tmp_path, embedder.dimensions, unit_vectors=True)
    await ingest(index, embedder, tmp_path)
    yield index
    await index.close()


async def stored(index: ChunkIndex) -> models.Record:
    [point], _ = await index.client.scroll(COLLECTION, limit=10, with_vectors=True)
    return point


async def test_a_chunk_is_scored_by_its_best_unit(
    with_units: ChunkIndex, embedder: MiniLMOnnxEmbedder
) -> None:
    index = with_units
    point = await stored(index)
    units = np.asarray(point.vector[f.UNITS])
    [pooled], [expected] = await embedder.embed_with_units([point.payload[f.EMBED_TEXT]])
    assert np.allclose(units, expected, atol=1e-5)
    [query] = await embedder.embed([QUESTION])
    score = await dense_score(index, embedder)
    assert score == pytest.approx(float((units @ query).max()), abs=1e-4)
    assert score > float(pooled @ query) + 0.1  # not the chunk vector's score


async def test_reindexing_writes_the_unit_vectors_again(
    with_units: ChunkIndex, embedder: MiniLMOnnxEmbedder
) -> None:
    index = with_units
    before = np.asarray((await stored(index)).vector[f.UNITS])
    await reindex_course(index, embedder, embedder.identity, COURSE)
    after = await stored(index)
    assert np.allclose(np.asarray(after.vector[f.UNITS]), before, atol=1e-5)
    assert after.vector[f.SPARSE].indices


async def test_a_collection_created_without_units_is_searched_by_chunk_vectors(
    engine: str, tmp_path: Path, embedder: MiniLMOnnxEmbedder
) -> None:
    old = await opened(engine, tmp_path, embedder.dimensions, unit_vectors=False)
    await ingest(old, embedder, tmp_path)
    await old.close()
    index = await opened(engine, tmp_path, embedder.dimensions, unit_vectors=True)
    assert not index.units
    point = await stored(index)
    assert f.UNITS not in point.vector
    [query] = await embedder.embed([QUESTION])
    score = await dense_score(index, embedder)
    assert score == pytest.approx(float(np.asarray(point.vector[f.DENSE]) @ query), abs=1e-4)
    await index.close()


async def test_retrieval_hands_the_answerer_each_hits_units_scored_within_the_askers_scope(
    with_units: ChunkIndex, embedder: MiniLMOnnxEmbedder
) -> None:
    index = with_units
    retriever = Retriever(index, embedder, SparseEncoder())
    ctx = Context(platform="test", course_id=COURSE, user_id="ana", audience=Audience.PRIVATE)
    [plain] = await retriever.retrieve(ctx, QUESTION, k=1)
    assert plain.unit_scores == ()  # only when asked: lessons and study sets do not read them
    [hit] = await retriever.retrieve(ctx, QUESTION, k=1, unit_scores=True)
    texts = [text for text, _ in hit.unit_scores]
    scores = [score for _, score in hit.unit_scores]
    assert texts[0].startswith("Office hours are on Tuesdays")
    assert (
        scores == sorted(scores, reverse=True) and len(texts) == 5
    )  # one a sentence, the header read with the first
    other = Context(platform="test", course_id="biology", user_id="ana")
    assert await index.unit_vectors(other, [hit.chunk.id]) == {}


async def test_a_reopened_collection_keeps_searching_by_units(
    engine: str, tmp_path: Path, embedder: MiniLMOnnxEmbedder
) -> None:
    first = await opened(engine, tmp_path, embedder.dimensions, unit_vectors=True)
    await ingest(first, embedder, tmp_path)
    score = await dense_score(first, embedder)
    await first.close()
    again = await opened(engine, tmp_path, embedder.dimensions, unit_vectors=True)
    assert again.units
    assert await dense_score(again, embedder) == pytest.approx(score, abs=1e-5)
    await again.close()
