"""Which course a request is about, and who may change that, through the one entry
(`CourseBot.handle`) of the real core (local Qdrant on disk, SQLite, in-process sessions):
a group's binding is the group's course and then its members' direct-message course, a
chat admin may bind a chat to a new course (and becomes its instructor) but not to an
existing one they do not teach, a direct message is about a course the member belongs to,
and files announced by /ingest or /notes are remembered per user, chat and course."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import Any

import pytest
from support.paths import SAMPLE_COURSE

from bot import composition
from bot.composition import open_core
from config import Settings
from core.commands import ParsedCommand
from core.context import Audience, Member
from core.course_bot import CourseBot
from core.courses.access import (
    BAD_CODE,
    BIND_IN_DM,
    BIND_USAGE,
    COURSE_IN_GROUP,
    NO_DM_COURSE,
    NOT_BOUND_HERE,
    NOT_YOURS,
    UNBIND_IN_DM,
    UNBOUND_CHAT,
)
from core.embedding.minilm_onnx import MiniLMOnnxEmbedder
from core.permissions import (
    BIND_NEEDS_ADMIN,
    BIND_NEEDS_INSTRUCTOR,
    CREATE_NEEDS_CONFIGURED,
    CREATE_NEEDS_STAFF,
    REBIND_NEEDS_INSTRUCTOR,
)
from core.practice.service import NO_SESSION
from core.replies import ErrorReply, IngestSummary, Notice, Reply, SourceList, StepPrompt
from core.requests import IncomingFile, Place, Request, Response
from core.uploads import NOTES_ARE_PRIVATE, SEND_NOTES_FIRST

EXERCISE = SAMPLE_COURSE / "exercises" / "derivative-product-rule.exercise.yaml"

STUDENT = Member("telegram", "telegram:42")
OTHER_STUDENT = Member("telegram", "telegram:43")
GROUP_ADMIN = Member("telegram", "telegram:9", chat_admin=True)
TEACHER = Member("telegram", "telegram:7")
GROUP = "-100"

OpenBot = Callable[..., AbstractAsyncContextManager[CourseBot]]


def group(chat: str = GROUP) -> Place:
    key = f"chat:{chat}"
    return Place(Audience.SHARED, chat_id=chat, lookup=(key,), bind_key=key, name="This group")


def dm(member: Member) -> Place:
    return Place(Audience.PRIVATE, chat_id=member.user_id.partition(":")[2])


def server(guild: str) -> Place:
    key = f"discord:server:{guild}"
    return Place(Audience.SHARED, chat_id=guild, lookup=(key,), bind_key=key, name="This server")


def channel(channel_id: str, guild: str) -> Place:
    key = f"discord:channel:{channel_id}"
    return Place(
        Audience.SHARED,
        chat_id=channel_id,
        lookup=(key, f"discord:server:{guild}"),
        bind_key=key,
        name="This channel",
        whisper=True,
    )


def admin(member: Member) -> Member:
    return Member(
        member.platform,
        member.user_id,
        principals=member.principals,
        chat_admin=True,
        role_names=member.role_names,
    )


async def say(
    bot: CourseBot,
    member: Member,
    place: Place,
    text: str = "",
    *,
    files: tuple[IncomingFile, ...] = (),
    command: ParsedCommand | None = None,
    message_id: str | None = None,
) -> Response:
    return await bot.handle(
        Request(
            member=member,
            place=place,
            message_id=message_id or f"test:{uuid.uuid4()}",
            text=text,
            command=command,
            files=files,
        )
    )


def only(response: Response) -> Reply:
    [reply] = response.replies
    return reply


def notice(response: Response) -> str:
    reply = only(response)
    assert isinstance(reply, Notice), reply
    return reply.text


def error(response: Response) -> str:
    reply = only(response)
    assert isinstance(reply, ErrorReply), reply
    return reply.text


def chose(response: Response, course: str) -> bool:
    """Whether `response` confirms that the member's DMs are now about `course`."""
    return notice(response).startswith(f"Your direct messages are now about the course '{course}'.")


async def course_of(bot: CourseBot, member: Member, place: Place) -> str | None:
    """The course a request from `member` in `place` is about (None: none), via /sources."""
    reply = only(await say(bot, member, place, "/sources"))
    if isinstance(reply, ErrorReply):
        assert reply.text in (UNBOUND_CHAT, NO_DM_COURSE), reply
        return None
    assert isinstance(reply, SourceList), reply
    return reply.course_id


async def dm_course(bot: CourseBot, member: Member) -> str | None:
    """What `/course` in a direct message says the member's DMs are about."""
    text = notice(await say(bot, member, dm(member), "/course"))
    if text == NO_DM_COURSE:
        return None
    prefix = "Your direct messages are about the course '"
    assert text.startswith(prefix), text
    return text.removeprefix(prefix).partition("'")[0]


