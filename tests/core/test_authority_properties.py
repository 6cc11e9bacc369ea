"""Who may do what, and who sees what, as properties of the real core driven through its one
entry (`CourseBot.handle`). Hypothesis draws courses, chats on two platforms, chat admins,
role grants (in the settings: by id, by role name, for "*"; in the database: the creator of
a course and whoever its instructors /grant), audiences and questions:

(a) nobody gains a role on a course they were not granted: a chat admin is granted nothing,
    a role *name* counts only for its own course in a chat bound to it, and every /bind,
    /grant, /revoke, /invite, /course, /ingest and /mistakes is accepted or refused exactly
    as an independent statement of the rules (`Rules` below) predicts;
(b) no private note of anyone appears in a reply to a shared audience (answers, citations,
    /sources, autocomplete);
(c) a student's notes appear where the student alone reads the reply, and nowhere else.
"""

from __future__ import annotations

import asyncio
import itertools
import shutil
import tempfile
import uuid
from collections.abc import Iterator
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from qdrant_client import AsyncQdrantClient

from bot import composition
from bot.composition import open_assembly, open_core
from config import Settings
from core.context import Audience, Member, Role
from core.course_bot import CourseBot
from core.courses.access import NO_DM_COURSE, NOT_YOURS, UNBOUND_CHAT
from core.errors import BadInputError
from core.material import SourceFile
from core.permissions import RoleGrants
from core.replies import ErrorReply, Notice, SourceList
from core.requests import Place, Request, Response

