"""Databases for the course-registry tests: every test runs on SQLite and on PostgreSQL (a
database of its own, see support/databases.py)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from support.databases import BACKENDS, PostgresDatabases

from core.database import migrate


@pytest.fixture(params=BACKENDS)
def migrated_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A database of this test's own, migrated to the newest revision, as a plain URL."""
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path / 'courses.db'}"
    else:
        databases: PostgresDatabases = request.getfixturevalue("postgres_databases")
        url = asyncio.run(databases.create())
    asyncio.run(migrate(url))
    return url
