"""Databases for the mistake-log tests: every test runs on SQLite and on PostgreSQL.

PostgreSQL gets databases of this session's own (`coursebot_test_<random>...`), created on the
maintenance database and dropped at the end, so parallel runs never meet. Unreachable
PostgreSQL fails the PostgreSQL half loudly unless COURSEBOT_TEST_SKIP_POSTGRES=1."""

from __future__ import annotations

import asyncio
import os
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import asyncpg
import pytest
from sqlalchemy import delete

from config import mask_url
from core.database import create_engine, migrate
from core.mistakes import MistakeLog
from core.mistakes.models import Mistake

# Read at import: the suite's autouse fixture strips COURSEBOT_* variables from each test.
POSTGRES_URL = os.environ.get(
    "COURSEBOT_TEST_POSTGRES_URL", "postgresql://postgres@127.0.0.1:5432/postgres"
)
SKIP_POSTGRES = os.environ.get("COURSEBOT_TEST_SKIP_POSTGRES") == "1"

BACKENDS = ["sqlite", "postgresql"]


class PostgresDatabases:
    """Creates fresh databases named after this session and drops them all at the end."""

    def __init__(self, server_url: str) -> None:
        self._server_url = server_url
        self._prefix = f"coursebot_test_{uuid.uuid4().hex[:10]}"
        self._created: list[str] = []
        self._scratch: str | None = None

    def _url(self, database: str) -> str:
        base, _, _ = self._server_url.rpartition("/")
        return f"{base}/{database}"

    async def check(self) -> None:
        connection = await asyncpg.connect(self._server_url, timeout=5)
        await connection.close()

    async def create(self) -> str:
        name = f"{self._prefix}_{len(self._created)}"
        connection = await asyncpg.connect(self._server_url, timeout=5)
        try:
            await connection.execute(f'CREATE DATABASE "{name}"')
        finally:
            await connection.close()
        self._created.append(name)
        return self._url(name)

    async def emptied(self) -> str:
        """The session's scratch database with nothing in it (dropping a database is slow)."""
        if self._scratch is None:
            self._scratch = await self.create()
        connection = await asyncpg.connect(self._scratch, timeout=5)
        try:
            await connection.execute("DROP SCHEMA public CASCADE; CREATE SCHEMA public")
        finally:
            await connection.close()
        return self._scratch

    async def drop_all(self) -> None:
        connection = await asyncpg.connect(self._server_url, timeout=5)
        try:
            for name in self._created:
                await connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        finally:
            await connection.close()


@pytest.fixture(scope="session")
def postgres_databases() -> Iterator[PostgresDatabases]:
    databases = PostgresDatabases(POSTGRES_URL)
    problem = None
    try:
        asyncio.run(databases.check())
    except (OSError, asyncpg.PostgresError, TimeoutError) as exc:
        problem = f"{type(exc).__name__}: {exc}"
    if problem is not None:
        message = (
            f"PostgreSQL is not reachable at {mask_url(POSTGRES_URL)} ({problem}); start it "
            "(trust auth for user postgres), point COURSEBOT_TEST_POSTGRES_URL at another "
            "server, or set COURSEBOT_TEST_SKIP_POSTGRES=1 to skip the PostgreSQL half"
        )
        if SKIP_POSTGRES:
            pytest.skip(message)
        pytest.fail(message, pytrace=False)
    yield databases
    asyncio.run(databases.drop_all())


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
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path_factory.mktemp('mistakes') / 'mistakes.db'}"
    else:
        databases: PostgresDatabases = request.getfixturevalue("postgres_databases")
        url = asyncio.run(databases.create())
    asyncio.run(migrate(url))
    return url


@pytest.fixture
async def mistake_log(migrated_url: str) -> AsyncIterator[MistakeLog]:
    """A log over the shared migrated database, emptied first."""
    engine = create_engine(migrated_url)
    async with engine.begin() as connection:
        await connection.execute(delete(Mistake))
    yield MistakeLog(engine)
    await engine.dispose()
