"""Catalog fixtures: the small catalog of `support.catalog`, and catalog stores on SQLite
and PostgreSQL (a database of this session's own, as the mistake-log tests do)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from support.catalog import COURSE, DOCUMENTS, facts_of, sqlite_catalog
from support.databases import BACKENDS, PostgresDatabases

from core.catalog import Catalog, CatalogDesk, CatalogStore, CourseFact
from core.database import create_engine, migrate


@pytest.fixture
def all_facts(tmp_path: Path) -> list[CourseFact]:
    return [f for name, text in DOCUMENTS.items() for f in facts_of(tmp_path, name, text)]


@pytest.fixture
def catalog(all_facts: list[CourseFact]) -> Catalog:
    return Catalog(all_facts)


@pytest.fixture(params=BACKENDS)
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """An empty database per backend (sync: the PostgreSQL fixture runs its own loop)."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'catalog.db'}"
    databases: PostgresDatabases = request.getfixturevalue("postgres_databases")
    return asyncio.run(databases.emptied())


@pytest.fixture
async def store(database_url: str) -> AsyncIterator[CatalogStore]:
    await migrate(database_url)
    engine = create_engine(database_url)
    yield CatalogStore(engine)
    await engine.dispose()


@pytest.fixture
async def sqlite_store(tmp_path: Path) -> AsyncIterator[CatalogStore]:
    async with sqlite_catalog(tmp_path) as store:
        yield store


@pytest.fixture
async def desk(sqlite_store: CatalogStore, all_facts: list[CourseFact]) -> CatalogDesk:
    for document_id in dict.fromkeys(f.document_id for f in all_facts):
        rows = [f for f in all_facts if f.document_id == document_id]
        await sqlite_store.replace_document(COURSE, document_id, rows)
    return CatalogDesk(sqlite_store)
