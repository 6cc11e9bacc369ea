"""In-process session store: the embedded default. Same contract as Redis, one process only."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

from core.sessions.store import Versioned


class MemorySessionStore:
    durable = False

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._items: dict[str, tuple[Versioned, float]] = {}
        self._lock = asyncio.Lock()

    async def get(self, key: str) -> Versioned | None:
        item = self._items.get(key)
        if item is None:
            return None
        stored, expires_at = item
        if expires_at <= self._clock():
            self._items.pop(key, None)
            return None
        return stored

    async def compare_and_set(
        self, key: str, value: str, expected_version: int, ttl_s: int
    ) -> bool:
        async with self._lock:
            current = await self.get(key)
            if (current.version if current else 0) != expected_version:
                return False
            self._items[key] = (Versioned(value, expected_version + 1), self._clock() + ttl_s)
            return True

    async def delete(self, key: str) -> None:
        self._items.pop(key, None)

    async def claim(self, key: str, ttl_s: int) -> bool:
        async with self._lock:
            if await self.get(key) is not None:
                return False
            self._items[key] = (Versioned("1", 1), self._clock() + ttl_s)
            return True

    async def close(self) -> None:
        self._items.clear()
