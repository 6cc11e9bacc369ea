"""Start-up checks: every configured service is tried once, quickly, before the core is built,
so a wrong setting stops the program with one line naming the service, the setting and the
cause instead of a traceback (or a bot that starts and then fails every message).

Heavy client libraries are imported inside the checks: `coursebot --help` never loads them."""

from __future__ import annotations

import asyncio
import socket
import tempfile
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

if TYPE_CHECKING:
    from bot.composition import Assembly
    from config import Settings
    from core.course_bot import CourseBot
    from core.metrics import Metrics

# Long enough for a server across a data centre, short enough that nobody waits for a typo.
CHECK_TIMEOUT_S = 3.0


class StartupError(Exception):
    """A configured service cannot be used; the message is one line for the operator."""

    def __init__(self, service: str, setting: str, cause: str, *, action: str = "reach") -> None:
        self.service = service
        self.setting = setting
        self.cause = cause
        self.action = action
        super().__init__(f"cannot {action} {service} ({setting}): {cause}")


@asynccontextmanager
async def open_checked_core(settings: Settings) -> AsyncIterator[CourseBot]:
    """`open_core`, after `check_services` found every configured service usable."""
    await check_services(settings)
    from bot.composition import open_core

    async with open_core(settings) as core:
        yield core


@asynccontextmanager
async def open_checked_assembly(
    settings: Settings, metrics: Metrics | None = None
) -> AsyncIterator[Assembly]:
    """`open_assembly` (the core and what runs under it), after `check_services`."""
    await check_services(settings)
    from bot.composition import open_assembly

    async with open_assembly(settings, metrics=metrics) as assembly:
        yield assembly


async def check_services(settings: Settings) -> None:
    """Raise a StartupError for the first configured service that cannot be used."""
    from config import redact_text

    if settings.qdrant_url is None or settings.database_url is None:
        check_data_dir(settings.data_dir)
    checks: list[Callable[[], Awaitable[None]]] = []
    if settings.redis_url is not None:
        checks.append(lambda: check_redis(str(settings.redis_url)))
    if settings.database_url is not None:
        checks.append(lambda: check_postgres(str(settings.database_url)))
    if settings.qdrant_url is not None:
        key = settings.qdrant_api_key.get_secret_value() if settings.qdrant_api_key else None
        checks.append(lambda: check_qdrant(str(settings.qdrant_url), key))
    if settings.ollama_host is not None:
        checks.append(lambda: check_ollama(str(settings.ollama_host)))
    outcomes = await asyncio.gather(*(check() for check in checks), return_exceptions=True)
    for outcome in outcomes:  # in the order above, so the report does not depend on timing
        if isinstance(outcome, StartupError):
            raise StartupError(
                outcome.service,
                outcome.setting,
                redact_text(outcome.cause, settings.secret_values()),
                action=outcome.action,
            )
        if isinstance(outcome, BaseException):
            raise outcome


def check_data_dir(data_dir: Path) -> None:
    """The data dir exists (created if need be) and a file can be written in it."""
    path = data_dir.expanduser().absolute()
    try:
        path.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=path):
            pass
    except OSError as error:
        raise StartupError(
            "the data directory",
            "COURSEBOT_DATA_DIR",
            _path_problem(path, error),
            action="write to",
        ) from None


def _path_problem(path: Path, error: OSError) -> str:
    blocker = next((p for p in (path, *path.parents) if p.exists() and not p.is_dir()), None)
    if blocker is not None:
        return f"{blocker} is a file, not a folder"
    reason = (error.strerror or type(error).__name__).lower()
    return f"{path}: {reason}"


def _where(url: str, default_port: int) -> str:
    parts = urlsplit(url)
    try:
        port = parts.port or default_port
    except ValueError:
        port = default_port
    return f"{parts.hostname or 'localhost'}:{port}"


def _network_problem(error: BaseException, where: str) -> str | None:
    """A connection failure in words, or None when `error` is not one."""
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, ConnectionRefusedError):
            return f"connection refused at {where}"
        if isinstance(current, socket.gaierror):
            return f"unknown host {where.rpartition(':')[0]}"
        if isinstance(current, TimeoutError):
            return f"no answer from {where} within {CHECK_TIMEOUT_S:g} s"
        if isinstance(current, OSError) and current.strerror:
            return f"{current.strerror.lower()} at {where}"
        current = current.__cause__ or current.__context__
    return None


