"""The course facade's who-and-which-course calls, on the real core (local Qdrant on disk,
SQLite, in-process sessions): a group's binding becomes its members' direct-message course,
binding needs an instructor (a chat admin or a configured principal), and files announced
by /ingest or /notes are remembered per user, chat and course."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import Any

import pytest
from support.paths import SAMPLE_COURSE

from config import Settings
from core.context import Member, Role
from core.course_bot import CourseBot
from core.errors import BadInputError, PermissionDeniedError
from core.factory import open_core
from core.practice.service import NO_SESSION
from core.replies import ErrorReply, StepPrompt
from ingestion import SourceFile

EXERCISE = SAMPLE_COURSE / "exercises" / "derivative-product-rule.exercise.yaml"

STUDENT = Member("telegram", "telegram:42")
OTHER_STUDENT = Member("telegram", "telegram:43")
GROUP_ADMIN = Member("telegram", "telegram:9", chat_admin=True)
GROUP = "-100"

OpenBot = Callable[..., AbstractAsyncContextManager[CourseBot]]


@pytest.fixture
def open_bot(tmp_path: Path) -> OpenBot:
    """Opens the real core with extra settings (such as course roles) in this test's dir."""

    def opener(**overrides: Any) -> AbstractAsyncContextManager[CourseBot]:
        settings = Settings(_env_file=None, data_dir=tmp_path / "data", **overrides)  # type: ignore[call-arg]
        return open_core(settings)

    return opener


@pytest.fixture
async def bot(open_bot: OpenBot) -> AsyncIterator[CourseBot]:
    async with open_bot() as core:
        yield core


# Which course ------------------------------------------------------------------------


async def test_group_binding_is_the_groups_course_and_then_the_members_dm_course(
    bot: CourseBot,
) -> None:
    await bot.bind(GROUP_ADMIN, GROUP, "calc101", "This group")

    assert await bot.course_for(STUDENT, [GROUP]) == "calc101"
    assert await bot.course_for(STUDENT) == "calc101"
    # Only members who wrote in the group have it remembered for their direct messages.
    assert await bot.course_for(OTHER_STUDENT) is None


async def test_direct_message_without_history_has_no_course(bot: CourseBot) -> None:
    assert await bot.course_for(STUDENT) is None
    assert await bot.course_for(STUDENT, []) is None


async def test_unbound_chat_has_no_course_and_keeps_the_dm_course(bot: CourseBot) -> None:
    await bot.choose_course(STUDENT, "phys201")

    assert await bot.course_for(STUDENT, ["-300"]) is None
    assert await bot.course_for(STUDENT) == "phys201"


async def test_most_specific_chat_decides_and_platforms_do_not_mix(bot: CourseBot) -> None:
    admin = Member("discord", "discord:9", chat_admin=True)
    member = Member("discord", "discord:42")
    await bot.bind(admin, "guild-1", "calc101", "This server")
    await bot.bind(admin, "channel-7", "phys201", "This channel")

    assert await bot.course_for(member, ["channel-7", "guild-1"]) == "phys201"
    assert await bot.course_for(member, ["channel-8", "guild-1"]) == "calc101"
    assert await bot.course_for(member) == "calc101"
    assert await bot.course_for(Member("telegram", "discord:42"), ["guild-1"]) is None


async def test_choosing_a_course_sets_the_dm_course_and_lists_it(bot: CourseBot) -> None:
    notice = await bot.choose_course(STUDENT, "  PHYS201 ")

    assert notice.text == (
        "Your direct messages are now about the course 'phys201'. "
        "It has no material yet: an instructor can add some with /ingest."
    )
    assert await bot.course_for(STUDENT) == "phys201"
    await bot.bind(GROUP_ADMIN, GROUP, "calc101", "This group")
    assert await bot.courses("telegram") == ["calc101", "phys201"]
    assert await bot.courses("discord") == []


async def test_bad_course_id_is_refused(bot: CourseBot) -> None:
    for course in ("", "calc 101", "../calc", "-calc", "c" * 65, "calc101!", "kurs:1"):
        with pytest.raises(BadInputError, match="is not a course id"):
            await bot.bind(GROUP_ADMIN, GROUP, course, "This group")
        with pytest.raises(BadInputError, match="is not a course id"):
            await bot.choose_course(STUDENT, course)
    # The id is checked before the permission: a student learns what a course id looks like.
    with pytest.raises(BadInputError, match="is not a course id"):
        await bot.bind(STUDENT, GROUP, "calc 101", "This group")
    assert await bot.courses("telegram") == []


# Who may bind ------------------------------------------------------------------------


async def test_plain_student_may_not_bind(bot: CourseBot) -> None:
    with pytest.raises(PermissionDeniedError):
        await bot.bind(STUDENT, GROUP, "calc101", "This group")

    replies = await bot.handle_call(
        bot.context(STUDENT, "calc101"), bot.bind(STUDENT, GROUP, "calc101", "This group")
    )
    assert replies == [
        ErrorReply("Sorry, only a course instructor can bind this chat to a course.")
    ]
    assert await bot.course_for(STUDENT, [GROUP]) is None


async def test_chat_admin_may_bind(bot: CourseBot) -> None:
    notice = await bot.bind(GROUP_ADMIN, GROUP, "Calc101", "This group")

    assert notice.text.startswith("This group is now bound to the course 'calc101'. ")
    assert await bot.course_for(STUDENT, [GROUP]) == "calc101"


