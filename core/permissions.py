"""Who may do what: the one place a role is granted and checked. Adapters name who is asking
(principals such as `telegram:42` or `discord:role:TA`) and whether they administer the chat;
`RoleGrants` turns that into `Context.roles`, and `require` decides."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum

from core.context import Context, Role
from core.errors import PermissionDeniedError


class Action(StrEnum):
    INGEST = "add course material"
    FORGET = "remove course material"
    REVIEW_MISTAKES = "review the class's mistakes"
    BIND = "bind this chat to a course"


REQUIRED_ROLE: dict[Action, Role] = {
    Action.INGEST: Role.INSTRUCTOR,
    Action.FORGET: Role.INSTRUCTOR,
    Action.REVIEW_MISTAKES: Role.MODERATOR,
    Action.BIND: Role.INSTRUCTOR,
}

# An instructor may do whatever a moderator may.
_IMPLIES: dict[Role, frozenset[Role]] = {
    Role.INSTRUCTOR: frozenset({Role.INSTRUCTOR, Role.MODERATOR, Role.STUDENT}),
    Role.MODERATOR: frozenset({Role.MODERATOR, Role.STUDENT}),
    Role.STUDENT: frozenset({Role.STUDENT}),
}


def effective_roles(ctx: Context) -> frozenset[Role]:
    return frozenset().union(*(_IMPLIES[role] for role in ctx.roles))


def allowed(ctx: Context, action: Action) -> bool:
    return REQUIRED_ROLE[action] in effective_roles(ctx)


def require(ctx: Context, action: Action) -> None:
    """Raise a polite PermissionDeniedError unless the context may do `action`."""
    if not allowed(ctx, action):
        raise PermissionDeniedError(action.value, REQUIRED_ROLE[action].value)


ALL_COURSES = "*"


@dataclass(frozen=True, slots=True)
class RoleGrants:
    """Who holds which role in which course, from settings: course id (or "*") -> role name ->
    principals. A chat administrator (Telegram group admin, Discord member with Manage Server)
    is an instructor of the chat's course: they could remove the bot anyway."""

    grants: Mapping[str, Mapping[str, Sequence[str]]] = field(default_factory=dict)

    def roles(
        self, course_id: str, principals: Iterable[str], *, chat_admin: bool = False
    ) -> frozenset[Role]:
        held = set(principals)
        roles = {Role.STUDENT}
        for course in (course_id, ALL_COURSES):
            for role, members in self.grants.get(course, {}).items():
                if held.intersection(members):
                    roles.add(Role(role))
        if chat_admin:
            roles.add(Role.INSTRUCTOR)
        return frozenset(roles)
