"""Which course a request is about, who it is in that course, and the commands that change
that: binding a chat, choosing or joining a course, inviting students, granting roles.

A chat's course is its binding (most specific first); a direct message's is the course the
member last used, but only while they may use it: they belong to it (wrote in a chat bound
to it, or joined by code), staff it, or it is open."""

from __future__ import annotations

import re
from collections import OrderedDict
from dataclasses import dataclass

from core.bindings import CourseBindings
from core.commands import BIND_USAGE, GRANT_USAGE
from core.context import Context, Member, Role
from core.courses.ids import parse_course_id
from core.courses.registry import CourseRegistry
from core.errors import BadInputError, PermissionDeniedError, UserFacingError
from core.permissions import Action, Authority, require
from core.replies import Notice
from core.requests import Place, Request

ALL_ROLES = frozenset(Role)
UNBOUND_CHAT = (
    "This chat is not bound to a course yet. An administrator of this chat who is the "
    "course's instructor can bind it with /bind COURSE."
)
NO_DM_COURSE = (
    "Which course is this about? Send /course COURSE once (for example /course calc101); "
    "after that your questions here are about it."
)
BIND_IN_DM = (
    "/bind is for groups and channels: send /bind COURSE there. In a direct message, choose "
    "your course with /course COURSE."
)
UNBIND_IN_DM = "/unbind is for groups and channels: send it in the chat to unbind."
NOT_BOUND_HERE = (
    "{name} has no binding of its own to remove (a Discord channel may follow its server's: "
    "unbind the server)."
)
COURSE_IN_GROUP = (
    "In a group, questions are about the course the group is bound to (/bind COURSE). "
    "Send /course COURSE to me in a direct message to choose what your direct messages are about."
)
NOT_YOURS = (
    "You are not in the course '{course}' (or it does not exist). Write in the course's group "
    "first, or join with the code your instructor shares: /course join CODE."
)
BAD_CODE = "That invite code is not valid. Ask your instructor for the course's code."
_PRINCIPAL = re.compile(r"[a-z]+:(role:)?[A-Za-z0-9_.@-]{1,64}")
_REMEMBERED = 10_000
_LINK_CODE = re.compile(r"[A-Za-z0-9_-]{1,64}")


class NoCourseError(UserFacingError):
    def __init__(self, place: Place) -> None:
        super().__init__(NO_DM_COURSE if place.direct else UNBOUND_CHAT)


@dataclass(frozen=True, slots=True)
class Scope:
    """A request's course and how it was found: `bound_here` when the chat is bound to it."""

    course_id: str
    bound_here: bool


