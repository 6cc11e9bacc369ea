"""Mistakes travel through an outbox: each is appended to a list in the session store in the
same atomic step as the exercise transition that made it, then written to the database. A
database outage delays the mistake log and loses nothing; a replayed message adds nothing
(entries carry the message's idempotency key, and the log ignores a key seen before).

One replica at a time flushes (a short lock in the store); entries leave the list only after
the database took them, so a crash between the two writes them again, harmlessly."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Sequence
from dataclasses import replace

import structlog
from pydantic import TypeAdapter

from core.mistakes.log import MistakeEntry, MistakeLog
from core.outages import Outages
from core.sessions import SessionStore, session_key
from core.sessions.store import Append

log = structlog.get_logger(__name__)

BATCH = 100
# Well above a batch's database writes; a lock its holder could not release (the store
# went away) frees itself this soon.
LOCK_MS = 10_000
FLUSH_EVERY_S = 5.0
_ENTRY = TypeAdapter(MistakeEntry)


class MistakeOutbox:
    def __init__(
        self, store: SessionStore, prefix: str, mistakes: MistakeLog, outages: Outages
    ) -> None:
        self._store = store
        self._list = session_key(prefix, "outbox", "mistakes")
        self._lock = session_key(prefix, "outbox", "mistakes", "lock")
        self._mistakes = mistakes
        self._outages = outages
        self._running: set[asyncio.Task[int]] = set()

    def appends(self, entries: Sequence[MistakeEntry]) -> list[Append]:
        """The list entries to commit with a transition."""
        return [Append(self._list, _ENTRY.dump_json(with_key(e)).decode()) for e in entries]

    async def flush(self) -> int:
        """Write what is waiting to the database; the number written. Never raises: while the
        database is down the entries wait (one log line per outage, not per entry)."""
        token = uuid.uuid4().hex
        written = 0
        try:
            if not await self._store.lock(self._lock, token, LOCK_MS):
                return 0  # another replica is at it
            try:
                while entries := await self._store.head(self._list, BATCH):
                    for raw in entries:
                        await self._mistakes.record(_ENTRY.validate_json(raw))
                    if not await self._store.drop_head(self._list, entries, self._lock, token):
                        break  # the lock expired meanwhile: whoever holds it carries on
                    written += len(entries)
            finally:
                await self._store.unlock(self._lock, token)
        except Exception as error:
            if not self._outages.failed(error):
                log.exception("mistake outbox not flushed")
            return written
        self._outages.succeeded()
        return written

    async def waiting(self) -> bool:
        """Whether entries wait in the outbox."""
        return bool(await self._store.head(self._list, 1))

    def flush_soon(self) -> None:
        """Flush in the background (a reference is kept until it is done)."""
        task = asyncio.create_task(self.flush())
        self._running.add(task)
        task.add_done_callback(self._running.discard)

    async def settled(self) -> None:
        """Wait for the background flushes started so far (tests, shutdown)."""
        await asyncio.gather(*self._running, return_exceptions=True)

    async def keep_flushing(self, every_s: float = FLUSH_EVERY_S) -> None:
        """Flush now and then until cancelled: entries left by an outage go in once it ends."""
        while True:
            await asyncio.sleep(every_s)
            await self.flush()


def with_key(entry: MistakeEntry) -> MistakeEntry:
    """Every entry needs an idempotency key, or a flush repeated after a crash would log it
    twice."""
    if entry.idempotency_key:
        return entry
    return replace(entry, idempotency_key=f"outbox:{uuid.uuid4()}")