def markdown_file(name: str, text: str) -> IncomingFile:
    data = text.encode()

    async def download(path: Path) -> None:
        path.write_bytes(data)

    return IncomingFile(name=name, size=len(data), download=download)


def local_file(path: Path) -> IncomingFile:
    async def download(target: Path) -> None:
        target.write_bytes(path.read_bytes())

    return IncomingFile(name=path.name, size=path.stat().st_size, download=download)


@pytest.fixture
def open_bot(
    tmp_path: Path, embedder: MiniLMOnnxEmbedder, monkeypatch: pytest.MonkeyPatch
) -> OpenBot:
    """Opens the real core with extra settings (such as course roles) in this test's dir."""

    async def loaded(*_args: object) -> MiniLMOnnxEmbedder:
        return embedder  # the bundled model, loaded once for the session

    monkeypatch.setattr(composition, "embedder", loaded)

    def opener(**overrides: Any) -> AbstractAsyncContextManager[CourseBot]:
        # These tests send more than a person would in a minute: no throttle.
        overrides.setdefault("rate_limit", "100000/minute")
        overrides.setdefault("place_rate_limit", "100000/minute")
        settings = Settings(_env_file=None, data_dir=tmp_path / "data", **overrides)  # type: ignore[call-arg]
        return open_core(settings)

    return opener


@pytest.fixture
async def bot(open_bot: OpenBot) -> AsyncIterator[CourseBot]:
    async with open_bot() as core:
        yield core


async def bind(bot: CourseBot, member: Member, place: Place, course: str) -> str:
    return notice(await say(bot, member, place, f"/bind {course}"))


# Which course ------------------------------------------------------------------------


async def test_group_binding_is_the_groups_course_and_then_the_members_dm_course(
    bot: CourseBot,
) -> None:
    await bind(bot, GROUP_ADMIN, group(), "calc101")

    assert await course_of(bot, STUDENT, group()) == "calc101"
    assert await dm_course(bot, STUDENT) == "calc101"
    assert await course_of(bot, STUDENT, dm(STUDENT)) == "calc101"
    # Only members who wrote in the group have it for their direct messages.
    assert await dm_course(bot, OTHER_STUDENT) is None
    assert await course_of(bot, OTHER_STUDENT, dm(OTHER_STUDENT)) is None


async def test_direct_message_without_history_has_no_course(bot: CourseBot) -> None:
    assert await dm_course(bot, STUDENT) is None
    assert error(await say(bot, STUDENT, dm(STUDENT), "/sources")) == NO_DM_COURSE
    assert error(await say(bot, STUDENT, dm(STUDENT), "When is the exam?")) == NO_DM_COURSE
    assert await bot.course_choices(STUDENT) == []


async def test_unbound_chat_has_no_course_and_keeps_the_dm_course(bot: CourseBot) -> None:
    await bind(bot, GROUP_ADMIN, group(), "phys201")
    await say(bot, STUDENT, group(), "/sources")

    assert error(await say(bot, STUDENT, group("-300"), "/sources")) == UNBOUND_CHAT
    assert error(await say(bot, STUDENT, group("-300"), "When is the exam?")) == UNBOUND_CHAT
    # A file shared with an unbound group is not the bot's business.
    shared = markdown_file("notes.md", "# Notes\n\nSomething.")
    assert await say(bot, STUDENT, group("-300"), files=(shared,)) == Response()
    assert await dm_course(bot, STUDENT) == "phys201"


async def test_most_specific_chat_decides_and_platforms_do_not_mix(bot: CourseBot) -> None:
    owner = Member("discord", "discord:9", chat_admin=True)
    member = Member("discord", "discord:42")
    await bind(bot, owner, server("guild-1"), "calc101")
    await bind(bot, owner, channel("channel-7", "guild-1"), "phys201")

    assert await course_of(bot, member, channel("channel-7", "guild-1")) == "phys201"
    assert await course_of(bot, member, channel("channel-8", "guild-1")) == "calc101"
    assert await course_of(bot, member, server("guild-1")) == "calc101"
    # The DM course is the course of the chat the member last wrote in.
    assert await dm_course(bot, member) == "calc101"
    # The same keys on another platform are another platform's chats.
    stranger = Member("telegram", "discord:42")
    assert await course_of(bot, stranger, server("guild-1")) is None
    assert await dm_course(bot, stranger) is None


async def test_course_in_a_group_explains_where_it_works(bot: CourseBot) -> None:
    await bind(bot, GROUP_ADMIN, group(), "calc101")
    assert notice(await say(bot, STUDENT, group(), "/course phys201")) == COURSE_IN_GROUP
    assert notice(await say(bot, STUDENT, dm(STUDENT), "/bind calc101")) == BIND_IN_DM
    assert error(await say(bot, GROUP_ADMIN, group(), "/bind")) == BIND_USAGE


