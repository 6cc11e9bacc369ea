"""The pipeline keeps the embedder busy: the next file is read and chunked while the current one
is embedded, results still come in file order, and a file failing while read ahead fails
alone."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence
from pathlib import Path

import numpy as np
import pytest
from qdrant_client import AsyncQdrantClient
from support.embedders import HashEmbedder

import ingestion.pipeline as pipeline
from core.index import ChunkIndex, SparseEncoder
from ingestion import FileStatus, Ingestor, IngestProgress, SourceFile


class WatchedEmbedder(HashEmbedder):
    """Holds its first call until the next file has been chunked (or a timeout)."""

    def __init__(self, chunked: list[str], wait_for: str) -> None:
        super().__init__()
        self.chunked = chunked
        self.wait_for = wait_for
        self.seen_while_embedding: list[str] = []

    async def embed(self, texts: Sequence[str]) -> np.ndarray:
        if self.calls == 0:
            for _ in range(200):
                if self.wait_for in self.chunked:
                    break
                await asyncio.sleep(0.01)
            self.seen_while_embedding = list(self.chunked)
        return await super().embed(texts)


def notes(folder: Path, names: Sequence[str]) -> list[SourceFile]:
    for number, name in enumerate(names):
        (folder / name).write_text(f"# Week {number}\n\nTopic {number} of the course.\n")
    return [SourceFile.at(folder / name) for name in names]


@pytest.fixture
async def small_index() -> AsyncIterator[ChunkIndex]:
    client = AsyncQdrantClient(location=":memory:")
    index = ChunkIndex(client, "overlap", HashEmbedder.dimensions, payload_indexes=False)
    await index.ensure()
    yield index
    await index.close()


async def test_the_next_file_is_chunked_while_the_current_one_is_embedded(
    small_index: ChunkIndex, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    chunked: list[str] = []
    chunk_document = pipeline.chunk_document

    def watching(document, *args, **kwargs):
        chunked.append(document.file_name)
        return chunk_document(document, *args, **kwargs)

    monkeypatch.setattr(pipeline, "chunk_document", watching)
    embedder = WatchedEmbedder(chunked, wait_for="week2.md")
    ingestor = Ingestor(
        index=small_index, embedder=embedder, sparse=SparseEncoder(), max_bytes=1 << 20
    )
    seen: list[IngestProgress] = []
    report = await ingestor.ingest(
        notes(tmp_path, ["week1.md", "week2.md", "week3.md"]), "c", on_progress=seen.append
    )
    assert embedder.seen_while_embedding[:2] == ["week1.md", "week2.md"]
    assert [r.file_name for r in report.results] == ["week1.md", "week2.md", "week3.md"]
    assert all(r.status is FileStatus.ADDED for r in report.results)
    assert [p.files_done for p in seen] == sorted(p.files_done for p in seen)
    assert seen[-1].chunks == report.chunks == 3


async def test_a_file_failing_while_read_ahead_fails_alone(
    small_index: ChunkIndex, tmp_path: Path
) -> None:
    sources = notes(tmp_path, ["week1.md", "week3.md"])
    (tmp_path / "week2.md").write_bytes(b"")
    sources.insert(1, SourceFile.at(tmp_path / "week2.md"))
    ingestor = Ingestor(
        index=small_index, embedder=HashEmbedder(), sparse=SparseEncoder(), max_bytes=1 << 20
    )
    report = await ingestor.ingest(sources, "c")
    assert [r.status for r in report.results] == [
        FileStatus.ADDED,
        FileStatus.FAILED,
        FileStatus.ADDED,
    ]
    assert report.results[1].error == "the file is empty"


async def test_a_file_named_twice_in_one_run_is_written_once(
    small_index: ChunkIndex, tmp_path: Path
) -> None:
    [source] = notes(tmp_path, ["week1.md"])
    ingestor = Ingestor(
        index=small_index, embedder=HashEmbedder(), sparse=SparseEncoder(), max_bytes=1 << 20
    )
    report = await ingestor.ingest([source, source], "c")
    assert [r.status for r in report.results] == [FileStatus.ADDED, FileStatus.UNCHANGED]