async def test_configured_instructor_may_bind_their_course_only(open_bot: OpenBot) -> None:
    roles = {
        "calc101": {"instructor": ["telegram:7", "discord:role:TA"]},
        "phys201": {"moderator": ["telegram:7"]},
    }
    teacher = Member("telegram", "telegram:7")
    assistant = Member("discord", "discord:5", principals=frozenset({"discord:role:TA"}))
    async with open_bot(course_roles=roles) as bot:
        await bot.bind(teacher, GROUP, "calc101", "This group")
        await bot.bind(assistant, "guild-1", "calc101", "This server")
        with pytest.raises(PermissionDeniedError):
            await bot.bind(teacher, "-200", "phys201", "That group")

        assert await bot.course_for(STUDENT, [GROUP]) == "calc101"
        assert await bot.course_for(Member("discord", "discord:1"), ["guild-1"]) == "calc101"
        assert await bot.course_for(STUDENT, ["-200"]) is None


async def test_course_grant_applies_whatever_the_case_of_its_course_id(
    open_bot: OpenBot,
) -> None:
    # Course ids are case-folded wherever people type them (/bind MATH101 binds math101), so
    # a grant written with the course code's usual capitals must still apply.
    teacher = Member("telegram", "telegram:7")
    async with open_bot(course_roles={"MATH101": {"instructor": ["telegram:7"]}}) as bot:
        assert Role.INSTRUCTOR in bot.context(teacher, "math101").roles
        await bot.bind(teacher, GROUP, "MATH101", "This group")
        assert await bot.course_for(STUDENT, [GROUP]) == "math101"


async def test_context_carries_the_member_and_their_roles(open_bot: OpenBot) -> None:
    member = Member("discord", "discord:5", principals=frozenset({"discord:role:TA"}), locale="de")
    async with open_bot(course_roles={"calc101": {"moderator": ["discord:role:TA"]}}) as bot:
        ctx = bot.context(member, "calc101", chat_id="channel-7", message_id="m-1")
        elsewhere = bot.context(member, "phys201")

    assert (ctx.platform, ctx.course_id, ctx.user_id) == ("discord", "calc101", "discord:5")
    assert (ctx.chat_id, ctx.message_id, ctx.locale) == ("channel-7", "m-1", "de")
    assert ctx.roles == {Role.STUDENT, Role.MODERATOR}
    assert elsewhere.roles == {Role.STUDENT}
    assert elsewhere.chat_id is None


# Files announced by a command ----------------------------------------------------------


async def test_course_material_needs_an_instructor_but_private_notes_do_not(
    bot: CourseBot,
) -> None:
    student = bot.context(STUDENT, "calc101", chat_id=GROUP)
    with pytest.raises(PermissionDeniedError):
        await bot.expect_files(student, private=False)
    assert await bot.expected_files(student) is None

    notice = await bot.expect_files(student, private=True)
    assert "as your private notes" in notice.text and "10 minutes" in notice.text
    assert await bot.expected_files(student) is True


async def test_instructor_announces_course_material(bot: CourseBot) -> None:
    admin = bot.context(GROUP_ADMIN, "calc101", chat_id=GROUP)
    notice = await bot.expect_files(admin, private=False)

    assert "as material for 'calc101'" in notice.text
    assert await bot.expected_files(admin) is False
    await bot.expect_files(admin, private=True)
    assert await bot.expected_files(admin) is True


async def test_announced_files_belong_to_one_user_chat_and_course(bot: CourseBot) -> None:
    await bot.expect_files(bot.context(STUDENT, "calc101", chat_id=GROUP), private=True)

    assert await bot.expected_files(bot.context(OTHER_STUDENT, "calc101", chat_id=GROUP)) is None
    assert await bot.expected_files(bot.context(STUDENT, "calc101", chat_id="-200")) is None
    assert await bot.expected_files(bot.context(STUDENT, "calc101")) is None
    assert await bot.expected_files(bot.context(STUDENT, "phys201", chat_id=GROUP)) is None


# Guided exercises ----------------------------------------------------------------------


async def test_answer_without_an_open_exercise_is_refused(bot: CourseBot) -> None:
    ctx = bot.context(STUDENT, "calc101")
    with pytest.raises(BadInputError) as refused:
        await bot.answer_step(ctx, "2x")
    assert str(refused.value) == NO_SESSION
    with pytest.raises(BadInputError, match="write your answer"):
        await bot.answer_step(ctx, "   ")


async def test_exercises_of_the_course_are_listed_and_answered_step_by_step(
    bot: CourseBot,
) -> None:
    admin = bot.context(GROUP_ADMIN, "calc101", chat_id=GROUP)
    report = await bot.ingest(admin, [SourceFile.at(EXERCISE)])
    assert report.failed == []

    student = bot.context(STUDENT, "calc101", chat_id=GROUP)
    assert await bot.exercises(student) == [
        ("derivative-product-rule", "The product rule, step by step")
    ]
    assert await bot.exercises(bot.context(STUDENT, "phys201")) == []

    await bot.start_exercise(student, "derivative-product-rule")
    replies = await bot.answer_step(student, "2x")
    steps = [reply for reply in replies if isinstance(reply, StepPrompt)]
    assert steps and steps[-1].step_number == 2
    # The course now has material, and binding says so.
    notice = await bot.bind(GROUP_ADMIN, GROUP, "calc101", "This group")
    assert notice.text.endswith("Ask away, or send /help.")
