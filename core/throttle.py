"""Per-user request throttle: how many messages one person may send in a window.

Counts live in Redis when one is configured, so every replica sees the same counts, and in
the process otherwise. The limit is a moving window (`limits`' strategy of that name): a
person never gets more than the limit in any span of the window's length, and a refused
message frees no slot. A flood is answered once: `tell` is true for the first refusal of a
window only, so the adapter sends one polite reply and drops the rest in silence."""

from __future__ import annotations

import time
from dataclasses import dataclass

import structlog
from limits.aio.storage import MemoryStorage, RedisStorage, Storage
from limits.aio.strategies import MovingWindowRateLimiter
from limits.errors import StorageError
from redis.asyncio import BlockingConnectionPool

from config import Settings
from config.settings import parse_rate
from core.sessions.redis_store import DEFAULT_TIMEOUT_S, bounded_pool

log = structlog.get_logger(__name__)

THROTTLED_MESSAGE = (
    "You're sending messages faster than I can answer. Please wait a few seconds and try again."
)

_NAMESPACE = "throttle"
BYPASS_AFTER_OUTAGE_S = 10.0


@dataclass(frozen=True)
class ThrottleVerdict:
    """Whether a message may go on; if not, how long to wait and whether to say so."""

    allowed: bool
    retry_after_s: float = 0.0
    tell: bool = False


class RequestThrottle:
    """Counts each person's messages against one limit, shared through Redis if configured.

    `user_key` is the platform principal (`telegram:42`, `discord:1234`); Redis keys are
    `{prefix}:throttle:...` so deployments sharing a Redis never meet."""

    def __init__(
        self,
        rate: str,
        *,
        redis_url: str | None = None,
        prefix: str = "coursebot",
        timeout_s: float = DEFAULT_TIMEOUT_S,
    ):
        self._limit = parse_rate(rate)
        # One "told" entry per window: the first refusal takes it, later ones find it taken.
        self._told = type(self._limit)(1, self._limit.multiples, namespace="TOLD")
        self._storage: Storage
        self._pool: BlockingConnectionPool | None = None
        if redis_url is None:
            self._storage = MemoryStorage()
        else:
            # limits talks to Redis through redis-py (not its default, coredis) on a pool we
            # own, so close() can release it.
            # Bounded like the session store's: a stalled Redis costs seconds, not a hang.
            self._pool = bounded_pool(redis_url, timeout_s, decode_responses=False)
            self._storage = RedisStorage(
                "async+" + redis_url,
                implementation="redispy",
                key_prefix=f"{prefix}:{_NAMESPACE}",
                wrap_exceptions=True,
                connection_pool=self._pool,  # type: ignore[arg-type]
            )
        self._limiter = MovingWindowRateLimiter(self._storage)
        self._bypass_until = 0.0
        self.shared = redis_url is not None

    @classmethod
    def from_settings(cls, settings: Settings) -> RequestThrottle:
        redis_url = str(settings.redis_url) if settings.redis_url is not None else None
        return cls(
            settings.rate_limit,
            redis_url=redis_url,
            prefix=settings.redis_prefix,
            timeout_s=settings.service_timeout_s,
        )

    async def check(self, user_key: str) -> ThrottleVerdict:
        """Count one message from `user_key` and say whether it may go on.

        If Redis cannot be reached the message is let through (with a warning in the log):
        a throttle outage must not silence every student. For a while after that the
        throttle does not wait on Redis again, so an outage does not add its timeout to
        every message."""
        if time.monotonic() < self._bypass_until:
            return ThrottleVerdict(allowed=True)
        try:
            if await self._limiter.hit(self._limit, user_key):
                return ThrottleVerdict(allowed=True)
            stats = await self._limiter.get_window_stats(self._limit, user_key)
            tell = await self._limiter.hit(self._told, user_key)
        except StorageError as exc:
            if time.monotonic() >= self._bypass_until:  # once per outage, not per message
                log.warning(
                    "throttle storage unavailable; letting messages through for a while",
                    error=type(exc.storage_error).__name__,
                )
            self._bypass_until = time.monotonic() + BYPASS_AFTER_OUTAGE_S
            return ThrottleVerdict(allowed=True)
        retry_after = max(0.0, stats.reset_time - time.time())
        return ThrottleVerdict(allowed=False, retry_after_s=retry_after, tell=tell)

    async def reset(self, user_key: str) -> None:
        """Forget `user_key`'s count (an instructor lifting a throttle, or a test)."""
        await self._limiter.clear(self._limit, user_key)
        await self._limiter.clear(self._told, user_key)

    async def close(self) -> None:
        if self._pool is not None:
            await self._pool.aclose()
            self._pool = None
