"""Databases for the mistake-log tests: every test runs on SQLite and on PostgreSQL.

PostgreSQL gets databases of this session's own (`coursebot_test_<random>...`), created on the
maintenance database and dropped at the end, so parallel runs never meet. Unreachable
PostgreSQL fails the PostgreSQL half loudly unless CBTEST_SKIP_POSTGRES=1."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from sqlalchemy import delete
from support.databases import BACKENDS, PostgresDatabases, migrated_database

from core.database import create_engine
from core.mistakes import MistakeLog
from core.mistakes.models import Mistake


@pytest.fixture(params=BACKENDS)
def empty_database_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A database with no tables yet, as a plain URL (`sqlite://`, `postgresql://`)."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'mistakes.db'}"
    databases: PostgresDatabases = request.getfixturevalue("postgres_databases")
    return asyncio.run(databases.emptied())


@pytest.fixture(scope="session", params=BACKENDS)
def migrated_url(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> str:
    """A migrated database per backend, shared by the session's tests."""
    return migrated_database(request, tmp_path_factory.mktemp("mistakes"), "mistakes")


@pytest.fixture
async def mistake_log(migrated_url: str) -> AsyncIterator[MistakeLog]:
    """A log over the shared migrated database, emptied first."""
    engine = create_engine(migrated_url)
    async with engine.begin() as connection:
        await connection.execute(delete(Mistake))
    yield MistakeLog(engine)
    await engine.dispose()