async def test_choosing_a_course_needs_membership_an_open_course_or_a_code(
    bot: CourseBot,
) -> None:
    # A course that does not exist, and one the student never joined, are both refused.
    refused = NOT_YOURS.format(course="phys201")
    assert error(await say(bot, STUDENT, dm(STUDENT), "/course  PHYS201 ")) == refused
    await bot.create_course("phys201", TEACHER.user_id)
    assert error(await say(bot, STUDENT, dm(STUDENT), "/course phys201")) == refused
    assert await dm_course(bot, STUDENT) is None

    # Its instructor may choose it (staff belong to their course).
    assert chose(await say(bot, TEACHER, dm(TEACHER), "/course phys201"), "phys201")
    # An invite code lets a student in; a wrong one does not.
    invite = notice(await say(bot, TEACHER, dm(TEACHER), "/invite"))
    code = invite.rpartition("/course join ")[2]
    assert code.startswith("phys201-")
    assert error(await say(bot, STUDENT, dm(STUDENT), "/course join phys201-nope")) == BAD_CODE
    assert error(await say(bot, STUDENT, dm(STUDENT), "/course join")) == BAD_CODE
    welcome = notice(await say(bot, STUDENT, dm(STUDENT), f"/course join {code}"))
    assert welcome.startswith("Welcome to 'phys201'.")
    assert await dm_course(bot, STUDENT) == "phys201"
    assert await bot.course_choices(STUDENT) == ["phys201"]
    assert await bot.course_choices(OTHER_STUDENT) == []

    # An open course takes anyone who chooses it.
    assert "is now open" in notice(await say(bot, TEACHER, dm(TEACHER), "/invite open"))
    assert chose(await say(bot, OTHER_STUDENT, dm(OTHER_STUDENT), "/course phys201"), "phys201")
    assert await bot.course_choices(Member("telegram", "telegram:44")) == ["phys201"]


async def test_a_joined_course_stays_choosable_after_it_closes(bot: CourseBot) -> None:
    await bind(bot, GROUP_ADMIN, group(), "calc101")
    await say(bot, STUDENT, group(), "/sources")
    await bot.create_course("phys201", TEACHER.user_id)
    await say(bot, TEACHER, dm(TEACHER), "/course phys201")
    await say(bot, TEACHER, dm(TEACHER), "/invite open")
    await say(bot, STUDENT, dm(STUDENT), "/course phys201")
    await say(bot, TEACHER, dm(TEACHER), "/invite closed")

    assert await dm_course(bot, STUDENT) == "phys201"  # they joined it by choosing it
    assert chose(await say(bot, STUDENT, dm(STUDENT), "/course calc101"), "calc101")
    assert await bot.course_choices(STUDENT) == ["calc101", "phys201"]
    # Someone who never chose it may not any more.
    refused = NOT_YOURS.format(course="phys201")
    assert error(await say(bot, OTHER_STUDENT, dm(OTHER_STUDENT), "/course phys201")) == refused


async def test_writing_in_a_group_again_makes_its_course_the_dm_course_again(
    bot: CourseBot,
) -> None:
    await bind(bot, GROUP_ADMIN, group(), "calc101")
    await bind(bot, GROUP_ADMIN, group("-200"), "phys201")
    await say(bot, STUDENT, group(), "/sources")
    await say(bot, STUDENT, group("-200"), "/sources")
    assert await dm_course(bot, STUDENT) == "phys201"

    assert chose(await say(bot, STUDENT, dm(STUDENT), "/course calc101"), "calc101")
    await say(bot, STUDENT, group("-200"), "/sources")
    # As after a restart or on another replica: the group they last wrote in decides.
    assert await dm_course(bot, STUDENT) == "phys201"


async def test_bad_course_id_is_refused(bot: CourseBot) -> None:
    for course in ("calc 101", "../calc", "-calc", "c" * 65, "calc101!", "kurs:1"):
        assert "is not a course id" in error(
            await say(bot, GROUP_ADMIN, group(), f"/bind {course}")
        )
        assert "is not a course id" in error(
            await say(bot, STUDENT, dm(STUDENT), f"/course {course}")
        )
    # The id is checked before the permission: a student learns what a course id looks like.
    assert "is not a course id" in error(await say(bot, STUDENT, group(), "/bind calc 101"))
    assert await course_of(bot, STUDENT, group()) is None
    assert await bot.course_choices(GROUP_ADMIN) == []


# Who may bind ------------------------------------------------------------------------


async def test_plain_student_may_not_bind(bot: CourseBot) -> None:
    response = await say(bot, STUDENT, group(), "/bind calc101")

    assert response == Response.of(ErrorReply(BIND_NEEDS_ADMIN), private=True)
    assert await course_of(bot, STUDENT, group()) is None
    assert await bot.course_choices(STUDENT) == []


