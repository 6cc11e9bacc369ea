"""The session store contract: versioned values with compare-and-set, and one-time claims.

Sessions (guided exercises, conversation turns, chat bindings) are small JSON documents. Every
write names the version it read, so two replicas answering the same session at the same
moment cannot both win; the loser re-reads and tries again."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True, slots=True)
class Versioned:
    value: str
    version: int


def session_key(prefix: str, purpose: str, *parts: str) -> str:
    """One naming rule for every key: `prefix:purpose:part:part`."""
    return ":".join([prefix, purpose, *parts])


class SessionStore(Protocol):
    """Where sessions live: Redis when configured, this process's memory otherwise."""

    durable: bool

    async def get(self, key: str) -> Versioned | None:
        """The value and its version, or None when absent or expired."""

    async def compare_and_set(
        self, key: str, value: str, expected_version: int, ttl_s: int
    ) -> bool:
        """Write `value` as version `expected_version + 1` if the stored version is still
        `expected_version` (0 means absent). Refreshes the TTL. False when someone was faster."""

    async def delete(self, key: str) -> None: ...

    async def claim(self, key: str, ttl_s: int) -> bool:
        """True the first time a key is claimed within its TTL: for idempotency keys."""

    async def close(self) -> None: ...
