"""Where the database lives and how its schema is brought up to date.

SQLite under the data dir by default (aiosqlite), PostgreSQL when COURSEBOT_DATABASE_URL is
set (asyncpg). Nothing here holds a module-level engine: callers create one and dispose it."""

from __future__ import annotations

import asyncio
import weakref
from pathlib import Path

from alembic import command
from alembic.config import Config
from sqlalchemy import Connection, event, text
from sqlalchemy.engine import URL, ExceptionContext, make_url
from sqlalchemy.ext.asyncio import (
    AsyncEngine,
    AsyncSession,
    async_sessionmaker,
    create_async_engine,
)
from sqlalchemy.pool import NullPool

from config import Settings, SettingsError

SQLITE_FILE_NAME = "coursebot.db"
MIGRATIONS_DIR = Path(__file__).resolve().parent / "migrations"

# Held for the length of the migration transaction so replicas starting together take turns.
_MIGRATION_LOCK_ID = 0x636F_7572_7365  # "course"

# Alembic keeps the running migration's context in module globals, so one process runs one
# migration at a time (per event loop; the PostgreSQL lock covers other processes).
_alembic_turns: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Lock] = (
    weakref.WeakKeyDictionary()
)

_POSTGRES_SCHEMES = {"postgres", "postgresql", "postgresql+asyncpg"}
_SQLITE_SCHEMES = {"sqlite", "sqlite+aiosqlite"}


def database_url_for(settings: Settings) -> str:
    """The async SQLAlchemy URL for these settings, creating the data dir for SQLite."""
    if settings.database_url is None:
        data_dir = settings.data_dir.expanduser().resolve()
        data_dir.mkdir(parents=True, exist_ok=True)
        return f"sqlite+aiosqlite:///{data_dir / SQLITE_FILE_NAME}"
    try:
        return async_database_url(str(settings.database_url))
    except ValueError as exc:
        raise SettingsError(f"bad setting COURSEBOT_DATABASE_URL: {exc}") from None


def async_database_url(database_url: str) -> str:
    """`database_url` with the async driver: `postgresql://` becomes `postgresql+asyncpg://`
    (libpq's `sslmode` becomes asyncpg's `ssl`), `sqlite://` becomes `sqlite+aiosqlite://`."""
    url = _parse(database_url)
    if url.drivername in _POSTGRES_SCHEMES:
        url = url.set(drivername="postgresql+asyncpg")
        if "sslmode" in url.query and "ssl" not in url.query:
            url = url.update_query_dict({"ssl": url.query["sslmode"]})
        url = url.difference_update_query(["sslmode"])
    elif url.drivername in _SQLITE_SCHEMES:
        url = url.set(drivername="sqlite+aiosqlite")
    else:
        # Only the scheme is named: the rest of the URL may hold a password.
        raise ValueError(
            f"unsupported database driver {url.drivername!r}; "
            "use postgresql:// (asyncpg) or leave it unset for SQLite"
        )
    return url.render_as_string(hide_password=False)


def job_store_url(database_url: str) -> str:
    """Where APScheduler's job stores live, with a blocking driver (its SQLAlchemy store is
    synchronous): psycopg for PostgreSQL; for SQLite, a file of their own beside the
    database. The store is queried on the event loop, so sharing the bot's SQLite file let a
    job-store write wait out its busy timeout behind an aiosqlite transaction that needed
    that same loop to commit (the run was then kept as missed)."""
    url = _parse(async_database_url(database_url))
    if url.drivername.startswith("postgresql"):
        url = url.set(drivername="postgresql+psycopg")
        if "ssl" in url.query:
            url = url.update_query_dict({"sslmode": url.query["ssl"]}).difference_update_query(
                ["ssl"]
            )
    else:
        url = url.set(drivername="sqlite")
        if url.database not in (None, "", ":memory:"):
            url = url.set(database=f"{url.database}.jobs")
    return url.render_as_string(hide_password=False)


DEFAULT_TIMEOUT_S = 5.0


def create_engine(database_url: str, timeout_s: float = DEFAULT_TIMEOUT_S) -> AsyncEngine:
    """An async engine for `database_url` (plain `postgresql://` is accepted).

    Every wait is bounded so that a stalled database fails a request within `timeout_s`:
    half of it for a pooled connection or a new one, half for a statement. No pre-ping: a
    connection that died meanwhile fails one request, which the user sends again, instead
    of making every checkout wait out a ping."""
    url = async_database_url(database_url)
    half = timeout_s / 2
    if url.startswith("postgresql"):
        engine = create_async_engine(
            url,
            pool_timeout=half,
            connect_args={"timeout": half, "command_timeout": half},
        )
        event.listen(engine.sync_engine, "handle_error", _drop_timed_out_connections)
        return engine
    # SQLite: how long a writer waits for another's lock.
    return create_async_engine(url, connect_args={"timeout": timeout_s})


def _drop_timed_out_connections(context: ExceptionContext) -> None:
    """A statement that timed out leaves its connection mid-protocol: throw the connection
    away instead of rolling it back, which would wait a second timeout."""
    if isinstance(context.original_exception, TimeoutError):
        context.is_disconnect = True


async def open_database(settings: Settings, *, migrate_schema: bool = True) -> AsyncEngine:
    """The configured database, its schema brought up to date; the caller disposes it."""
    url = database_url_for(settings)
    if migrate_schema:
        await migrate(url)
    return create_engine(url, settings.service_timeout_s)


def create_session_factory(engine: AsyncEngine) -> async_sessionmaker[AsyncSession]:
    return async_sessionmaker(engine, expire_on_commit=False)


def alembic_config() -> Config:
    """Alembic's configuration, built in code: no alembic.ini is needed or read."""
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    return config


async def migrate(database_url: str) -> None:
    """Upgrade the database's schema to the newest revision; does nothing when it is current.

    Runs Alembic inside one transaction of an async connection (`run_sync`); on PostgreSQL an
    advisory lock serialises replicas that start at the same time."""
    turn = _alembic_turns.setdefault(asyncio.get_running_loop(), asyncio.Lock())
    engine = create_async_engine(async_database_url(database_url), poolclass=NullPool)
    try:
        async with turn, engine.begin() as connection:
            if connection.dialect.name == "postgresql":
                await connection.execute(
                    text("SELECT pg_advisory_xact_lock(:lock_id)"), {"lock_id": _MIGRATION_LOCK_ID}
                )
            await connection.run_sync(_upgrade_to_head)
    finally:
        await engine.dispose()


def _upgrade_to_head(connection: Connection) -> None:
    config = alembic_config()
    config.attributes["connection"] = connection
    command.upgrade(config, "head")


def _parse(database_url: str) -> URL:
    try:
        return make_url(database_url)
    except Exception:
        raise ValueError("not a database URL") from None
