"""Request throttle: how many messages one person may send in a window, and how many one
shared place (a group, a channel) may send together.

Counts live in Redis when one is configured, so every replica sees the same counts, and in
the process otherwise. Each limit is a moving window (`limits`' strategy of that name): never
more than the limit in any span of the window's length, and a refused message frees no slot.
A flood is answered once: `tell` is true for the first refusal of a window only, so the
adapter sends one polite reply and drops the rest in silence.

The place limit is for floods from many accounts at once: each stays under its own limit, yet
together they would take the answer path (shared by every course this process serves) and the
platform's send quota for the group (Telegram allows a bot about 20 messages a minute there).
A place is counted only for messages its own limit admitted, so one flooder spends their own
quota, not the group's.

The place's budget is shared fairly: once a quarter of it is spent within its window, each
person who wrote there within the window gets an even share, and whoever has used theirs
waits (the heaviest senders are refused first). A share is paced, one message per interval
(with 40 a minute and five people writing, one every 8 s) rather than a minute's worth at
once, so a refused sender waits seconds, not the rest of the window. Four accounts flooding a
group no longer lock out a fifth member: bench/throttle.py prints the figures."""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import structlog
from limits import RateLimitItem
from limits.aio.storage import MemoryStorage, RedisStorage
from limits.aio.strategies import MovingWindowRateLimiter
from limits.errors import StorageError
from redis.asyncio import BlockingConnectionPool
from redis.exceptions import RedisError

from config import Settings
from config.settings import parse_rate
from core.place_senders import MemoryPlaceSenders, PlaceSenders, RedisPlaceSenders
from core.sessions.redis_store import DEFAULT_TIMEOUT_S, bounded_pool

log = structlog.get_logger(__name__)

THROTTLED_MESSAGE = (
    "You're sending messages faster than I can answer. Please wait a few seconds and try again."
)
PLACE_THROTTLED_MESSAGE = (
    "This chat is sending messages faster than I can answer. Please wait a minute and try again."
)
SHARE_THROTTLED_MESSAGE = (
    "This chat is busy and you have sent your share of its messages for now. Please wait a "
    "few seconds, or ask me in a direct message."
)

_NAMESPACE = "throttle"
BYPASS_AFTER_OUTAGE_S = 10.0
# Shares apply once this much of a place's budget is spent within its window: a quiet
# group's members have only their own limits.
BUSY_FRACTION = 0.25


@dataclass(frozen=True)
class ThrottleVerdict:
    """Whether a message may go on; if not, how long to wait and whether to say so."""

    allowed: bool
    retry_after_s: float = 0.0
    tell: bool = False
    message: str = THROTTLED_MESSAGE


@dataclass(frozen=True)
class _Limit:
    """A rate, its one-per-window "told" entry (the first refusal takes it, later ones find
    it taken) and what a refusal says."""

    rate: RateLimitItem
    told: RateLimitItem
    message: str

    @classmethod
    def of(cls, rate: str, message: str) -> _Limit:
        item = parse_rate(rate)
        return cls(item, type(item)(1, item.multiples, namespace="TOLD"), message)


class RequestThrottle:
    """Counts each person's messages against one limit, shared through Redis if configured.

    `user_key` is the platform principal (`telegram:42`, `discord:1234`); Redis keys are
    `{prefix}:throttle:...` so deployments sharing a Redis never meet."""

    def __init__(
        self,
        rate: str,
        *,
        place_rate: str | None = None,
        redis_url: str | None = None,
        prefix: str = "coursebot",
        timeout_s: float = DEFAULT_TIMEOUT_S,
    ):
        self._person = _Limit.of(rate, THROTTLED_MESSAGE)
        self._place = _Limit.of(place_rate, PLACE_THROTTLED_MESSAGE) if place_rate else None
        self._storage: MemoryStorage | RedisStorage  # both keep moving windows
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
        self._senders: PlaceSenders = (
            MemoryPlaceSenders()
            if self._pool is None
            else RedisPlaceSenders(self._pool, f"{prefix}:{_NAMESPACE}")
        )
        self._bypass_until = 0.0
        self.shared = redis_url is not None

    @classmethod
    def from_settings(cls, settings: Settings) -> RequestThrottle:
        redis_url = str(settings.redis_url) if settings.redis_url is not None else None
        return cls(
            settings.rate_limit,
            place_rate=settings.place_rate_limit,
            redis_url=redis_url,
            prefix=settings.redis_prefix,
            timeout_s=settings.service_timeout_s,
        )

    async def check(self, user_key: str, place_key: str | None = None) -> ThrottleVerdict:
        """Count one message from `user_key` (said in the shared place `place_key`, if any)
        and say whether it may go on.

        If Redis cannot be reached the message is let through (with a warning in the log):
        a throttle outage must not silence every student. For a while after that the
        throttle does not wait on Redis again, so an outage does not add its timeout to
        every message."""
        if time.monotonic() < self._bypass_until:
            return ThrottleVerdict(allowed=True)
        try:
            verdict = await self._hit(self._person, user_key)
            if verdict.allowed and self._place is not None and place_key is not None:
                verdict = await self._hit_place(self._place, user_key, place_key)
        except (StorageError, RedisError) as exc:
            if time.monotonic() >= self._bypass_until:  # once per outage, not per message
                cause = exc.storage_error if isinstance(exc, StorageError) else exc
                log.warning(
                    "throttle storage unavailable; letting messages through for a while",
                    error=type(cause).__name__,
                )
            self._bypass_until = time.monotonic() + BYPASS_AFTER_OUTAGE_S
            return ThrottleVerdict(allowed=True)
        return verdict

    async def _hit_place(self, place: _Limit, user_key: str, place_key: str) -> ThrottleVerdict:
        """Count a message in a shared place: within the place's budget, and, once a quarter
        of it is spent, within the sender's share of it (those still under theirs are
        served first; a rounded-up interval leaves room for whoever writes next)."""
        key = f"place:{place_key}"
        window_s = place.rate.get_expiry()
        senders = await self._senders.seen(place_key, user_key, window_s)
        stats = await self._limiter.get_window_stats(place.rate, key)
        busy = place.rate.amount - stats.remaining >= place.rate.amount * BUSY_FRACTION
        # An even share for everyone writing there, paced: one message per interval.
        interval_s = math.ceil(window_s * senders / place.rate.amount)
        share_key = f"share:{place_key}:{user_key}"
        # Taken whether or not the place is busy, so a share counts what came before.
        shared = await self._storage.acquire_entry(share_key, 1, interval_s)
        if busy and not shared:
            tell = await self._limiter.hit(place.told, share_key)
            return ThrottleVerdict(False, float(interval_s), tell, SHARE_THROTTLED_MESSAGE)
        return await self._hit(place, key)

    async def _hit(self, limit: _Limit, key: str) -> ThrottleVerdict:
        if await self._limiter.hit(limit.rate, key):
            return ThrottleVerdict(allowed=True)
        stats = await self._limiter.get_window_stats(limit.rate, key)
        tell = await self._limiter.hit(limit.told, key)
        retry_after = max(0.0, stats.reset_time - time.time())
        return ThrottleVerdict(False, retry_after_s=retry_after, tell=tell, message=limit.message)

    async def reset(self, user_key: str) -> None:
        """Forget `user_key`'s count (an instructor lifting a throttle, or a test)."""
        await self._limiter.clear(self._person.rate, user_key)
        await self._limiter.clear(self._person.told, user_key)

    async def close(self) -> None:
        if self._pool is not None:
            await self._pool.aclose()
            self._pool = None