async def check_redis(url: str) -> None:
    from redis.asyncio import Redis
    from redis.exceptions import AuthenticationError, RedisError, ResponseError
    from redis.exceptions import TimeoutError as RedisTimeout

    where = _where(url, 6379)
    client = Redis.from_url(
        url,
        socket_connect_timeout=CHECK_TIMEOUT_S,
        socket_timeout=CHECK_TIMEOUT_S,
        retry=None,
    )
    try:
        await client.ping()
    except AuthenticationError:
        raise StartupError(
            "Redis", "COURSEBOT_REDIS_URL", f"{where} refused the credentials"
        ) from None
    except RedisTimeout:
        raise StartupError(
            "Redis", "COURSEBOT_REDIS_URL", f"no answer from {where} within {CHECK_TIMEOUT_S:g} s"
        ) from None
    except ResponseError as error:  # the server is there and said no (a wrong db index)
        raise StartupError("Redis", "COURSEBOT_REDIS_URL", str(error), action="use") from None
    except (RedisError, OSError) as error:
        cause = _network_problem(error, where) or f"{where}: {error}"
        raise StartupError("Redis", "COURSEBOT_REDIS_URL", cause) from None
    finally:
        await client.aclose()


async def check_postgres(url: str) -> None:
    import asyncpg
    from sqlalchemy.exc import SQLAlchemyError
    from sqlalchemy.ext.asyncio import create_async_engine
    from sqlalchemy.pool import NullPool

    from core.database import async_database_url

    where = _where(url, 5432)
    engine = create_async_engine(
        async_database_url(url), poolclass=NullPool, connect_args={"timeout": CHECK_TIMEOUT_S}
    )
    try:
        async with asyncio.timeout(CHECK_TIMEOUT_S + 1), engine.connect():
            pass
    except (SQLAlchemyError, asyncpg.PostgresError, OSError, TimeoutError) as error:
        answer = _postgres_problem(error)
        if answer is not None:  # the server is there and said no
            raise StartupError(
                "PostgreSQL", "COURSEBOT_DATABASE_URL", answer, action="use"
            ) from None
        cause = _network_problem(error, where) or f"{where}: {error}"
        raise StartupError("PostgreSQL", "COURSEBOT_DATABASE_URL", cause) from None
    finally:
        await engine.dispose()


def _postgres_problem(error: BaseException) -> str | None:
    """The server's own words (`database "x" does not exist`), when it answered."""
    import asyncpg

    current: BaseException | None = error
    while current is not None:
        if isinstance(current, asyncpg.PostgresError):
            return str(current).splitlines()[0] if str(current) else type(current).__name__
        current = current.__cause__ or current.__context__
    return None


async def check_qdrant(url: str, api_key: str | None) -> None:
    headers = {"api-key": api_key} if api_key else {}
    await _check_http("Qdrant", "COURSEBOT_QDRANT_URL", url, headers, "COURSEBOT_QDRANT_API_KEY")


async def check_ollama(url: str) -> None:
    await _check_http("Ollama", "COURSEBOT_OLLAMA_HOST", url, {}, "COURSEBOT_OLLAMA_HOST")


async def _check_http(
    service: str, setting: str, url: str, headers: dict[str, str], key_setting: str
) -> None:
    import httpx

    where = _where(url, 443 if urlsplit(url).scheme == "https" else 80)
    try:
        async with httpx.AsyncClient(timeout=CHECK_TIMEOUT_S, headers=headers) as client:
            response = await client.get(url)
    except httpx.TimeoutException:
        raise StartupError(
            service, setting, f"no answer from {where} within {CHECK_TIMEOUT_S:g} s"
        ) from None
    except (httpx.HTTPError, OSError) as error:
        cause = _network_problem(error, where) or f"{where}: {error}"
        raise StartupError(service, setting, cause) from None
    if response.status_code in (401, 403):
        refused = f"{where} refused the request (HTTP {response.status_code})"
        raise StartupError(service, key_setting, refused)
