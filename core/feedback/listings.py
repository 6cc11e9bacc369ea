"""Which question group each `/unanswered` listing message shows, so that a staff member's
platform reply to that message ("reply to" on Telegram, a message reference on Discord)
answers the group as `/reply ID text` would.

The core marks each group's message with an anchor (`Notice.anchor`); the adapter that sent
it reports the platform's message id (`CourseBot.remember_sent`), and a later message
replying to it names that id (`Request.replying_to`). The records live in the session store,
shared by replicas, for some weeks; what a reply may do is decided as for `/reply` itself."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import timedelta

from core.sessions import SessionStore, session_key

# Long enough for a listing answered after a weekend or a busy fortnight.
LISTING_TTL = timedelta(days=30)
_PREFIX = "group:"


@dataclass(frozen=True, slots=True)
class ListedGroup:
    course_id: str
    group_id: int


def group_anchor(course_id: str, group_id: int) -> str:
    """The anchor of group `group_id`'s listing message."""
    return f"{_PREFIX}{group_id}:{course_id}"


def _listed(anchor: str) -> ListedGroup | None:
    if not anchor.startswith(_PREFIX):
        return None
    number, _, course = anchor.removeprefix(_PREFIX).partition(":")
    if not number.isdigit() or not course:
        return None
    return ListedGroup(course, int(number))


class ListingMessages:
    def __init__(self, store: SessionStore, prefix: str, ttl: timedelta = LISTING_TTL) -> None:
        self._store = store
        self._prefix = prefix
        self._ttl_s = int(ttl.total_seconds())

    async def remember(
        self, platform: str, chat_id: str | None, message_id: str, anchor: str
    ) -> bool:
        """Keep which group the message `message_id` in `chat_id` lists; False for an anchor
        that names no group (nothing kept)."""
        listed = _listed(anchor)
        if listed is None or chat_id is None:
            return False
        key = self._key(platform, chat_id, message_id)
        value = json.dumps({"course_id": listed.course_id, "group_id": listed.group_id})
        for _ in range(3):
            stored = await self._store.get(key)
            version = stored.version if stored else 0
            if await self._store.compare_and_set(key, value, version, self._ttl_s):
                return True
        raise RuntimeError("a listing message's record kept changing while writing it")

    async def find(self, platform: str, chat_id: str | None, message_id: str) -> ListedGroup | None:
        if chat_id is None:
            return None
        stored = await self._store.get(self._key(platform, chat_id, message_id))
        if stored is None:
            return None
        data = json.loads(stored.value)
        return ListedGroup(str(data["course_id"]), int(data["group_id"]))

    def _key(self, platform: str, chat_id: str, message_id: str) -> str:
        return session_key(self._prefix, "listing", platform, chat_id, message_id)
