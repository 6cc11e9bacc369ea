"""The catalog follows the index: ingesting a document stores its course tables, a changed
file replaces its rows, forgetting it removes them, and private notes stay out."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from qdrant_client import AsyncQdrantClient
from support.catalog import COURSE, CURRICULUM_K20, SYLLABUS_DAT301M, sqlite_catalog
from support.embedders import HashEmbedder

from core.catalog import CatalogStore
from core.index import ChunkIndex, SparseEncoder
from ingestion import FileStatus, Ingestor, SourceFile


@pytest.fixture
async def catalog(tmp_path: Path) -> AsyncIterator[CatalogStore]:
    async with sqlite_catalog(tmp_path) as store:
        yield store


@pytest.fixture
async def ingestor(catalog: CatalogStore) -> AsyncIterator[Ingestor]:
    embedder = HashEmbedder()
    index = ChunkIndex(AsyncQdrantClient(location=":memory:"), "c", embedder.dimensions, False)
    await index.ensure()
    yield Ingestor(
        index=index, embedder=embedder, sparse=SparseEncoder(), max_bytes=1 << 20, catalog=catalog
    )
    await index.close()


def write(path: Path, text: str) -> SourceFile:
    path.write_text(text, encoding="utf-8")
    return SourceFile.at(path)


async def semesters(catalog: CatalogStore) -> dict[tuple[str, str], int | None]:
    return {(f.file_name, f.code): f.semester for f in await catalog.facts(COURSE)}


async def test_ingested_tables_are_in_the_catalog_with_their_source(
    ingestor: Ingestor, catalog: CatalogStore, tmp_path: Path
) -> None:
    report = await ingestor.ingest(
        [
            write(tmp_path / "Curriculum_k20_k21.md", CURRICULUM_K20),
            write(tmp_path / "DAT301m.MD", SYLLABUS_DAT301M),
            write(tmp_path / "notes.md", "# Notes\n\nNo tables here."),
        ],
        COURSE,
    )

    assert [r.status for r in report.results] == [FileStatus.ADDED] * 3
    facts = await catalog.facts(COURSE)
    assert {f.file_name for f in facts} == {"Curriculum_k20_k21.md", "DAT301m.MD"}
    assert len([f for f in facts if f.code == "DAT301m"]) == 2


async def test_a_changed_file_replaces_its_rows_and_forget_removes_them(
    ingestor: Ingestor, catalog: CatalogStore, tmp_path: Path
) -> None:
    plan = tmp_path / "Curriculum_k20_k21.md"
    await ingestor.ingest([write(plan, CURRICULUM_K20)], COURSE)
    assert (await semesters(catalog))[("Curriculum_k20_k21.md", "DAT301m")] == 7

    changed = CURRICULUM_K20.replace("| DAT301m | AI Development with TensorFlow", "| DAT302m | AI")
    changed = changed.replace("| MLN111 |", "| MLN112 |")
    report = await ingestor.ingest([write(plan, changed)], COURSE)

    assert report.results[0].status is FileStatus.REPLACED
    codes = {code for _, code in await semesters(catalog)}
    assert "DAT302m" in codes and "MLN112" in codes
    assert "DAT301m" not in codes and "MLN111" not in codes
    assert len(codes) == 14

    assert await ingestor.forget(COURSE, "Curriculum_k20_k21.md")
    assert await catalog.facts(COURSE) == []


async def test_an_unchanged_file_keeps_its_rows(
    ingestor: Ingestor, catalog: CatalogStore, tmp_path: Path
) -> None:
    source = write(tmp_path / "DAT301m.MD", SYLLABUS_DAT301M)
    await ingestor.ingest([source], COURSE)

    report = await ingestor.ingest([source], COURSE)

    assert report.results[0].status is FileStatus.UNCHANGED
    assert [f.code for f in await catalog.facts(COURSE)] == ["DAT301m"]


async def test_private_notes_never_feed_the_course_catalog(
    ingestor: Ingestor, catalog: CatalogStore, tmp_path: Path
) -> None:
    source = write(tmp_path / "my-plan.md", CURRICULUM_K20)

    report = await ingestor.ingest([source], COURSE, owner_id="console:alice")

    assert report.results[0].status is FileStatus.ADDED
    assert await catalog.facts(COURSE) == []