async def test_chat_admin_may_bind_a_new_course_and_becomes_its_instructor(
    bot: CourseBot,
) -> None:
    text = await bind(bot, GROUP_ADMIN, group(), "Calc101")

    assert text == (
        "This group is now bound to the course 'calc101'. You created it, so you are its "
        "instructor. It has no material yet: an instructor can add some with /ingest."
    )
    assert await course_of(bot, STUDENT, group()) == "calc101"
    staff = notice(await say(bot, GROUP_ADMIN, group(), "/staff"))
    assert "instructor: telegram:9 (granted by telegram:9)" in staff
    # As its instructor, they may bind another group they administer to it.
    assert "bound to the course 'calc101'." in await bind(
        bot, GROUP_ADMIN, group("-200"), "calc101"
    )
    assert await course_of(bot, STUDENT, group("-200")) == "calc101"


async def test_chat_admin_may_not_bind_an_existing_course_they_do_not_teach(
    bot: CourseBot,
) -> None:
    await bot.create_course("calc101", TEACHER.user_id)
    await bot.ingest_files("phys201", [])  # material from the command line makes a course too

    for course in ("calc101", "phys201"):
        refused = error(await say(bot, GROUP_ADMIN, group(), f"/bind {course}"))
        assert refused == BIND_NEEDS_INSTRUCTOR.format(course=course)
    assert await course_of(bot, STUDENT, group()) is None
    # Its instructor may not either, unless they administer the chat.
    assert error(await say(bot, TEACHER, group(), "/bind calc101")) == BIND_NEEDS_ADMIN
    assert "is now bound" in await bind(bot, admin(TEACHER), group(), "calc101")
    assert await course_of(bot, STUDENT, group()) == "calc101"


async def test_first_binder_wins_and_the_second_is_refused(bot: CourseBot) -> None:
    other_admin = Member("telegram", "telegram:10", chat_admin=True)
    await bind(bot, GROUP_ADMIN, group(), "calc101")

    refused = error(await say(bot, other_admin, group("-200"), "/bind calc101"))
    assert refused == BIND_NEEDS_INSTRUCTOR.format(course="calc101")
    # Nor may they take over the first group by rebinding it to another course of theirs.
    assert "You created it" in await bind(bot, other_admin, group("-200"), "calc102")
    assert await course_of(bot, STUDENT, group()) == "calc101"


async def test_site_staff_only_creation_refuses_chat_admins(open_bot: OpenBot) -> None:
    site = Member("telegram", "telegram:1", chat_admin=True)
    roles = {"*": {"instructor": [site.user_id]}}
    async with open_bot(course_roles=roles, course_creation="site_staff") as bot:
        refused = error(await say(bot, GROUP_ADMIN, group(), "/bind calc101"))
        assert refused == CREATE_NEEDS_STAFF.format(course="calc101")
        assert "You created it" in await bind(bot, site, group(), "calc101")
        # Site staff teach every course, so they may bind an existing one too.
        await bot.create_course("phys201", TEACHER.user_id)
        assert "You created it" not in await bind(bot, site, group("-200"), "phys201")


async def test_configured_instructor_may_bind_their_course_only(open_bot: OpenBot) -> None:
    roles = {
        "calc101": {"instructor": ["telegram:7", "discord:role:111"]},
        "phys201": {"moderator": ["telegram:7"]},
    }
    teacher = admin(TEACHER)
    assistant = Member(
        "discord", "discord:5", principals=frozenset({"discord:role:111"}), chat_admin=True
    )
    async with open_bot(course_roles=roles) as bot:
        await bot.create_course("calc101", "telegram:1")
        await bot.create_course("phys201", "telegram:1")
        assert "is now bound" in await bind(bot, teacher, group(), "calc101")
        assert "is now bound" in await bind(bot, assistant, server("guild-1"), "calc101")
        refused = error(await say(bot, teacher, group("-200"), "/bind phys201"))
        assert refused == BIND_NEEDS_INSTRUCTOR.format(course="phys201")

        assert await course_of(bot, STUDENT, group()) == "calc101"
        assert await course_of(bot, Member("discord", "discord:1"), server("guild-1")) == "calc101"
        assert await course_of(bot, STUDENT, group("-200")) is None


