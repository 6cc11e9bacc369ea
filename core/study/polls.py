"""Which quiz question a platform's poll asks, so a vote finds its quiz again.

A poll vote (Telegram's `poll_answer`) names only the poll and the voter: no chat, no
message. When an adapter has sent a question as a native poll it tells the core the poll's
id, and the core keeps the question it asks, the course and where it was sent (so the vote
is judged by the same membership rules as a message there, and the score goes back to that
chat). The records live in the session store, shared by replicas, for some days; votes that
met an outage wait in an outbox (`PollVote`)."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from datetime import timedelta

from core.context import Audience, Member
from core.outages import Outages
from core.outbox import Outbox, Sink
from core.requests import Response
from core.sessions import SessionStore, session_key
from core.visibility import UNSURE

# Long enough for a quiz done over a few evenings; a vote on an older poll is ignored.
POLL_TTL = timedelta(days=7)


@dataclass(frozen=True, slots=True)
class PollRef:
    """A poll's question: the quiz (by its material id) and the question's number (from 1),
    the course, and the place it was sent to (chat id, audience, binding lookup keys)."""

    course_id: str
    quiz_id: int
    number: int
    chat_id: str | None
    audience: Audience = UNSURE
    lookup: tuple[str, ...] = ()

    def dumps(self) -> str:
        return json.dumps(asdict(self))

    @classmethod
    def loads(cls, text: str) -> PollRef:
        data = json.loads(text)
        return cls(
            course_id=str(data["course_id"]),
            quiz_id=int(data["quiz_id"]),
            number=int(data["number"]),
            chat_id=data.get("chat_id"),
            audience=Audience(data.get("audience", UNSURE)),
            lookup=tuple(data.get("lookup", ())),
        )


class PollRegistry:
    def __init__(self, store: SessionStore, prefix: str, ttl: timedelta = POLL_TTL) -> None:
        self._store = store
        self._prefix = prefix
        self._ttl_s = int(ttl.total_seconds())

    async def remember(self, platform: str, poll_id: str, ref: PollRef) -> None:
        """Keep `ref` for the poll; a poll id is the platform's and never reused, so a
        second call (a resent quiz) only refreshes it."""
        key = self._key(platform, poll_id)
        for _ in range(3):
            stored = await self._store.get(key)
            version = stored.version if stored else 0
            if await self._store.compare_and_set(key, ref.dumps(), version, self._ttl_s):
                return
        raise RuntimeError("a poll's record kept changing while writing it")

    async def find(self, platform: str, poll_id: str) -> PollRef | None:
        stored = await self._store.get(self._key(platform, poll_id))
        return PollRef.loads(stored.value) if stored else None

    def vote_outbox(self, count: Sink[PollVote], outages: Outages) -> Outbox[PollVote]:
        """The outbox of votes that met an outage, counted by `count` once it is over.
        Small batches: each vote is a request of its own, bounded by the service timeout."""
        return Outbox(self._store, self._prefix, "votes", PollVote, count, outages, batch=10)

    def _key(self, platform: str, poll_id: str) -> str:
        return session_key(self._prefix, "poll", platform, poll_id)


@dataclass(frozen=True, slots=True)
class PollVote:
    """One vote as the platform delivered it: who, in which poll, which option (from 0), and
    the update that carried it (the vote's idempotency key). Telegram never delivers a vote
    again and a quiz poll takes one vote per person, so a vote that meets an outage is held
    in an outbox and counted once the outage is over."""

    member: Member
    poll_id: str
    option: int
    update_id: str


@dataclass(frozen=True, slots=True)
class PollAnswered:
    """What a poll vote causes: the response (nothing, or the score after the last
    question) and the chat it goes to, the one the poll was sent to."""

    response: Response = field(default_factory=Response)
    chat_id: str | None = None
