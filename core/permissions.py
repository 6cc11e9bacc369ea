"""Who may do what: the one place a role is granted and checked.

Roles come from two sources: the settings (`COURSEBOT_COURSE_ROLES`, a bootstrap; "*" names
site staff) and each course's own staff in the database (its creator, and whoever its
instructors grant). Adapters only name who is asking (principals such as `telegram:42` or
`discord:role:1234`) and whether they administer the chat; being a chat admin grants no role
on any course."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum

from core.context import Context, Member, Role
from core.courses import CourseRegistry
from core.errors import PermissionDeniedError


class Action(StrEnum):
    INGEST = "add course material"
    FORGET = "remove course material"
    REVIEW_MISTAKES = "review the class's mistakes"
    BIND = "bind this chat to a course"
    MANAGE_STAFF = "grant or revoke course roles"
    MANAGE_COURSE = "change who may join the course"


REQUIRED_ROLE: dict[Action, Role] = {
    Action.INGEST: Role.INSTRUCTOR,
    Action.FORGET: Role.INSTRUCTOR,
    Action.REVIEW_MISTAKES: Role.MODERATOR,
    Action.BIND: Role.INSTRUCTOR,
    Action.MANAGE_STAFF: Role.INSTRUCTOR,
    Action.MANAGE_COURSE: Role.INSTRUCTOR,
}

# An instructor may do whatever a moderator may.
_IMPLIES: dict[Role, frozenset[Role]] = {
    Role.INSTRUCTOR: frozenset({Role.INSTRUCTOR, Role.MODERATOR, Role.STUDENT}),
    Role.MODERATOR: frozenset({Role.MODERATOR, Role.STUDENT}),
    Role.STUDENT: frozenset({Role.STUDENT}),
}

ALL_COURSES = "*"

BIND_NEEDS_ADMIN = "Sorry, only an administrator of this chat can bind it to a course."
BIND_NEEDS_INSTRUCTOR = (
    "Sorry, '{course}' is an existing course: only one of its instructors who also "
    "administers this chat can bind the chat to it."
)
CREATE_NEEDS_STAFF = (
    "Sorry, new courses are created by the site's staff here. Ask them to create "
    "'{course}' (coursebot course create) and make you its instructor."
)


class CourseCreation(StrEnum):
    """Who may create a course by binding a chat to a new course id."""

    CHAT_ADMINS = "chat_admins"
    SITE_STAFF = "site_staff"


def effective_roles(ctx: Context) -> frozenset[Role]:
    return frozenset().union(*(_IMPLIES[role] for role in ctx.roles))


def allowed(ctx: Context, action: Action) -> bool:
    return REQUIRED_ROLE[action] in effective_roles(ctx)


def require(ctx: Context, action: Action) -> None:
    """Raise a polite PermissionDeniedError unless the context may do `action`."""
    if not allowed(ctx, action):
        raise PermissionDeniedError(action.value, REQUIRED_ROLE[action].value)


@dataclass(frozen=True, slots=True)
class RoleGrants:
    """Roles from settings: course id (or "*") -> role name -> principals.

    A principal is matched by id everywhere. A role *name* (`discord:role:Teacher`) is
    matched only for its own course and only in a chat bound to that course: anyone can
    create a role called "Teacher" in a server of their own, so a name never counts for "*"
    or outside the course's own server."""

    grants: Mapping[str, Mapping[str, Sequence[str]]] = field(default_factory=dict)

    def roles(self, course_id: str, member: Member, *, bound_here: bool) -> frozenset[Role]:
        roles: set[Role] = set()
        for course in (course_id, ALL_COURSES):
            for role, members in self.grants.get(course, {}).items():
                named = set(members)
                by_name = course != ALL_COURSES and bound_here and member.role_names & named
                if member.ids & named or by_name:
                    roles.add(Role(role))
        return frozenset(roles)

    def site_staff(self, member: Member) -> bool:
        """Instructors of every course ("*"), by id: they create and transfer courses."""
        return bool(member.ids & set(self.grants.get(ALL_COURSES, {}).get("instructor", ())))


class Authority:
    """Every role decision: the settings' grants plus each course's staff in the database."""

    def __init__(
        self,
        grants: RoleGrants,
        courses: CourseRegistry,
        creation: CourseCreation = CourseCreation.CHAT_ADMINS,
    ) -> None:
        self._grants = grants
        self._courses = courses
        self._creation = creation

    async def roles(self, member: Member, course_id: str, *, bound_here: bool) -> frozenset[Role]:
        staff = await self._courses.staff_roles(course_id, member.ids)
        return (
            frozenset({Role.STUDENT})
            | staff
            | self._grants.roles(course_id, member, bound_here=bound_here)
        )

    def site_staff(self, member: Member) -> bool:
        return self._grants.site_staff(member)

    async def check_bind(self, member: Member, course_id: str, *, bound_here: bool) -> bool:
        """May `member` bind the chat they are in to `course_id`? Raises if not; returns
        whether the course is new (the binder then becomes its instructor)."""
        if not member.chat_admin:
            raise PermissionDeniedError.because(BIND_NEEDS_ADMIN)
        if await self._courses.get(course_id) is not None:
            roles = await self.roles(member, course_id, bound_here=bound_here)
            if Role.INSTRUCTOR not in roles:
                raise PermissionDeniedError.because(BIND_NEEDS_INSTRUCTOR.format(course=course_id))
            return False
        if self._creation is CourseCreation.SITE_STAFF and not self.site_staff(member):
            raise PermissionDeniedError.because(CREATE_NEEDS_STAFF.format(course=course_id))
        return True