async def test_a_course_the_settings_name_is_created_by_its_configured_staff_only(
    open_bot: OpenBot,
) -> None:
    # Issue 28.1: with physics configured for telegram:42 and no physics record yet, an
    # admin of any group bound it and became its instructor in the database.
    owner = Member("telegram", "telegram:42", chat_admin=True)
    by_name = Member(
        "discord", "discord:5", role_names=frozenset({"discord:role:Teacher"}), chat_admin=True
    )
    site = Member("telegram", "telegram:1", chat_admin=True)
    roles = {
        "physics": {"instructor": [owner.user_id, "discord:role:Teacher"]},
        "chem": {"moderator": ["telegram:43"]},
        "*": {"instructor": [site.user_id]},
    }
    async with open_bot(course_roles=roles) as bot:
        for who, place in ((GROUP_ADMIN, group()), (by_name, server("guild-1"))):
            refused = error(await say(bot, who, place, "/bind physics"))
            assert refused == CREATE_NEEDS_CONFIGURED.format(course="physics")
            assert await course_of(bot, STUDENT, group()) is None
        # A course the settings give moderators only is still theirs: site staff create it.
        refused = error(await say(bot, GROUP_ADMIN, group(), "/bind chem"))
        assert refused == CREATE_NEEDS_CONFIGURED.format(course="chem")
        assert "You created it" in await bind(bot, site, group("-300"), "chem")
        # Unconfigured courses are still any chat admin's to create.
        assert "You created it" in await bind(bot, GROUP_ADMIN, group("-200"), "calc101")

        assert "You created it" in await bind(bot, owner, group("-400"), "physics")
        assert "instructor: telegram:42" in notice(await say(bot, owner, group("-400"), "/staff"))
        refused = error(await say(bot, GROUP_ADMIN, group(), "/bind physics"))
        assert refused == BIND_NEEDS_INSTRUCTOR.format(course="physics")


async def test_a_co_admin_cannot_take_a_bound_group_to_another_course(bot: CourseBot) -> None:
    # Issue 28.2: the instructor bound the group; a co-admin with no role on its course
    # rebound it to a course of their own, taking its members and their DMs along.
    co_admin = Member("telegram", "telegram:10", chat_admin=True)
    await bind(bot, GROUP_ADMIN, group(), "calc101")
    await say(bot, STUDENT, group(), "/sources")
    await bot.create_course("evil202", co_admin.user_id)

    for course in ("evil101", "evil202"):  # a new course, and one the co-admin teaches
        refused = error(await say(bot, co_admin, group(), f"/bind {course}"))
        assert refused == REBIND_NEEDS_INSTRUCTOR.format(current="calc101")
    assert await course_of(bot, STUDENT, group()) == "calc101"
    assert await dm_course(bot, STUDENT) == "calc101"
    assert chose(await say(bot, STUDENT, dm(STUDENT), "/course calc101"), "calc101")
    assert "evil101" not in await bot.course_choices(co_admin)  # never created
    granted = notice(await say(bot, GROUP_ADMIN, group(), "/grant moderator telegram:43"))
    assert granted == "telegram:43 is now a moderator of 'calc101'."
    # A moderator of the course may not move it either; its instructor may.
    refused = error(await say(bot, admin(OTHER_STUDENT), group(), "/bind evil101"))
    assert refused == REBIND_NEEDS_INSTRUCTOR.format(current="calc101")
    assert "You created it" in await bind(bot, GROUP_ADMIN, group(), "calc102")
    assert await course_of(bot, STUDENT, group()) == "calc102"


async def test_a_bound_chat_is_unbound_only_by_its_courses_instructor_or_site_staff(
    open_bot: OpenBot,
) -> None:
    site = Member("telegram", "telegram:1", chat_admin=True)
    co_admin = Member("telegram", "telegram:10", chat_admin=True)
    async with open_bot(course_roles={"*": {"instructor": [site.user_id]}}) as bot:
        assert notice(await say(bot, GROUP_ADMIN, dm(GROUP_ADMIN), "/unbind")) == UNBIND_IN_DM
        refused = error(await say(bot, GROUP_ADMIN, group(), "/unbind"))
        assert refused == NOT_BOUND_HERE.format(name="This group")
        await bind(bot, GROUP_ADMIN, group(), "calc101")
        await say(bot, STUDENT, group(), "/sources")

        assert error(await say(bot, STUDENT, group(), "/unbind")) == BIND_NEEDS_ADMIN
        refused = error(await say(bot, co_admin, group(), "/unbind"))
        assert refused == REBIND_NEEDS_INSTRUCTOR.format(current="calc101")
        assert await course_of(bot, STUDENT, group()) == "calc101"
        unbound = notice(await say(bot, GROUP_ADMIN, group(), "/unbind"))
        assert unbound == "This group is no longer bound to the course 'calc101'."
        assert await course_of(bot, STUDENT, group()) is None
        assert await dm_course(bot, STUDENT) == "calc101"  # her membership stays
        # Now unbound, the co-admin may bind it (to a course of their own); site staff
        # may unbind any chat.
        assert "You created it" in await bind(bot, co_admin, group(), "evil101")
        assert "no longer bound" in notice(await say(bot, site, group(), "/unbind"))


