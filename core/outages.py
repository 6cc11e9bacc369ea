"""Services that are down: which one an error comes from, the reply a user gets meanwhile,
and one log line per outage (when it starts and when it ends), not one per message."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

import structlog
from redis import exceptions as redis_errors
from sqlalchemy import exc as sql_errors

log = structlog.get_logger(__name__)

REDIS = "the session store (Redis)"
DATABASE = "the database"
UNAVAILABLE = (
    "I can't reach {service} right now, so I can't do that. Nothing was lost: please send "
    "your message again in a minute."
)
# A file's result when the service went away while it was being stored: nothing of it was
# kept (its facts go in before its chunks, both or neither).
FILE_UNAVAILABLE = "I couldn't reach {service} to store it; please send it again in a minute"
BUSY = "I'm very busy right now. Please send your message again in a few seconds."


def service_of(error: BaseException) -> str | None:
    """The service an error says is unreachable or stalled, or None for any other error."""
    if isinstance(error, redis_errors.ConnectionError | redis_errors.TimeoutError):
        return REDIS
    if isinstance(error, redis_errors.BusyLoadingError):
        return REDIS
    if isinstance(error, sql_errors.OperationalError | sql_errors.InterfaceError):
        return DATABASE
    if isinstance(error, sql_errors.TimeoutError | sql_errors.DBAPIError):
        return DATABASE if _is_connection_trouble(error) else None
    if isinstance(error, ConnectionError | TimeoutError):  # raised by a driver's own socket
        return _driver_service(error)
    return None


def is_busy(error: BaseException) -> bool:
    """A full connection pool: the service is up, this process is saturated."""
    if isinstance(error, redis_errors.ConnectionError):
        return "No connection available" in str(error)
    return isinstance(error, sql_errors.TimeoutError)  # QueuePool limit reached


def _is_connection_trouble(error: sql_errors.TimeoutError | sql_errors.DBAPIError) -> bool:
    if isinstance(error, sql_errors.TimeoutError) or error.connection_invalidated:
        return True
    # The driver's own error, wrapped: a connection closed mid-operation, refused, reset.
    cause: BaseException | None = error.orig if isinstance(error.orig, BaseException) else None
    cause = cause or error.__cause__
    for _ in range(10):  # a short chain; never follow a cycle
        if cause is None:
            break
        name = type(cause).__name__
        if isinstance(cause, ConnectionError | TimeoutError | OSError) or "Connection" in name:
            return True
        cause = cause.__cause__ or cause.__context__
    return False


def _driver_service(error: BaseException) -> str | None:
    module = type(error).__module__
    if module.startswith(("asyncpg", "aiosqlite", "sqlalchemy")):
        return DATABASE
    if module.startswith("redis"):
        return REDIS
    # asyncpg raises the builtin TimeoutError / OSError on a stalled or refused connection.
    frames = _modules(error)
    if isinstance(error.__cause__, asyncio.CancelledError):
        # A deadline (asyncio.timeout) ran out: the service is the one whose call it cut.
        frames += _modules(error.__cause__)
    if any(name.startswith(("asyncpg", "sqlalchemy", "aiosqlite")) for name in frames):
        return DATABASE
    if any(name.startswith("redis") for name in frames):
        return REDIS
    return None


def _modules(error: BaseException) -> list[str]:
    """The modules of the frames `error` went through."""
    modules = []
    tb = error.__traceback__
    while tb is not None:
        modules.append(tb.tb_frame.f_globals.get("__name__", ""))
        tb = tb.tb_next
    return modules


class Outages:
    """What is down now, so each outage is logged once: when it begins, and when a request
    goes through again. A service that comes and goes within `quiet_s` is not logged again
    (requests that do not touch it succeed meanwhile)."""

    def __init__(
        self,
        quiet_s: float = 30.0,
        clock: Callable[[], float] = time.monotonic,
        began: Callable[[str], None] | None = None,
    ):
        """`began(service)` is told of each outage as it begins (the metrics count them)."""
        self._began = began
        self._down: set[str] = set()
        self._logged_at: dict[str, float] = {}
        self._quiet_s = quiet_s
        self._clock = clock

    def failed(self, error: BaseException) -> bool:
        """Note `error`; True when it is a service outage (logged if it just began)."""
        service = service_of(error)
        if service is None:
            return False
        if service not in self._down:
            self._down.add(service)
            if self._began is not None:
                self._began(service)
            now = self._clock()
            if now - self._logged_at.get(service, -self._quiet_s) >= self._quiet_s:
                self._logged_at[service] = now
                log.warning("service unavailable", service=service, error=type(error).__name__)
        return True

    def succeeded(self) -> None:
        """A request went through: whatever was down is back."""
        now = self._clock()
        for service in sorted(self._down):
            if now - self._logged_at.get(service, now) >= self._quiet_s:
                log.info("service available again", service=service)
        self._down.clear()

    def reply_for(self, error: BaseException) -> str | None:
        if is_busy(error):
            return BUSY
        service = service_of(error)
        return UNAVAILABLE.format(service=service) if service else None
