"""Alembic environment for coursebot's database.

`core.database.migrate` hands over an open synchronous connection (from an async
engine, through `run_sync`) in `config.attributes["connection"]`. Run from the alembic command
line instead, the URL comes from `sqlalchemy.url` and an async engine is opened here."""

from __future__ import annotations

import asyncio

from alembic import context
from sqlalchemy import Connection
from sqlalchemy.ext.asyncio import create_async_engine
from sqlalchemy.pool import NullPool

import core.bindings.models
import core.catalog.models
import core.courses.models
import core.feedback.models
import core.generation.models
import core.mistakes.models
import core.schedules.models  # noqa: F401  (importing a models module registers its tables)
from core.database.base import VERSION_TABLE, Base
from core.database.engine import async_database_url

config = context.config
target_metadata = Base.metadata


def _run_migrations(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        version_table=VERSION_TABLE,
        render_as_batch=connection.dialect.name == "sqlite",
        compare_type=True,
    )
    with context.begin_transaction():
        context.run_migrations()


def _run_offline() -> None:
    context.configure(
        url=config.get_main_option("sqlalchemy.url"),
        target_metadata=target_metadata,
        version_table=VERSION_TABLE,
        literal_binds=True,
        dialect_opts={"paramstyle": "named"},
    )
    with context.begin_transaction():
        context.run_migrations()


async def _run_with_own_engine() -> None:
    url = config.get_main_option("sqlalchemy.url")
    if not url:
        raise RuntimeError("set sqlalchemy.url, or call core.database.migrate()")
    engine = create_async_engine(async_database_url(url), poolclass=NullPool)
    try:
        async with engine.begin() as connection:
            await connection.run_sync(_run_migrations)
    finally:
        await engine.dispose()


if context.is_offline_mode():
    _run_offline()
elif (shared := config.attributes.get("connection")) is not None:
    _run_migrations(shared)
else:
    asyncio.run(_run_with_own_engine())