async def test_a_bound_chat_is_moved_by_site_staff_and_a_channel_inherits_its_server(
    open_bot: OpenBot,
) -> None:
    site = Member("discord", "discord:1", chat_admin=True)
    teacher = Member("discord", "discord:7", chat_admin=True)
    server_admin = Member("discord", "discord:9", chat_admin=True)
    async with open_bot(course_roles={"*": {"instructor": [site.user_id]}}) as bot:
        assert "You created it" in await bind(bot, teacher, server("g1"), "calc101")
        # A channel of a bound server is that course's: binding it elsewhere moves it.
        refused = error(await say(bot, server_admin, channel("c1", "g1"), "/bind evil101"))
        assert refused == REBIND_NEEDS_INSTRUCTOR.format(current="calc101")
        assert "You created it" in await bind(bot, teacher, channel("c1", "g1"), "calc102")
        # Site staff move any chat.
        assert "You created it" in await bind(bot, site, server("g1"), "phys201")
        assert await course_of(bot, Member("discord", "discord:2"), channel("c2", "g1")) == (
            "phys201"
        )
        assert await course_of(bot, Member("discord", "discord:2"), channel("c1", "g1")) == (
            "calc102"
        )


async def test_role_names_count_only_in_a_chat_bound_to_their_course(
    open_bot: OpenBot,
) -> None:
    # Anyone may call a role "Teacher" in a server of their own.
    roles = {"calc101": {"instructor": ["discord:role:Teacher"]}}
    named = Member(
        "discord", "discord:5", chat_admin=True, role_names=frozenset({"discord:role:Teacher"})
    )
    async with open_bot(course_roles=roles) as bot:
        await bot.create_course("calc101", "discord:1")
        refused = error(await say(bot, named, server("guild-2"), "/bind calc101"))
        assert refused == BIND_NEEDS_INSTRUCTOR.format(course="calc101")
        assert await course_of(bot, named, server("guild-2")) is None

        owner = Member("discord", "discord:1", chat_admin=True)
        await bind(bot, owner, server("guild-1"), "calc101")
        # In the course's own server the name counts: they may manage the course there...
        assert "Staff of 'calc101'" in notice(await say(bot, named, server("guild-1"), "/staff"))
        # ...but not from their direct messages, where no server vouches for the name.
        assert await dm_course(bot, named) == "calc101"
        denied = error(await say(bot, named, dm(named), "/staff"))
        assert denied == "Sorry, only a course instructor can grant or revoke course roles."


async def test_course_grant_applies_whatever_the_case_of_its_course_id(
    open_bot: OpenBot,
) -> None:
    # Course ids are case-folded wherever people type them (/bind MATH101 binds math101), so
    # a grant written with the course code's usual capitals must still apply.
    async with open_bot(course_roles={"MATH101": {"instructor": ["telegram:7"]}}) as bot:
        await bot.create_course("math101", "telegram:1")
        assert "'math101'" in await bind(bot, admin(TEACHER), group(), "MATH101")
        assert "Staff of 'math101'" in notice(await say(bot, TEACHER, group(), "/staff"))
        assert await course_of(bot, STUDENT, group()) == "math101"


async def test_roles_come_from_grants_for_their_course_only(open_bot: OpenBot) -> None:
    ta = Member("discord", "discord:5", principals=frozenset({"discord:role:222"}))
    async with open_bot(course_roles={"calc101": {"moderator": ["discord:role:222"]}}) as bot:
        owner = Member("discord", "discord:1", chat_admin=True)
        # A course the settings name is created by the site (its staff), not by binding.
        await bot.create_course("calc101", owner.user_id)
        assert "is now bound" in await bind(bot, owner, channel("channel-7", "guild-1"), "calc101")
        assert "is now bound" in await bind(bot, owner, channel("channel-8", "guild-1"), "phys201")

        # A moderator reviews mistakes (where only they read the reply) but adds no material.
        here = channel("channel-7", "guild-1")
        assert notice(await say(bot, ta, here, "/mistakes")) == "No mistakes logged for calc101."
        assert error(await say(bot, ta, here, "/ingest")) == (
            "Sorry, only a course instructor can add course material."
        )
        elsewhere = channel("channel-8", "guild-1")
        assert error(await say(bot, ta, elsewhere, "/mistakes")) == (
            "Sorry, only a course moderator can review the class's mistakes."
        )


# Staff -------------------------------------------------------------------------------


