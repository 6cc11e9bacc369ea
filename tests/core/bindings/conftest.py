"""Databases for the course-binding tests: every store test runs on SQLite and on PostgreSQL.

The same pattern as the mistake-log tests: PostgreSQL gets databases of this session's own
(`coursebot_bind_<random>_N`), created on the maintenance database and dropped at the end, so
parallel runs never meet. Unreachable PostgreSQL fails the PostgreSQL half loudly unless
COURSEBOT_TEST_SKIP_POSTGRES=1."""

from __future__ import annotations

import asyncio
import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import asyncpg
import pytest

from config import mask_url
from core.database import migrate

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
        self._prefix = f"coursebot_bind_{uuid.uuid4().hex[:10]}"
        self._created: list[str] = []

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
        base, _, _ = self._server_url.rpartition("/")
        return f"{base}/{name}"

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
def migrated_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A database of this test's own, migrated to the newest revision, as a plain URL."""
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path / 'bindings.db'}"
    else:
        databases: PostgresDatabases = request.getfixturevalue("postgres_databases")
        url = asyncio.run(databases.create())
    asyncio.run(migrate(url))
    return url
