"""PostgreSQL databases of a test session's own: created on the maintenance database and
dropped at the end, so parallel runs never meet. Unreachable PostgreSQL fails the PostgreSQL
half of a test loudly unless CBTEST_SKIP_POSTGRES=1."""

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

# CBTEST_*, not COURSEBOT_*: the settings refuse unknown COURSEBOT_ variables, and the
# suite's autouse fixture strips every COURSEBOT_* variable from each test.
POSTGRES_URL = os.environ.get(
    "CBTEST_POSTGRES_URL", "postgresql://postgres@127.0.0.1:5432/postgres"
)
SKIP_POSTGRES = os.environ.get("CBTEST_SKIP_POSTGRES") == "1"

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


def postgres_databases_for_session() -> Iterator[PostgresDatabases]:
    """The body of the session fixture `postgres_databases` (tests/conftest.py)."""
    databases = PostgresDatabases(POSTGRES_URL)
    problem = None
    try:
        asyncio.run(databases.check())
    except (OSError, asyncpg.PostgresError, TimeoutError) as exc:
        problem = f"{type(exc).__name__}: {exc}"
    if problem is not None:
        message = (
            f"PostgreSQL is not reachable at {mask_url(POSTGRES_URL)} ({problem}); start it "
            "(trust auth for user postgres), point CBTEST_POSTGRES_URL at another "
            "server, or set CBTEST_SKIP_POSTGRES=1 to skip the PostgreSQL half"
        )
        if SKIP_POSTGRES:
            pytest.skip(message)
        pytest.fail(message, pytrace=False)
    yield databases
    asyncio.run(databases.drop_all())


def migrated_database(request: pytest.FixtureRequest, folder: Path, name: str) -> str:
    """A database migrated to the newest revision, as a plain URL, on the backend the
    fixture's parameter names: an SQLite file `name`.db in `folder`, or a PostgreSQL database
    of the session's own."""
    if request.param == "sqlite":
        url = f"sqlite:///{folder / f'{name}.db'}"
    else:
        databases: PostgresDatabases = request.getfixturevalue("postgres_databases")
        url = asyncio.run(databases.create())
    asyncio.run(migrate(url))
    return url