async def test_instructor_grants_and_revokes_roles_on_their_course(bot: CourseBot) -> None:
    await bind(bot, GROUP_ADMIN, group(), "calc101")
    await bind(bot, Member("telegram", "telegram:10", chat_admin=True), group("-200"), "phys201")

    assert error(await say(bot, STUDENT, group(), "/grant moderator telegram:43")) == (
        "Sorry, only a course instructor can grant or revoke course roles."
    )
    granted = notice(await say(bot, GROUP_ADMIN, group(), "/grant moderator telegram:43"))
    assert granted == "telegram:43 is now a moderator of 'calc101'."
    assert "moderator: telegram:43 (granted by telegram:9)" in notice(
        await say(bot, GROUP_ADMIN, group(), "/staff")
    )
    # The role is on calc101 alone, and lets them review mistakes from their DMs.
    await say(bot, OTHER_STUDENT, group(), "/sources")
    assert notice(await say(bot, OTHER_STUDENT, dm(OTHER_STUDENT), "/mistakes")).startswith(
        "No mistakes logged"
    )
    await say(bot, OTHER_STUDENT, group("-200"), "/sources")
    assert await dm_course(bot, OTHER_STUDENT) == "phys201"
    assert "moderator" in error(await say(bot, OTHER_STUDENT, dm(OTHER_STUDENT), "/mistakes"))
    assert chose(await say(bot, OTHER_STUDENT, dm(OTHER_STUDENT), "/course calc101"), "calc101")
    # (In a group, /mistakes is refused before anything is looked up.)
    assert "direct message" in error(await say(bot, OTHER_STUDENT, group(), "/mistakes"))

    assert "no longer" in notice(
        await say(bot, GROUP_ADMIN, group(), "/revoke moderator telegram:43")
    )
    assert "moderator" in error(await say(bot, OTHER_STUDENT, dm(OTHER_STUDENT), "/mistakes"))
    # The last instructor stays.
    assert "last instructor" in error(
        await say(bot, GROUP_ADMIN, group(), "/revoke instructor telegram:9")
    )
    assert "Usage: /grant" in error(
        await say(bot, GROUP_ADMIN, group(), "/grant owner telegram:43")
    )


async def test_transfer_hands_the_course_over(bot: CourseBot) -> None:
    await bind(bot, GROUP_ADMIN, group(), "calc101")
    notice_text = (await bot.transfer_course("calc101", TEACHER.user_id)).text
    assert "now belongs to telegram:7" in notice_text

    assert "instructor" in error(await say(bot, GROUP_ADMIN, group(), "/staff"))
    assert "instructor: telegram:7" in notice(await say(bot, TEACHER, group(), "/staff"))


# Replays -----------------------------------------------------------------------------


async def test_a_redelivered_message_gets_the_first_reply_and_no_second_effect(
    bot: CourseBot,
) -> None:
    first = await say(bot, GROUP_ADMIN, group(), "/bind calc101", message_id="telegram:-100:1")
    again = await say(bot, GROUP_ADMIN, group(), "/bind calc101", message_id="telegram:-100:1")

    assert again == first
    assert "You created it" in notice(first)
    # Processed anew, the second bind would not say that.
    assert "You created it" not in await bind(bot, GROUP_ADMIN, group(), "calc101")


# Files announced by a command ----------------------------------------------------------


async def test_course_material_needs_an_instructor_and_notes_a_private_chat(
    bot: CourseBot,
) -> None:
    await bind(bot, GROUP_ADMIN, group(), "calc101")

    assert error(await say(bot, STUDENT, group(), "/ingest")) == (
        "Sorry, only a course instructor can add course material."
    )
    assert error(await say(bot, STUDENT, group(), "/notes")) == NOTES_ARE_PRIVATE
    # Nothing was announced: the student's next file in the group is left alone.
    sheet = markdown_file("sheet.md", "# Sheet\n\nThe chain rule.")
    assert await say(bot, STUDENT, group(), files=(sheet,)) == Response()

    text = notice(await say(bot, STUDENT, dm(STUDENT), "/notes"))
    assert "as your private notes" in text and "10 minutes" in text
    summary = only(await say(bot, STUDENT, dm(STUDENT), files=(sheet,)))
    assert isinstance(summary, IngestSummary) and summary.report.failed == []
    # The announcement is used up by the files it announced.
    assert notice(await say(bot, STUDENT, dm(STUDENT), files=(sheet,))) == SEND_NOTES_FIRST

    [mine] = only(await say(bot, STUDENT, dm(STUDENT), "/sources")).entries  # type: ignore[union-attr]
    assert (mine.file_name, mine.private) == ("sheet.md", True)
    listed = only(await say(bot, STUDENT, group(), "/sources"))
    assert isinstance(listed, SourceList) and listed.entries == ()


async def test_instructor_announces_course_material(bot: CourseBot) -> None:
    await bind(bot, GROUP_ADMIN, group(), "calc101")

    assert "as material for 'calc101'" in notice(await say(bot, GROUP_ADMIN, group(), "/ingest"))
    handout = markdown_file("handout.md", "# Handout\n\nThe exam is in Hall A.")
    summary = only(await say(bot, GROUP_ADMIN, group(), files=(handout,)))
    assert isinstance(summary, IngestSummary) and summary.report.failed == []

    listed = only(await say(bot, STUDENT, group(), "/sources"))
    assert isinstance(listed, SourceList)
    assert [(e.file_name, e.private) for e in listed.entries] == [("handout.md", False)]
    assert await bot.document_choices(
        Request(STUDENT, group(), message_id=f"test:{uuid.uuid4()}")
    ) == ["handout.md"]


