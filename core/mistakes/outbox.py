"""Mistakes travel through an outbox (`core.outbox`): each is appended to a list in the
session store in the same atomic step as the exercise transition that made it, then written
to the database. A database outage delays the mistake log and loses nothing; a replayed
message adds nothing (entries carry the message's idempotency key, and the log ignores a key
seen before)."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import replace

from core.mistakes.log import MistakeEntry, MistakeLog
from core.outages import Outages
from core.outbox import Outbox
from core.sessions import SessionStore
from core.sessions.store import Append


class MistakeOutbox(Outbox[MistakeEntry]):
    def __init__(
        self, store: SessionStore, prefix: str, mistakes: MistakeLog, outages: Outages
    ) -> None:
        super().__init__(store, prefix, "mistakes", MistakeEntry, mistakes.record, outages)

    def appends(self, entries: Sequence[MistakeEntry]) -> list[Append]:
        """The list entries to commit with a transition."""
        return super().appends([with_key(e) for e in entries])


def with_key(entry: MistakeEntry) -> MistakeEntry:
    """Every entry needs an idempotency key, or a flush repeated after a crash would log it
    twice."""
    if entry.idempotency_key:
        return entry
    return replace(entry, idempotency_key=f"outbox:{uuid.uuid4()}")
