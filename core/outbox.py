"""An outbox: work that must happen once, after the moment it was decided, and may wait for a
service that is down. Entries wait in a list in the session store and are handed to a sink
(the work) one by one; an entry leaves the list only after its sink took it, so a crash
between the two hands it over again, and sinks are idempotent (entries carry their keys).

Two ways in: an entry appended in the same atomic step as the state change that made it
(`appends`, the mistake log's), or work that could not be done now because a service was
down (`hold`, a quiz-poll vote), kept in this process while the store itself is down and
moved into the store's list once it answers.

One replica at a time flushes (a short lock in the store); a service down during a flush
leaves the rest waiting (one log line per outage, not per entry)."""

from __future__ import annotations

import asyncio
import uuid
from collections import deque
from collections.abc import Awaitable, Callable, Sequence
from typing import Generic, TypeVar

import structlog
from pydantic import TypeAdapter

from core.outages import Outages
from core.sessions import SessionStore, session_key
from core.sessions.store import Append

log = structlog.get_logger(__name__)

T = TypeVar("T")
Sink = Callable[[T], Awaitable[object]]

BATCH = 100
# Well above a batch's work; a lock its holder could not release (the store went away)
# frees itself this soon.
LOCK_MS = 10_000
FLUSH_EVERY_S = 5.0


class Outbox(Generic[T]):
    def __init__(
        self,
        store: SessionStore,
        prefix: str,
        name: str,
        kind: type[T],
        sink: Sink[T],
        outages: Outages,
        *,
        batch: int = BATCH,
    ) -> None:
        self._store = store
        self._name = name
        self._list = session_key(prefix, "outbox", name)
        self._lock = session_key(prefix, "outbox", name, "lock")
        self._codec = TypeAdapter(kind)
        self._sink = sink
        self._outages = outages
        self._batch = batch
        # Held while the store is down: in this process only, until a flush moves them.
        self._held: deque[str] = deque()
        self._running: set[asyncio.Task[int]] = set()

    def appends(self, entries: Sequence[T]) -> list[Append]:
        """The list entries to commit with a state change."""
        return [Append(self._list, self._dump(e)) for e in entries]

    def hold(self, entry: T) -> None:
        """Keep `entry` for the next flush: work that failed because a service was down."""
        self._held.append(self._dump(entry))

    async def flush(self) -> int:
        """Hand what is waiting to the sink; the number handed over. Never raises: while a
        service is down the entries wait."""
        token = uuid.uuid4().hex
        written = 0
        try:
            while self._held:
                await self._store.append(self._list, self._held[0])
                self._held.popleft()
            if not await self._store.lock(self._lock, token, LOCK_MS):
                return 0  # another replica is at it
            try:
                while entries := await self._store.head(self._list, self._batch):
                    for raw in entries:
                        await self._sink(self._codec.validate_json(raw))
                    if not await self._store.drop_head(self._list, entries, self._lock, token):
                        break  # the lock expired meanwhile: whoever holds it carries on
                    written += len(entries)
            finally:
                await self._store.unlock(self._lock, token)
        except Exception as error:
            if not self._outages.failed(error):
                log.exception("outbox not flushed", outbox=self._name)
            return written
        self._outages.succeeded()
        return written

    async def waiting(self) -> bool:
        """Whether entries wait in the outbox."""
        return bool(self._held) or bool(await self._store.head(self._list, 1))

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

    def _dump(self, entry: T) -> str:
        return self._codec.dump_json(entry).decode()