async def test_announced_files_belong_to_one_user_chat_and_course(bot: CourseBot) -> None:
    await bind(bot, GROUP_ADMIN, group(), "calc101")
    await bind(bot, GROUP_ADMIN, group("-200"), "calc101")
    await bind(bot, GROUP_ADMIN, group("-300"), "phys201")
    handout = markdown_file("handout.md", "# Handout\n\nThe exam is in Hall A.")
    await say(bot, GROUP_ADMIN, group(), "/ingest")

    # Another user, another chat of the same course, the admin's DMs: nothing announced.
    await bind(bot, GROUP_ADMIN, group(), "calc101")
    co_teacher = Member("telegram", "telegram:10")
    await say(bot, GROUP_ADMIN, group(), f"/grant instructor {co_teacher.user_id}")
    assert await say(bot, co_teacher, group(), files=(handout,)) == Response()
    assert await say(bot, GROUP_ADMIN, group("-200"), files=(handout,)) == Response()
    assert await say(bot, GROUP_ADMIN, group("-300"), files=(handout,)) == Response()
    await say(bot, GROUP_ADMIN, dm(GROUP_ADMIN), "/course calc101")
    assert notice(await say(bot, GROUP_ADMIN, dm(GROUP_ADMIN), files=(handout,))) == (
        SEND_NOTES_FIRST
    )
    # Where it was announced, it is still expected.
    assert isinstance(only(await say(bot, GROUP_ADMIN, group(), files=(handout,))), IngestSummary)

    # A course switch in between: the announcement was for the other course.
    await bot.create_course("phys101", GROUP_ADMIN.user_id)
    await say(bot, GROUP_ADMIN, dm(GROUP_ADMIN), "/notes")
    await say(bot, GROUP_ADMIN, dm(GROUP_ADMIN), "/course phys101")
    assert notice(await say(bot, GROUP_ADMIN, dm(GROUP_ADMIN), files=(handout,))) == (
        SEND_NOTES_FIRST
    )


async def test_files_are_checked_before_they_are_downloaded(bot: CourseBot) -> None:
    await bind(bot, GROUP_ADMIN, group(), "calc101")
    fetched: list[str] = []

    async def download(path: Path) -> None:
        fetched.append(path.name)
        path.write_bytes(b"x")

    big = IncomingFile("big.md", 10**9, download)
    odd = IncomingFile("tool.exe", 10, download)
    for file in (big, odd):
        refused = error(
            await say(bot, GROUP_ADMIN, group(), command=ParsedCommand("ingest"), files=(file,))
        )
        assert refused.startswith(f"'{file.name}': ")
    # Nor is a student's material downloaded before it is refused.
    fine = IncomingFile("fine.md", 10, download)
    assert "instructor" in error(
        await say(bot, STUDENT, group(), command=ParsedCommand("ingest"), files=(fine,))
    )
    assert fetched == []


# Guided exercises ----------------------------------------------------------------------


async def test_answer_without_an_open_exercise_is_refused(bot: CourseBot) -> None:
    await bind(bot, GROUP_ADMIN, group(), "calc101")

    assert error(await say(bot, STUDENT, group(), "/answer 2x")) == NO_SESSION
    assert "write your answer" in error(await say(bot, STUDENT, group(), "/answer    "))


async def test_exercises_of_the_course_are_listed_and_answered_step_by_step(
    bot: CourseBot,
) -> None:
    await bind(bot, GROUP_ADMIN, group(), "calc101")
    summary = only(
        await say(
            bot,
            GROUP_ADMIN,
            group(),
            command=ParsedCommand("ingest"),
            files=(local_file(EXERCISE),),
        )
    )
    assert isinstance(summary, IngestSummary) and summary.report.failed == []

    def asking(member: Member, place: Place) -> Request:
        return Request(member, place, message_id=f"test:{uuid.uuid4()}")

    assert await bot.exercise_choices(asking(STUDENT, group())) == [
        ("derivative-product-rule", "The product rule, step by step")
    ]
    await bind(bot, GROUP_ADMIN, group("-200"), "phys201")
    assert await bot.exercise_choices(asking(STUDENT, group("-200"))) == []
    assert await bot.exercise_choices(asking(STUDENT, group("-300"))) == []

    started = await say(bot, STUDENT, group(), "/practice derivative-product-rule")
    assert any(isinstance(reply, StepPrompt) for reply in started.replies)
    replies = (await say(bot, STUDENT, group(), "/answer 2x")).replies
    steps = [reply for reply in replies if isinstance(reply, StepPrompt)]
    assert steps and steps[-1].step_number == 2
    # The course now has material, and binding says so.
    assert (await bind(bot, GROUP_ADMIN, group(), "calc101")).endswith("Ask away, or send /help.")
