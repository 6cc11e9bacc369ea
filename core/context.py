"""Who is asking, where: the context every core call carries."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum


class Audience(StrEnum):
    """Who will see a reply. The adapter reports it; the core decides what may appear there."""

    PRIVATE = "private"  # the asker alone: a direct message, an ephemeral reply, a terminal
    SHARED = "shared"  # others read it too: a group, a channel, a thread


class Role(StrEnum):
    STUDENT = "student"
    INSTRUCTOR = "instructor"
    MODERATOR = "moderator"


@dataclass(frozen=True, slots=True)
class Context:
    """Who asks about which course, with which roles, and who will see the reply: what the
    core's services act on, built by the core from a `Request` (never by an adapter).

    `message_id` is the inbound message's id; it keys what must not happen twice (the
    mistake log's entry for an answer)."""

    platform: str
    course_id: str
    user_id: str
    roles: frozenset[Role] = field(default_factory=lambda: frozenset({Role.STUDENT}))
    chat_id: str | None = None
    message_id: str | None = None
    # Shared unless an adapter says otherwise: the safe side for private notes.
    audience: Audience = Audience.SHARED

    @property
    def private_audience(self) -> bool:
        return self.audience is Audience.PRIVATE


@dataclass(frozen=True, slots=True)
class Member:
    """Who is asking, as their platform names them, before any course is known.

    `user_id` is platform-qualified (`telegram:42`, `discord:42`) so ids never collide across
    platforms; `principals` adds the ids roles may be granted to (`discord:role:1234`);
    `role_names` the names of their roles in the server the request came from
    (`discord:role:Teacher`), which count only where that server is bound to the course;
    `chat_admin` is true for an administrator of the chat the request came from (a Telegram
    group admin, a Discord member with Manage Server). Being a chat admin grants nothing on a
    course by itself: it is one of the conditions for binding the chat."""

    platform: str
    user_id: str
    principals: frozenset[str] = frozenset()
    chat_admin: bool = False
    role_names: frozenset[str] = frozenset()
    # How the platform shows them ("Ada Lovelace"): a staff answer is signed with it.
    name: str = ""

    @property
    def ids(self) -> frozenset[str]:
        """Everything a role may be granted to by id: the user and their role ids."""
        return self.principals | {self.user_id}
