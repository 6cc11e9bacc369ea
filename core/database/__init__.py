"""coursebot's SQL database: SQLite by default, PostgreSQL when configured. One engine is
shared by the mistake log and the course bindings; Alembic keeps the schema current."""

from core.database.engine import (
    async_database_url,
    create_engine,
    create_session_factory,
    database_url_for,
    job_store_url,
    migrate,
    open_database,
)

__all__ = [
    "async_database_url",
    "create_engine",
    "create_session_factory",
    "database_url_for",
    "job_store_url",
    "migrate",
    "open_database",
]
