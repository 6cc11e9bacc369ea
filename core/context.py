"""Who is asking, where: the context every core call carries."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from enum import StrEnum


class Role(StrEnum):
    STUDENT = "student"
    INSTRUCTOR = "instructor"
    MODERATOR = "moderator"


@dataclass(frozen=True, slots=True)
class Context:
    """A request's origin. Adapters build it from platform events; the core trusts only this.

    `message_id` is the platform's id for the inbound message (update or interaction id); it is
    the idempotency key for anything that must not happen twice when a message is replayed.
    """

    platform: str
    course_id: str
    user_id: str
    roles: frozenset[Role] = field(default_factory=lambda: frozenset({Role.STUDENT}))
    chat_id: str | None = None
    locale: str = "en"
    message_id: str | None = None

    def has_role(self, role: Role) -> bool:
        return role in self.roles

    def for_course(self, course_id: str) -> Context:
        return replace(self, course_id=course_id)


@dataclass(frozen=True, slots=True)
class Member:
    """Who is asking, as their platform names them, before any course is known.

    `user_id` is platform-qualified (`telegram:42`, `discord:42`) so ids never collide across
    platforms; `principals` adds what roles are granted to (`discord:role:TA`); `chat_admin`
    is true for a Telegram group administrator or a Discord member with Manage Server."""

    platform: str
    user_id: str
    principals: frozenset[str] = frozenset()
    chat_admin: bool = False
    locale: str = "en"
