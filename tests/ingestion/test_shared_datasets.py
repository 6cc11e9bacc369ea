"""Every course of the shared evaluation datasets goes through the whole pipeline (loaders,
chunking, Qdrant local mode) without a failed file. The vectors come from a fast stand-in:
what can break here is reading and chunking real files; bench/ingest.py times the real model."""

from __future__ import annotations

from pathlib import Path

import pytest
from qdrant_client import AsyncQdrantClient
from support.embedders import HashEmbedder
from support.paths import SHARED_DATASETS

from core.index import ChunkIndex, SparseEncoder
from ingestion import FileStatus, Ingestor, discover


def course_folders(dataset: str) -> list[Path]:
    root = SHARED_DATASETS / dataset / "courses"
    return sorted(p for p in root.iterdir() if p.is_dir()) if root.is_dir() else []


@pytest.mark.parametrize("dataset", ["syllabusqa-dev", "fpt-bit-ai"])
async def test_every_shared_course_ingests_without_error(dataset: str) -> None:
    folders = course_folders(dataset)
    if not folders:
        pytest.skip(f"{dataset} is not present next to the project")
    embedder = HashEmbedder()
    index = ChunkIndex(AsyncQdrantClient(location=":memory:"), "shared", embedder.dimensions, False)
    await index.ensure()
    ingestor = Ingestor(index=index, embedder=embedder, sparse=SparseEncoder(), max_bytes=50 << 20)
    try:
        for folder in folders:
            sources, problems = discover([folder])
            report = await ingestor.ingest(sources, folder.name)
            assert problems == []
            failures = [
                (r.file_name, r.error) for r in report.results if r.status is FileStatus.FAILED
            ]
            assert failures == [], folder.name
            assert report.chunks > 0
    finally:
        await index.close()
