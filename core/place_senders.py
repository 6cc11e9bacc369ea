"""Who has written in a shared place lately: the number a place's message budget is shared
among (core/throttle.py). Kept in Redis when one is configured, so every replica counts the
same people, and in the process otherwise. Times are the wall clock's, as `limits` keeps
them."""

from __future__ import annotations

import time
from collections import OrderedDict
from typing import Protocol

from redis.asyncio import BlockingConnectionPool, Redis

# Places remembered in the process; the least recently used are forgotten first.
_PLACES = 10_000


class PlaceSenders(Protocol):
    async def seen(self, place_key: str, user_key: str, window_s: int) -> int:
        """Note that `user_key` writes in `place_key` now; how many people wrote there
        within the last `window_s` seconds, them included."""


class MemoryPlaceSenders:
    def __init__(self) -> None:
        self._places: OrderedDict[str, dict[str, float]] = OrderedDict()

    async def seen(self, place_key: str, user_key: str, window_s: int) -> int:
        now = time.time()
        senders = self._places.pop(place_key, {})
        senders[user_key] = now
        for user in [u for u, at in senders.items() if at <= now - window_s]:
            del senders[user]
        self._places[place_key] = senders
        if len(self._places) > _PLACES:
            self._places.popitem(last=False)
        return len(senders)


class RedisPlaceSenders:
    """A sorted set per place (sender -> when they last wrote), trimmed to the window."""

    def __init__(self, pool: BlockingConnectionPool, prefix: str) -> None:
        self._redis = Redis(connection_pool=pool)
        self._prefix = prefix

    async def seen(self, place_key: str, user_key: str, window_s: int) -> int:
        key = f"{self._prefix}:senders:{place_key}"
        now = time.time()
        async with self._redis.pipeline(transaction=True) as pipe:
            pipe.zadd(key, {user_key: now})
            pipe.zremrangebyscore(key, "-inf", now - window_s)
            pipe.zcard(key)
            pipe.expire(key, window_s + 1)
            _, _, count, _ = await pipe.execute()
        return int(count)
