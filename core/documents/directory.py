"""The identities of a course's documents, read from the index and kept for a short while:
a question is matched against them before every search, and asking the index each time would
cost a scroll per question."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import Protocol

from core.documents.identity import DocumentIdentity

# Long enough that a busy course reads its documents rarely, short enough that a document
# ingested by another replica is named within a minute.
DEFAULT_TTL_S = 30.0


class IdentitySource(Protocol):
    async def document_identities(self, course_id: str) -> dict[str, DocumentIdentity]: ...

    def writes(self, course_id: str) -> int:
        """Changes this process made to the course's documents (a cache is stale once it
        grows)."""
        ...


class DocumentDirectory:
    """document id -> identity of a course's public documents (private notes are never named:
    their names must not steer another student's search). A course is read again after
    `ttl_s`, or at once when this process has written to it since (`IdentitySource.writes`):
    other replicas' ingestions show within `ttl_s`."""

    def __init__(
        self,
        source: IdentitySource,
        ttl_s: float = DEFAULT_TTL_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.source = source
        self.ttl_s = ttl_s
        self.clock = clock
        self._cached: dict[str, tuple[float, int, dict[str, DocumentIdentity]]] = {}

    async def of(self, course_id: str) -> Mapping[str, DocumentIdentity]:
        now = self.clock()
        writes = self.source.writes(course_id)
        cached = self._cached.get(course_id)
        if cached is not None and now - cached[0] < self.ttl_s and cached[1] == writes:
            return cached[2]
        identities = await self.source.document_identities(course_id)
        self._cached[course_id] = (now, writes, identities)
        return identities