UNTHROTTLED = "100000/minute"
BOUNDED = {
    "deadline": None,
    "suppress_health_check": [HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
}


def request(member: Member, place: Place, text: str, *, operator: bool = False) -> Request:
    return Request(member, place, f"prop:{uuid.uuid4()}", text=text, operator=operator)


def reply_text(response: Response) -> str:
    [reply] = response.replies
    assert isinstance(reply, Notice | ErrorReply), reply
    return reply.text


# (a) Roles --------------------------------------------------------------------------------

COURSES = ("calc101", "phys201", "chem110")
USERS = ("1", "2", "3")
SERVER_ROLE = {"server:g1": "discord:role:11", "server:g2": "discord:role:22"}
ROLE_NAMES = ("discord:role:Teacher", "discord:role:TA")
PRINCIPALS = (
    *(f"telegram:{u}" for u in USERS),
    *(f"discord:{u}" for u in USERS),
    *SERVER_ROLE.values(),
    *ROLE_NAMES,
)
INGEST_REFUSED = "Sorry, only a course instructor can add course material."
MISTAKES_REFUSED = "Sorry, only a course moderator can review the class's mistakes."


@dataclass(frozen=True)
class Spot:
    """A chat: `chat` is what its admins administer (the group, the Discord server)."""

    platform: str
    chat_id: str
    lookup: tuple[str, ...]
    bind_key: str
    whisper: bool

    @property
    def chat(self) -> str:
        return self.lookup[-1]

    def place(self) -> Place:
        return Place(
            Audience.SHARED,
            chat_id=self.chat_id,
            lookup=self.lookup,
            bind_key=self.bind_key,
            whisper=self.whisper,
        )


SPOTS = (
    Spot("telegram", "-100", ("chat:-100",), "chat:-100", whisper=False),
    Spot("telegram", "-200", ("chat:-200",), "chat:-200", whisper=False),
    Spot("discord", "c1", ("channel:c1", "server:g1"), "channel:c1", whisper=True),
    Spot("discord", "c1", ("channel:c1", "server:g1"), "server:g1", whisper=True),  # /bind server
    Spot("discord", "c2", ("channel:c2", "server:g1"), "channel:c2", whisper=True),
    Spot("discord", "c3", ("channel:c3", "server:g2"), "server:g2", whisper=True),
)
PROBED = tuple({spot.chat_id: spot for spot in SPOTS}.values())


@dataclass(frozen=True)
class Bind:
    user: str
    spot: int
    course: str


@dataclass(frozen=True)
class Grant:
    user: str
    spot: int
    role: Role
    target: str
    revoke: bool


@dataclass(frozen=True)
class Invite:
    user: str
    spot: int
    open: bool


@dataclass(frozen=True)
class Choose:
    platform: str
    user: str
    course: str


@dataclass(frozen=True)
class Write:
    user: str
    spot: int


@dataclass(frozen=True)
class Create:
    """The operator creates a course from the command line."""

    course: str
    instructor: str


Step = Bind | Grant | Invite | Choose | Write | Create


@dataclass(frozen=True)
class World:
    grants: dict[str, dict[str, list[str]]]
    creation: str
    admins: frozenset[tuple[str, str]]  # (chat, user): on either platform's chats
    held: frozenset[tuple[str, str, str]]  # (server, user, role id or role name): Discord
    steps: tuple[Step, ...]

    def member(self, platform: str, user: str, spot: Spot | None = None) -> Member:
        """The member as their platform's adapter reports them: in a direct message no
        server vouches for roles, and nobody administers it."""
        user_id = f"{platform}:{user}"
        if spot is None:
            return Member(platform, user_id)
        held = {p for s, u, p in self.held if s == spot.chat and u == user}
        if platform != "discord":
            held = set()
        return Member(
            platform,
            user_id,
            principals=frozenset(p for p in held if p == SERVER_ROLE.get(spot.chat)),
            chat_admin=(spot.chat, user) in self.admins,
            role_names=frozenset(p for p in held if p in ROLE_NAMES),
        )


@dataclass
class Rules:
    """The design's rules, restated: what the core must decide, step by step."""

    world: World
    staff: dict[str, set[tuple[str, Role]]] = field(default_factory=dict)  # course -> grants
    open: set[str] = field(default_factory=set)
    bound: dict[tuple[str, str], str] = field(default_factory=dict)  # (platform, key) -> course
    joined: set[tuple[str, str]] = field(default_factory=set)  # (course, user id)
    last: dict[tuple[str, str], str] = field(default_factory=dict)  # (platform, user) -> course

    def roles(self, member: Member, course: str, *, bound_here: bool) -> set[Role]:
        """Everyone is a student. A settings grant counts by id for its course or "*"; a role
        name only for its own course, where the chat is bound to it; a database grant by id.
        Being a chat admin counts for nothing. An instructor may do what a moderator may."""
        roles = {Role.STUDENT}
        roles |= {role for who, role in self.staff.get(course, ()) if who in member.ids}
        for key, table in self.world.grants.items():
            for role, listed in table.items():
                by_id = key in (course, "*") and bool(member.ids & set(listed))
                by_name = key == course and bound_here and bool(member.role_names & set(listed))
                if by_id or by_name:
                    roles.add(Role(role))
        if Role.INSTRUCTOR in roles:
            roles.add(Role.MODERATOR)
        return roles

    def site_staff(self, member: Member) -> bool:
        return bool(member.ids & set(self.world.grants.get("*", {}).get("instructor", ())))

    def course_at(self, spot: Spot) -> str | None:
        keys = [key for key in spot.lookup if (spot.platform, key) in self.bound]
        return self.bound[(spot.platform, keys[0])] if keys else None

    def wrote(self, member: Member, spot: Spot) -> str | None:
        """Writing in a bound chat joins its course and makes it the member's DM course."""
        course = self.course_at(spot)
        if course is not None:
            self.joined.add((course, member.user_id))
            self.last[(member.platform, member.user_id)] = course
        return course

    def may_use(self, member: Member, course: str) -> bool:
        return (
            (course, member.user_id) in self.joined
            or bool(self.roles(member, course, bound_here=False) - {Role.STUDENT})
            or course in self.open
        )

    def dm_course(self, member: Member) -> str | None:
        course = self.last.get((member.platform, member.user_id))
        return course if course is not None and self.may_use(member, course) else None

    def bound_at(self, spot: Spot) -> str | None:
        """The course of the chat /bind binds: its own binding, else what it inherits."""
        keys = spot.lookup[spot.lookup.index(spot.bind_key) :]
        bound = [key for key in keys if (spot.platform, key) in self.bound]
        return self.bound[(spot.platform, bound[0])] if bound else None

    def bind(self, member: Member, spot: Spot, course: str) -> bool:
        """A chat admin binds. A bound chat moves to another course only by an instructor
        of the course it is bound to (roles as in a chat bound to it) or site staff. An
        existing course: only its instructors bind to it. A course the settings name: only
        its instructors there (by id) or site staff create it."""
        if not member.chat_admin:
            return False
        current, here = self.bound_at(spot), self.course_at(spot)
        if current is not None and current != course:
            mover = Role.INSTRUCTOR in self.roles(member, current, bound_here=here == current)
            if not (mover or self.site_staff(member)):
                return False
        configured = self.world.grants.get(course, {}).get("instructor", ())
        if course in self.staff:  # an existing course: only its instructors bind to it
            if Role.INSTRUCTOR not in self.roles(member, course, bound_here=here == course):
                return False
        elif course in self.world.grants:
            if not (self.site_staff(member) or member.ids & set(configured)):
                return False
            self.staff[course] = {(member.user_id, Role.INSTRUCTOR)}
        elif self.world.creation == "site_staff" and not self.site_staff(member):
            return False
        else:
            self.staff[course] = {(member.user_id, Role.INSTRUCTOR)}
        self.bound[(spot.platform, spot.bind_key)] = course
        self.joined.add((course, member.user_id))
        return True

    def instructs(self, member: Member, course: str) -> bool:
        return Role.INSTRUCTOR in self.roles(member, course, bound_here=True)

    def grant(self, member: Member, course: str, step: Grant) -> bool:
        if not self.instructs(member, course):
            return False
        grants = self.staff[course]
        if not step.revoke:
            grants.add((step.target, step.role))
            return True
        instructors = {who for who, role in grants if role is Role.INSTRUCTOR}
        if step.role is Role.INSTRUCTOR and instructors == {step.target}:
            return False  # the last instructor stays
        if (step.target, step.role) not in grants:
            return False
        grants.discard((step.target, step.role))
        return True

    def create(self, course: str, instructor: str) -> bool:
        if course in self.staff:
            return False
        self.staff[course] = {(instructor, Role.INSTRUCTOR)}
        return True


users = st.sampled_from(USERS)
spots = st.integers(0, len(SPOTS) - 1)
courses = st.sampled_from(COURSES)
roles_ = st.sampled_from([Role.INSTRUCTOR, Role.MODERATOR])
principals = st.sampled_from(PRINCIPALS)
chats = st.sampled_from(sorted({s.chat for s in SPOTS}))
grant_tables = st.dictionaries(
    st.sampled_from((*COURSES, "*")),
    st.dictionaries(
        st.sampled_from(["instructor", "moderator"]),
        st.lists(principals, max_size=3),
        max_size=2,
    ),
    max_size=3,
)


def steps_at(who: st.SearchStrategy[tuple[str, int]]) -> st.SearchStrategy[Step]:
    """Any step, by someone (`who`: a user and a chat) drawn from the given ones."""
    grant = who.flatmap(
        lambda w: st.builds(Grant, st.just(w[0]), st.just(w[1]), roles_, principals, st.booleans())
    )
    return st.one_of(
        who.flatmap(lambda w: st.builds(Bind, st.just(w[0]), st.just(w[1]), courses)),
        grant,
        grant,
        who.flatmap(lambda w: st.builds(Invite, st.just(w[0]), st.just(w[1]), st.booleans())),
        who.flatmap(lambda w: st.builds(Write, st.just(w[0]), st.just(w[1]))),
        st.builds(Choose, st.sampled_from(["telegram", "discord"]), users, courses),
        st.builds(Create, courses, principals),
    )


@st.composite
def worlds(draw: st.DrawFn) -> World:
    """Mostly chats that get bound, by people who administer them, and steps by those
    people where they bound (who are the ones whose steps may succeed), among others."""
    binds = draw(st.lists(st.builds(Bind, users, spots, courses), min_size=1, max_size=3))
    admins = {(SPOTS[b.spot].chat, b.user) for b in binds if draw(st.integers(0, 3))}
    admins |= draw(st.frozensets(st.tuples(chats, users), max_size=4))
    binders = st.sampled_from([(b.user, b.spot) for b in binds])
    anyone = st.tuples(users, spots)
    rest = draw(st.lists(steps_at(binders | binders | anyone), min_size=4, max_size=12))
    return World(
        grants=draw(grant_tables),
        creation=draw(st.sampled_from(["chat_admins", "chat_admins", "site_staff"])),
        admins=frozenset(admins),
        held=draw(
            st.frozensets(
                st.tuples(
                    st.sampled_from(sorted(SERVER_ROLE)),
                    users,
                    st.sampled_from((*SERVER_ROLE.values(), *ROLE_NAMES)),
                ),
                max_size=5,
            )
        ),
        steps=(*binds, *rest),
    )


class Checker:
    def __init__(self, bot: CourseBot, world: World) -> None:
        self.bot = bot
        self.world = world
        self.rules = Rules(world)

    async def say(self, member: Member, place: Place, text: str) -> str:
        return reply_text(await self.bot.handle(request(member, place, text)))

    async def step(self, step: Step) -> None:
        rules = self.rules
        if isinstance(step, Create):
            try:
                await self.bot.create_course(step.course, step.instructor)
                created = True
            except BadInputError:
                created = False
            assert created == rules.create(step.course, step.instructor), step
            return
        if isinstance(step, Choose):
            member = self.world.member(step.platform, step.user)
            text = await self.say(member, Place(Audience.PRIVATE), f"/course {step.course}")
            chosen = text.startswith("Your direct messages are now about")
            assert chosen or text == NOT_YOURS.format(course=step.course), text
            expected = rules.may_use(member, step.course)
            assert chosen == expected, (step, text)
            if chosen:
                rules.joined.add((step.course, member.user_id))
                rules.last[(member.platform, member.user_id)] = step.course
            return
        spot = SPOTS[step.spot]
        member = self.world.member(spot.platform, step.user, spot)
        if isinstance(step, Bind):
            text = await self.say(member, spot.place(), f"/bind {step.course}")
            assert rules.bind(member, spot, step.course) == ("is now bound" in text), (step, text)
            return
        if isinstance(step, Grant):
            command = "revoke" if step.revoke else "grant"
            text = await self.say(
                member, spot.place(), f"/{command} {step.role.value} {step.target}"
            )
        elif isinstance(step, Invite):
            text = await self.say(
                member, spot.place(), "/invite open" if step.open else "/invite closed"
            )
        else:
            [listed] = (await self.bot.handle(request(member, spot.place(), "/sources"))).replies
            text = listed.text if isinstance(listed, ErrorReply) else ""
        course = rules.wrote(member, spot)
        if course is None:
            assert text == UNBOUND_CHAT, (step, text)
            return
        if isinstance(step, Grant):
            done = text.startswith((f"{step.target} is now a", f"{step.target} is no longer a"))
            assert done == rules.grant(member, course, step), (step, text)
        elif isinstance(step, Invite):
            done = text.startswith(f"The course '{course}' is now")
            assert done == rules.instructs(member, course), (step, text)
            if done:
                (rules.open.add if step.open else rules.open.discard)(course)

    async def probe_roles(
        self, member: Member, place: Place, course: str, *, bound_here: bool
    ) -> None:
        """What the core lets `member` do in `course` is what the rules grant, no more."""
        expected = self.rules.roles(member, course, bound_here=bound_here)
        text = await self.say(member, place, "/ingest")
        assert text.startswith("Send the files now") or text == INGEST_REFUSED, text
        got = text.startswith("Send the files now")
        assert got == (Role.INSTRUCTOR in expected), (member, course, place, text)
        if place.whisper or place.audience is Audience.PRIVATE:
            text = await self.say(member, place, "/mistakes")
            assert text.startswith("No mistakes logged") or text == MISTAKES_REFUSED, text
            got = text.startswith("No mistakes logged")
            assert got == (Role.MODERATOR in expected), (member, course, place, text)

    async def probe(self) -> None:
        # Direct messages first: what the steps left behind, before the probes below write
        # in every chat.
        for platform in ("telegram", "discord"):
            for user in USERS:
                member = self.world.member(platform, user)
                dm = Place(Audience.PRIVATE, chat_id=user)
                text = await self.say(member, dm, "/course")
                course = self.rules.dm_course(member)
                if course is None:
                    assert text == NO_DM_COURSE, (member, text)
                    continue
                assert f"about the course '{course}'" in text, (member, text)
                await self.probe_roles(member, dm, course, bound_here=False)
        for spot in PROBED:
            for user in USERS:
                member = self.world.member(spot.platform, user, spot)
                course = self.rules.wrote(member, spot)
                if course is None:
                    assert await self.say(member, spot.place(), "/ingest") == UNBOUND_CHAT
                    continue
                await self.probe_roles(member, spot.place(), course, bound_here=True)


async def check_roles(world: World, data_dir: Path) -> None:
    overrides: dict[str, Any] = {
        "course_roles": world.grants,
        "course_creation": world.creation,
        "rate_limit": UNTHROTTLED,
        "place_rate_limit": UNTHROTTLED,
    }
    settings_ = Settings(_env_file=None, data_dir=data_dir, **overrides)  # type: ignore[call-arg]
    async with open_core(settings_) as bot:
        checker = Checker(bot, world)
        for step in world.steps:
            await checker.step(step)
        await checker.probe()


@pytest.fixture
def fresh_data_dirs(tmp_path: Path, bundled_model: None) -> Iterator[Iterator[Path]]:
    """A data dir per example, each starting from one migrated SQLite database (migrating
    takes longer than the example). The index is Qdrant's in-memory engine: (a) is about
    roles, and (b) and (c) below run on the default engine."""
    template = tmp_path / "template"

    async def migrate_once() -> None:
        async with open_core(Settings(_env_file=None, data_dir=template)):  # type: ignore[call-arg]
            pass

    asyncio.run(migrate_once())
    database = next(template.glob("*.db"))

    def dirs() -> Iterator[Path]:
        for n in itertools.count():
            data_dir = tmp_path / f"example-{n}"
            data_dir.mkdir()
            shutil.copy(database, data_dir / database.name)
            yield data_dir

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(
            composition, "qdrant_client", lambda _s: AsyncQdrantClient(location=":memory:")
        )
        yield dirs()


# A member who chose another course for their DMs and writes in the group again: their DMs
# are about the group's course again (on every replica, not only the one that saw them first).
RETURNING_TO_THE_GROUP = World(
    grants={},
    creation="chat_admins",
    admins=frozenset({("chat:-100", "1"), ("chat:-200", "1")}),
    held=frozenset(),
    steps=(
        Bind("1", 0, "calc101"),
        Bind("1", 1, "phys201"),
        Write("2", 0),
        Write("2", 1),
        Choose("telegram", "2", "calc101"),
        Write("2", 1),
    ),
)


# Someone who administers a server of their own with a role named like the course's
# instructors' ("Teacher"): binding it to the course is refused, and the name counts for
# nothing there; in the course's own server it counts, for that course only.
A_ROLE_OF_THE_SAME_NAME = World(
    grants={"calc101": {"instructor": ["discord:role:Teacher"]}},
    creation="chat_admins",
    admins=frozenset({("server:g2", "2"), ("server:g1", "1")}),
    held=frozenset(
        {("server:g2", "2", "discord:role:Teacher"), ("server:g1", "3", "discord:role:Teacher")}
    ),
    steps=(
        Bind("1", 3, "calc101"),
        Bind("1", 4, "phys201"),
        Bind("2", 5, "calc101"),
        Bind("2", 5, "chem110"),
        Write("3", 2),
        Write("3", 4),
        Grant("3", 2, Role.MODERATOR, "discord:2", revoke=False),
        Grant("3", 4, Role.MODERATOR, "discord:2", revoke=False),
        Grant("1", 3, Role.MODERATOR, "discord:2", revoke=True),
        Grant("1", 3, Role.INSTRUCTOR, "discord:1", revoke=True),
        Grant("1", 3, Role.INSTRUCTOR, "discord:role:Teacher", revoke=False),
        Bind("2", 5, "calc101"),
    ),
)


@pytest.mark.filterwarnings("ignore:Payload indexes have no effect")
def test_nobody_gains_a_role_they_were_not_granted(fresh_data_dirs: Iterator[Path]) -> None:
    @settings(max_examples=50, **BOUNDED)
    @given(world=worlds())
    @example(world=RETURNING_TO_THE_GROUP)
    @example(world=A_ROLE_OF_THE_SAME_NAME)
    def run(world: World) -> None:
        asyncio.run(check_roles(world, next(fresh_data_dirs)))

    run()


# The role computation alone: the settings grants, for any member anywhere.

members = st.builds(
    Member,
    platform=st.sampled_from(["telegram", "discord"]),
    user_id=st.sampled_from(PRINCIPALS[:6]),
    principals=st.frozensets(st.sampled_from(PRINCIPALS), max_size=3),
    chat_admin=st.booleans(),
    role_names=st.frozensets(st.sampled_from(ROLE_NAMES), max_size=2),
)


@settings(max_examples=300, deadline=None)
@given(
    grants=grant_tables,
    member=members,
    course=courses,
    bound_here=st.booleans(),
)
def test_settings_grants_name_their_holders(
    grants: dict[str, dict[str, list[str]]], member: Member, course: str, bound_here: bool
) -> None:
    table = RoleGrants(grants)
    roles = table.roles(course, member, bound_here=bound_here)
    for role in roles:
        listed = {
            *grants.get(course, {}).get(role.value, ()),
            *grants.get("*", {}).get(role.value, ()),
        }
        own = set(grants.get(course, {}).get(role.value, ()))
        assert member.ids & listed or (bound_here and member.role_names & own), (role, member)
    # Administering the chat changes nothing; outside a bound chat, names change nothing.
    admin = Member(
        member.platform,
        member.user_id,
        member.principals,
        not member.chat_admin,
        role_names=member.role_names,
    )
    assert table.roles(course, admin, bound_here=bound_here) == roles
    nameless = Member(member.platform, member.user_id, member.principals, member.chat_admin)
    assert table.roles(course, member, bound_here=False) == table.roles(
        course, nameless, bound_here=False
    )
    if table.site_staff(member):
        assert member.ids & set(grants["*"]["instructor"])


# (b) and (c) Private notes ---------------------------------------------------------------

PUBLIC = (
    "# Syllabus\n\nThe final exam is on 14 December at 09:00 in Hall A. Late homework loses "
    "10% of its score per day. The vault of old exams is in the library basement.\n"
)
QUESTIONS = (
    "What is the vault code word?",
    "vault code word",
    "and the code word?",
    "When is the final exam?",
    "/ask Which code word opens the vault?",
)
OWN_QUESTION = "What is the vault code word?"


@dataclass(frozen=True)
class Note:
    course: int
    platform: str
    owner: int


@dataclass(frozen=True)
class Ask:
    platform: str
    user: int
    course: int
    in_dm: bool
    audience: Audience  # of a Discord channel: the adapter may answer ephemerally
    question: str


notes_ = st.lists(
    st.builds(Note, st.integers(0, 1), st.sampled_from(["telegram", "discord"]), st.integers(0, 2)),
    min_size=1,
    max_size=5,
)
asks = st.lists(
    st.builds(
        Ask,
        st.sampled_from(["telegram", "discord"]),
        st.integers(0, 2),
        st.integers(0, 1),
        st.booleans(),
        st.sampled_from(list(Audience)),
        st.sampled_from(QUESTIONS),
    ),
    min_size=1,
    max_size=6,
)


class Tenancy:
    """One example's courses, chats and people, named apart from every other example's in
    the one core these examples share."""

    def __init__(self, bot: CourseBot, n: int, folder: Path) -> None:
        self.bot = bot
        self.n = n
        self.folder = folder
        self.courses = (f"t{n}-a", f"t{n}-b")

    def user(self, platform: str, k: int) -> Member:
        return Member(platform, f"{platform}:{self.n}0{k}")

    def chat(self, platform: str, course: int, audience: Audience = Audience.SHARED) -> Place:
        if platform == "telegram":
            key = f"chat:-{self.n}0{course}"
            return Place(Audience.SHARED, chat_id=key, lookup=(key,), bind_key=key)
        # Course a is bound on the server, course b on its own channel.
        channel, server = f"channel:{self.n}0{course}", f"server:{self.n}0{course}"
        bind_key = server if course == 0 else channel
        return Place(
            audience, chat_id=channel, lookup=(channel, server), bind_key=bind_key, whisper=True
        )

    def marker(self, note: Note) -> str:
        return f"vaultword{self.n}x{note.course}{note.platform[0]}{note.owner}q"

    async def set_up(self, notes: list[Note]) -> None:
        for platform in ("telegram", "discord"):
            operator = Member(platform, f"{platform}:operator")  # bindings are per platform
            for course in (0, 1):
                bound = await self.bot.handle(
                    request(
                        operator,
                        self.chat(platform, course),
                        f"/bind {self.courses[course]}",
                        operator=True,
                    )
                )
                assert "is now bound" in reply_text(bound)
        for course in self.courses:
            path = self.folder / f"{course}-syllabus.md"
            path.write_text(PUBLIC)
            report = await self.bot.ingest_files(course, [SourceFile(path, "syllabus.md")])
            assert report.failed == []
        for note in set(notes):
            marker = self.marker(note)
            path = self.folder / f"{marker}.md"
            path.write_text(
                f"# My notes\n\nThe vault code word is {marker}. "
                f"I must not forget the vault code word {marker}.\n"
            )
            owner = self.user(note.platform, note.owner).user_id
            report = await self.bot.ingest_files(
                self.courses[note.course], [SourceFile(path, f"notes-{marker}.md")], owner=owner
            )
            assert report.failed == []

    async def ask(self, member: Member, place: Place, question: str) -> str:
        """Everything the reply shows (texts, citations, file names), as one string."""
        response = await self.bot.handle(request(member, place, question))
        return repr(response)


def markers_in(text: str, markers: set[str]) -> set[str]:
    return {m for m in markers if m in text}


async def check_notes(
    bot: CourseBot, tenancy: Tenancy, notes: list[Note], questions: list[Ask]
) -> None:
    await tenancy.set_up(notes)
    every = {tenancy.marker(note) for note in notes}

    def own(member: Member, course: int) -> set[str]:
        return {
            tenancy.marker(n)
            for n in notes
            if n.course == course and tenancy.user(n.platform, n.owner) == member
        }

    for ask in questions:
        member = tenancy.user(ask.platform, ask.user)
        chat = tenancy.chat(ask.platform, ask.course, ask.audience)
        if ask.in_dm:
            # Writing in the course's chat makes it the member's DM course.
            await bot.handle(request(member, tenancy.chat(ask.platform, ask.course), "/sources"))
            place = Place(Audience.PRIVATE, chat_id=member.user_id)
        else:
            place = chat
        shown = await tenancy.ask(member, place, ask.question)
        allowed = own(member, ask.course) if place.audience is Audience.PRIVATE else set()
        leaked = markers_in(shown, every - allowed)
        assert not leaked, (ask, place, shown)

    for platform in ("telegram", "discord"):
        for course in (0, 1):
            # The owners of notes, whose notes a shared listing could wrongly include, and
            # someone who owns none.
            owners = {n.owner for n in notes if (n.platform, n.course) == (platform, course)}
            for k in sorted(owners | {max(set(range(3)) - owners, default=0)}):
                member = tenancy.user(platform, k)
                shared = tenancy.chat(platform, course)
                listing = await bot.handle(request(member, shared, "/sources"))
                [sources] = listing.replies
                assert isinstance(sources, SourceList), sources
                assert not any(entry.private for entry in sources.entries), sources
                assert not markers_in(repr(listing), every)
                choices = await bot.document_choices(request(member, shared, ""))
                assert choices == ["syllabus.md"], choices

    # (c) The owner, alone with the bot, finds their own notes: in their DMs, and where an
    # adapter answers them alone.
    for note in set(notes):
        owner = tenancy.user(note.platform, note.owner)
        await bot.handle(request(owner, tenancy.chat(note.platform, note.course), "/sources"))
        dm = Place(Audience.PRIVATE, chat_id=owner.user_id)
        mine = own(owner, note.course)
        for place in (dm, tenancy.chat(note.platform, note.course, Audience.PRIVATE)):
            if place.lookup and note.platform == "telegram":
                continue  # a Telegram group has no private replies
            shown = await tenancy.ask(owner, place, OWN_QUESTION)
            assert markers_in(shown, every) <= mine, (note, shown)
            assert markers_in(shown, mine), (note, place, shown)
        listing = await bot.handle(request(owner, dm, "/sources"))
        [sources] = listing.replies
        assert isinstance(sources, SourceList)
        private = {e.file_name for e in sources.entries if e.private}
        assert private == {f"notes-{m}.md" for m in mine}, sources


def test_notes_reach_their_owner_alone(tmp_path: Path, bundled_model: None) -> None:
    """One core on the default engines for all examples; each example names its courses,
    chats and people apart (`Tenancy`), so earlier examples are more material to leak."""
    loop = asyncio.new_event_loop()
    stack = AsyncExitStack()
    settings_ = Settings(
        _env_file=None,
        data_dir=tmp_path / "data",
        rate_limit=UNTHROTTLED,
        place_rate_limit=UNTHROTTLED,
    )  # type: ignore[call-arg]
    assembly = loop.run_until_complete(stack.enter_async_context(open_assembly(settings_)))
    counter = itertools.count()

    @settings(max_examples=40, **BOUNDED)
    @given(notes=notes_, questions=asks)
    def run(notes: list[Note], questions: list[Ask]) -> None:
        n = next(counter)
        folder = Path(tempfile.mkdtemp(dir=tmp_path))
        tenancy = Tenancy(assembly.bot, n, folder)
        loop.run_until_complete(check_notes(assembly.bot, tenancy, notes, questions))

    try:
        run()
    finally:
        loop.run_until_complete(stack.aclose())
        loop.run_until_complete(_cancel_the_rest())
        loop.close()


async def _cancel_the_rest() -> None:
    """Stop what the core left running (the in-process throttle's expiry timer)."""
    pending = [task for task in asyncio.all_tasks() if task is not asyncio.current_task()]
    for task in pending:
        task.cancel()
    await asyncio.gather(*pending, return_exceptions=True)
