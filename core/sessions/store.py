"""The session store contract: versioned values with compare-and-set, and outbox lists.

Sessions (guided exercises, conversation turns, reply records) are small JSON documents.
Every write names the version it read, so two replicas answering the same session at the
same moment cannot both win; the loser re-reads and tries again. A write may append entries
to outbox lists in the same atomic step (the mistake log's outbox): the state change and its
side effects commit together or not at all."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True, slots=True)
class Versioned:
    value: str
    version: int


@dataclass(frozen=True, slots=True)
class Append:
    """An entry for an outbox list, appended with a write."""

    list_key: str
    entry: str


def session_key(prefix: str, purpose: str, *parts: str) -> str:
    """One naming rule for every key: `prefix:purpose:part:part`."""
    return ":".join([prefix, purpose, *parts])


class SessionStore(Protocol):
    """Where sessions live: Redis when configured, this process's memory otherwise."""

    durable: bool

    async def get(self, key: str) -> Versioned | None:
        """The value and its version, or None when absent or expired."""

    async def compare_and_set(
        self,
        key: str,
        value: str,
        expected_version: int,
        ttl_s: int,
        appends: Sequence[Append] = (),
    ) -> bool:
        """Write `value` as version `expected_version + 1` if the stored version is still
        `expected_version` (0 means absent), and append `appends`, atomically. Refreshes the
        TTL. False (and nothing written) when someone was faster."""

    async def delete(self, key: str) -> None: ...

    async def append(self, list_key: str, entry: str) -> None:
        """Add one entry to an outbox list on its own (work that no write carried)."""

    async def head(self, list_key: str, count: int) -> list[str]:
        """The first `count` entries of an outbox list (oldest first), left in place."""

    async def lock(self, key: str, token: str, ttl_ms: int) -> bool:
        """Take a short lock (False if someone holds it); it expires by itself."""

    async def drop_head(
        self, list_key: str, entries: Sequence[str], lock_key: str, token: str
    ) -> bool:
        """Remove `entries`, the head as `head` returned it, only while `token` still holds
        `lock_key` and the list still starts with them. Idempotent: a call repeated (a
        client retrying after a lost reply) finds another head and removes nothing."""

    async def unlock(self, key: str, token: str) -> None: ...

    async def close(self) -> None: ...
