"""Databases for the course-binding tests: every store test runs on SQLite and on PostgreSQL
(a database of its own, see support/databases.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.databases import BACKENDS, migrated_database


@pytest.fixture(params=BACKENDS)
def migrated_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A database of this test's own, migrated to the newest revision, as a plain URL."""
    return migrated_database(request, tmp_path, "bindings")