class CourseAccess:
    def __init__(
        self, bindings: CourseBindings, courses: CourseRegistry, authority: Authority
    ) -> None:
        self._bindings = bindings
        self._courses = courses
        self._authority = authority
        # (platform, user) -> the course last recorded for them, to skip repeated writes.
        self._recorded: OrderedDict[tuple[str, str], str] = OrderedDict()

    # Reading: no writes, so autocomplete and lookups may call it freely ------------------

    async def scope(self, request: Request) -> Scope | None:
        if request.course is not None:  # the operator's choice, on the console
            return Scope(parse_course_id(request.course), bound_here=False)
        member, place = request.member, request.place
        if place.lookup:
            course = await self._bindings.bound_course(member.platform, place.lookup)
            return Scope(course, bound_here=True) if course else None
        course = await self._bindings.last_course(member.platform, member.user_id)
        if course is None or not await self._may_use(member, course):
            return None
        return Scope(course, bound_here=False)

    async def scope_in(self, request: Request, course_id: str) -> Scope | None:
        """The scope of a request that answers something the bot sent earlier in `course_id`
        (a poll vote names its poll, not the chat): bound here while the place is still
        bound to that course, as a message there would be; else only while the member may
        use the course, as in a direct message."""
        member, place = request.member, request.place
        if place.lookup:
            bound = await self._bindings.bound_course(member.platform, place.lookup)
            if bound == course_id:
                return Scope(course_id, bound_here=True)
        if await self._may_use(member, course_id):
            return Scope(course_id, bound_here=False)
        return None

    async def context(self, request: Request, scope: Scope) -> Context:
        member = request.member
        if request.operator:
            roles = ALL_ROLES
        else:
            roles = await self._authority.roles(
                member, scope.course_id, bound_here=scope.bound_here
            )
        return Context(
            platform=member.platform,
            course_id=scope.course_id,
            user_id=member.user_id,
            roles=roles,
            chat_id=request.place.chat_id,
            message_id=request.message_id,
            audience=request.place.audience,
        )

    async def my_courses(self, member: Member) -> list[str]:
        """The courses a member may pick: joined, staffed, or open."""
        mine = await self._courses.joined_courses(member.user_id)
        mine |= await self._courses.staffed_courses(member.ids)
        mine |= {c.course_id for c in await self._courses.all() if c.open}
        return sorted(mine)

    async def _may_use(self, member: Member, course_id: str) -> bool:
        if await self._courses.is_member(course_id, member.user_id):
            return True
        roles = await self._authority.roles(member, course_id, bound_here=False)
        if roles - {Role.STUDENT}:
            return True
        course = await self._courses.get(course_id)
        return course is not None and course.open

    # Writing: explicit, once per message at most ------------------------------------------

    async def record_presence(self, request: Request, scope: Scope) -> None:
        """A member who writes in a chat bound to a course belongs to it, and their direct
        messages are about it from then on."""
        if not scope.bound_here:
            return
        member = request.member
        key = (member.platform, member.user_id)
        if self._recorded.get(key) == scope.course_id:
            return
        await self._courses.join(scope.course_id, member.user_id, via="chat")
        await self._bindings.remember_course(member.platform, member.user_id, scope.course_id)
        self._recorded[key] = scope.course_id
        self._recorded.move_to_end(key)
        if len(self._recorded) > _REMEMBERED:
            self._recorded.popitem(last=False)

    async def bind(self, request: Request, argument: str) -> tuple[str, str] | None:
        """Bind the request's chat: the confirmation and the course, or None in a DM."""
        place, member = request.place, request.member
        if place.direct or place.bind_key is None:
            return None
        if not argument:
            raise BadInputError(BIND_USAGE)
        course_id = parse_course_id(argument)
        current = await self._bound_at(request)
        here = await self._bindings.bound_course(member.platform, place.lookup)
        if request.operator:
            new = await self._courses.get(course_id) is None
        else:
            new = await self._authority.check_bind(member, course_id, current=current, here=here)
        if new and not await self._courses.create(
            course_id, member.user_id, instructor=member.user_id
        ):
            # Someone created it a moment ago: it is an existing course now.
            await self._authority.check_bind(member, course_id, current=current, here=here)
            new = False
        await self._bindings.bind(member.platform, place.bind_key, course_id, member.user_id)
        await self._courses.join(course_id, member.user_id, via="chat")
        created = " You created it, so you are its instructor." if new else ""
        return f"{place.name} is now bound to the course '{course_id}'.{created}", course_id

    async def unbind(self, request: Request) -> str | None:
        """`/unbind`: remove the chat's own binding; the confirmation, or None in a DM. Its
        members stay in the course, and their direct messages stay about it."""
        place, member = request.place, request.member
        if place.direct or place.bind_key is None:
            return None
        current = await self._bindings.bound_course(member.platform, (place.bind_key,))
        if current is None:
            raise BadInputError(NOT_BOUND_HERE.format(name=place.name))
        if not request.operator:
            here = await self._bindings.bound_course(member.platform, place.lookup)
            await self._authority.check_unbind(member, current, bound_here=here == current)
        await self._bindings.unbind(member.platform, place.bind_key)
        return f"{place.name} is no longer bound to the course '{current}'."

    async def _bound_at(self, request: Request) -> str | None:
        """The course the chat `/bind` would bind is bound to now: its own binding, else
        the one it inherits (a Discord channel its server's), never a more specific one
        below it (a channel's, when the server is bound)."""
        place = request.place
        keys = place.lookup
        if place.bind_key in keys:
            keys = keys[keys.index(place.bind_key) :]
        elif place.bind_key is not None:
            keys = (place.bind_key,)
        return await self._bindings.bound_course(request.member.platform, keys)

    async def choose(self, request: Request, argument: str) -> tuple[str, str | None]:
        """`/course`: show the DM course, `/course ID` choose it, `/course join CODE`. The
        reply's text, and the course chosen (if one was)."""
        member = request.member
        words = argument.split()
        if words[:1] == ["join"]:
            return await self._join(member, words[1] if len(words) > 1 else "")
        if not request.place.direct:
            return COURSE_IN_GROUP, None
        if not argument:
            current = await self.scope(request)
            if current is None:
                return NO_DM_COURSE, None
            text = (
                f"Your direct messages are about the course '{current.course_id}'. "
                "Send /course COURSE to change it."
            )
            return text, None
        course_id = parse_course_id(argument)
        if not await self._may_use(member, course_id):
            raise BadInputError(NOT_YOURS.format(course=course_id))
        await self._courses.join(course_id, member.user_id, via="chosen")
        await self._bindings.remember_course(member.platform, member.user_id, course_id)
        # The next line they write in a bound chat makes that chat's course theirs again.
        self._recorded.pop((member.platform, member.user_id), None)
        return f"Your direct messages are now about the course '{course_id}'.", course_id

    async def _join(self, member: Member, code: str) -> tuple[str, str]:
        course_id = await self._courses.by_invite(code) if code else None
        if course_id is None:
            raise BadInputError(BAD_CODE)
        await self._courses.join(course_id, member.user_id, via="invite")
        await self._bindings.remember_course(member.platform, member.user_id, course_id)
        self._recorded.pop((member.platform, member.user_id), None)
        return f"Welcome to '{course_id}'. Your direct messages are now about it.", course_id

    async def invite(self, ctx: Context, state: str | None, *, link: str = "") -> Notice:
        """`/invite` shows the code (and, where the platform has them, the link that joins
        in one tap: `link` with the code in it); `/invite open|closed` sets who may choose
        the course."""
        require(ctx, Action.MANAGE_COURSE)
        if state is not None:
            await self._courses.set_open(ctx.course_id, state == "open")
            who = "anyone may choose it" if state == "open" else "students join by code or chat"
            return Notice(f"The course '{ctx.course_id}' is now {state}: {who}.")
        code = await self._courses.invite_code(ctx.course_id)
        text = (
            f"Students join '{ctx.course_id}' by sending me, in a direct message: "
            f"/course join {code}"
        )
        # A start link's payload may only hold letters, digits, '_' and '-' (Telegram's
        # rule); older codes made from a course id with '.' have no link.
        if link and _LINK_CODE.fullmatch(code):
            text = f"{text}\nor by opening this link: {link.format(code=code)}"
        return Notice(text)

    # Staff --------------------------------------------------------------------------------

    async def grant(
        self, ctx: Context, role_name: str, principal: str, *, revoke: bool = False
    ) -> Notice:
        """`/grant ROLE WHO` (or `/revoke`): a staff role on the course, for a user or a
        platform role."""
        require(ctx, Action.MANAGE_STAFF)
        command = "revoke" if revoke else "grant"
        role = Role(role_name)
        if not _PRINCIPAL.fullmatch(principal):
            raise BadInputError(GRANT_USAGE.format(command=command))
        if revoke:
            if role is Role.INSTRUCTOR and await self._last_instructor(ctx.course_id, principal):
                raise BadInputError(
                    f"{principal} is the last instructor of '{ctx.course_id}': grant the role "
                    "to someone else first."
                )
            if not await self._courses.revoke(ctx.course_id, principal, role):
                raise BadInputError(f"{principal} is not {_a(role)} of '{ctx.course_id}'.")
            return Notice(f"{principal} is no longer {_a(role)} of '{ctx.course_id}'.")
        await self._courses.grant(ctx.course_id, principal, role, ctx.user_id)
        return Notice(f"{principal} is now {_a(role)} of '{ctx.course_id}'.")

    async def transfer(self, request: Request, ctx: Context, principal: str) -> Notice:
        """Site staff hand a course created under the wrong hands to someone else: every
        earlier staff grant goes."""
        if not (request.operator or self._authority.site_staff(request.member)):
            raise PermissionDeniedError.because(
                "Sorry, only the site's staff can hand a course to another instructor."
            )
        if not _PRINCIPAL.fullmatch(principal):
            raise BadInputError("Usage: /transfer USER (the course's new instructor).")
        await self._courses.transfer(ctx.course_id, principal, ctx.user_id)
        return Notice(
            f"'{ctx.course_id}' now belongs to {principal}; earlier staff roles are gone."
        )

    async def _last_instructor(self, course_id: str, principal: str) -> bool:
        instructors = [
            g.principal for g in await self._courses.staff(course_id) if g.role is Role.INSTRUCTOR
        ]
        return instructors == [principal]

    async def staff(self, ctx: Context) -> Notice:
        require(ctx, Action.MANAGE_STAFF)
        grants = await self._courses.staff(ctx.course_id)
        if not grants:
            return Notice(
                f"'{ctx.course_id}' has no staff of its own (roles may still come from the "
                "settings)."
            )
        lines = [f"Staff of '{ctx.course_id}':"]
        lines += [f"  {g.role.value}: {g.principal} (granted by {g.granted_by})" for g in grants]
        return Notice("\n".join(lines))


def _a(role: Role) -> str:
    return f"an {role.value}" if role.value[0] in "aeiou" else f"a {role.value}"
