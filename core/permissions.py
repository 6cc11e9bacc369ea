"""Who may do what: the one place a role is checked. Adapters map platform roles into
`Context.roles`; the core decides here."""

from __future__ import annotations

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
