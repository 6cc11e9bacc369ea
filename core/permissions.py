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
    REVIEW_QUESTIONS = "review the class's questions and votes"
    ANSWER_QUESTIONS = "answer the class's unanswered questions"
    BIND = "bind this chat to a course"
    MANAGE_STAFF = "grant or revoke course roles"
    MANAGE_COURSE = "change who may join the course"
    SET_ADVISING = "set the course's advising rules"
    MANAGE_SCHEDULES = "schedule ingestion, quizzes and reminders"


REQUIRED_ROLE: dict[Action, Role] = {
    Action.INGEST: Role.INSTRUCTOR,
    Action.FORGET: Role.INSTRUCTOR,
    Action.REVIEW_MISTAKES: Role.MODERATOR,
    Action.REVIEW_QUESTIONS: Role.MODERATOR,
    # The course's staff answer; the answer joins the material as theirs, named and dated.
    Action.ANSWER_QUESTIONS: Role.MODERATOR,
    Action.BIND: Role.INSTRUCTOR,
    Action.MANAGE_STAFF: Role.INSTRUCTOR,
    Action.MANAGE_COURSE: Role.INSTRUCTOR,
    Action.SET_ADVISING: Role.INSTRUCTOR,
    Action.MANAGE_SCHEDULES: Role.INSTRUCTOR,
}

# An instructor may do whatever a moderator may.
_IMPLIES: dict[Role, frozenset[Role]] = {
    Role.INSTRUCTOR: frozenset({Role.INSTRUCTOR, Role.MODERATOR, Role.STUDENT}),
    Role.MODERATOR: frozenset({Role.MODERATOR, Role.STUDENT}),
    Role.STUDENT: frozenset({Role.STUDENT}),
}

ALL_COURSES = "*"


def holders(role: Role) -> tuple[Role, ...]:
    """The roles that may do what `role` may (a moderator's command: instructors,
    moderators), highest first."""
    return tuple(held for held in _IMPLIES if role in _IMPLIES[held])


BIND_NEEDS_ADMIN = "Sorry, only an administrator of this chat can bind it to a course."
BIND_NEEDS_INSTRUCTOR = (
    "Sorry, '{course}' is an existing course: only one of its instructors who also "
    "administers this chat can bind the chat to it."
)
CREATE_NEEDS_STAFF = (
    "Sorry, new courses are created by the site's staff here. Ask them to create "
    "'{course}' (coursebot course create) and make you its instructor."
)
CREATE_NEEDS_CONFIGURED = (
    "Sorry, the course '{course}' is set up for its own instructors: only one of them (or "
    "the site's staff) can create it by binding a chat they administer."
)
REBIND_NEEDS_INSTRUCTOR = (
    "Sorry, this chat is bound to the course '{current}': only an instructor of '{current}' "
    "who administers this chat, or the site's staff, can bind it to another course or unbind "
    "it."
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

    def configured(self, course_id: str) -> bool:
        """Whether the settings name `course_id`: it is then its configured staff's."""
        return course_id != ALL_COURSES and course_id in self.grants

    def configured_instructor(self, course_id: str, member: Member) -> bool:
        """An instructor of `course_id` in the settings, by id: a role *name* never vouches
        for creating a course, since anyone can make a role of that name in their own
        server."""
        listed = self.grants.get(course_id, {}).get(Role.INSTRUCTOR.value, ())
        return bool(member.ids & set(listed))


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

    async def check_bind(
        self, member: Member, course_id: str, *, current: str | None, here: str | None = None
    ) -> bool:
        """May `member` bind a chat now bound to `current` (None: unbound) to `course_id`?
        `here` is the course of the place they speak in (a channel of the server they bind
        may have its own), where role names count. Raises if not; returns whether the course
        is new (the binder then becomes its instructor).

        A chat admin binds; a chat bound to a course stays with it unless that course's
        instructor or the site's staff move it (a co-admin would otherwise take the class's
        group, its members and their direct messages to a course of their own); an existing
        course is bound by its instructors; a course the settings name is created by its
        configured instructors or site staff only (any chat admin could otherwise create it
        first and become its instructor)."""
        if not member.chat_admin:
            raise PermissionDeniedError.because(BIND_NEEDS_ADMIN)
        if current is not None and current != course_id:
            await self.check_release(member, current, bound_here=here == current)
        if await self._courses.get(course_id) is not None:
            roles = await self.roles(member, course_id, bound_here=here == course_id)
            if Role.INSTRUCTOR not in roles:
                raise PermissionDeniedError.because(BIND_NEEDS_INSTRUCTOR.format(course=course_id))
            return False
        staff = self.site_staff(member)
        if self._grants.configured(course_id):
            if not (staff or self._grants.configured_instructor(course_id, member)):
                raise PermissionDeniedError.because(
                    CREATE_NEEDS_CONFIGURED.format(course=course_id)
                )
        elif self._creation is CourseCreation.SITE_STAFF and not staff:
            raise PermissionDeniedError.because(CREATE_NEEDS_STAFF.format(course=course_id))
        return True

    async def check_unbind(self, member: Member, current: str, *, bound_here: bool) -> None:
        """May `member` unbind the chat they are in from `current`? A chat admin who may
        take it away from its course (see `check_release`)."""
        if not member.chat_admin:
            raise PermissionDeniedError.because(BIND_NEEDS_ADMIN)
        await self.check_release(member, current, bound_here=bound_here)

    async def check_release(self, member: Member, current: str, *, bound_here: bool) -> None:
        """May `member` take a chat away from `current`, the course it is bound to (to bind
        it elsewhere, or unbind it)? Its instructors and the site's staff may; `bound_here`
        when they speak in a place bound to `current` (where role names count)."""
        if self.site_staff(member):
            return
        if Role.INSTRUCTOR not in await self.roles(member, current, bound_here=bound_here):
            raise PermissionDeniedError.because(REBIND_NEEDS_INSTRUCTOR.format(current=current))
