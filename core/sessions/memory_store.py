"""In-process session store: the embedded default. Same contract as Redis, one process only
(a long-running command on it says so when it starts)."""

from __future__ import annotations

import asyncio
import time
from collections import defaultdict
from collections.abc import Callable, Sequence

from core.sessions.store import Append, Versioned

_SWEEP_EVERY = 1024


class MemorySessionStore:
    durable = False

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._items: dict[str, tuple[Versioned, float]] = {}
        self._lists: defaultdict[str, list[str]] = defaultdict(list)
        self._locks: dict[str, tuple[str, float]] = {}
        self._writes = 0
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
        self,
        key: str,
        value: str,
        expected_version: int,
        ttl_s: int,
        appends: Sequence[Append] = (),
    ) -> bool:
        async with self._lock:
            current = await self.get(key)
            if (current.version if current else 0) != expected_version:
                return False
            self._items[key] = (Versioned(value, expected_version + 1), self._clock() + ttl_s)
            for append in appends:
                self._lists[append.list_key].append(append.entry)
            self._sweep()
            return True

    def _sweep(self) -> None:
        """Drop expired items now and then: most keys (replies to replays) are never read."""
        self._writes += 1
        if self._writes % _SWEEP_EVERY:
            return
        now = self._clock()
        for key in [k for k, (_, expires_at) in self._items.items() if expires_at <= now]:
            del self._items[key]

    async def delete(self, key: str) -> None:
        self._items.pop(key, None)

    async def append(self, list_key: str, entry: str) -> None:
        self._lists[list_key].append(entry)

    async def head(self, list_key: str, count: int) -> list[str]:
        return list(self._lists.get(list_key, [])[:count])

    async def lock(self, key: str, token: str, ttl_ms: int) -> bool:
        held = self._locks.get(key)
        if held is not None and held[1] > self._clock():
            return False
        self._locks[key] = (token, self._clock() + ttl_ms / 1000)
        return True

    async def drop_head(
        self, list_key: str, entries: Sequence[str], lock_key: str, token: str
    ) -> bool:
        held = self._locks.get(lock_key)
        if held is None or held[0] != token:
            return False
        listed = self._lists.get(list_key, [])
        if not entries or listed[: len(entries)] != list(entries):
            return False
        del listed[: len(entries)]
        return True

    async def unlock(self, key: str, token: str) -> None:
        if self._locks.get(key, ("", 0.0))[0] == token:
            del self._locks[key]

    async def close(self) -> None:
        self._items.clear()
        self._lists.clear()
