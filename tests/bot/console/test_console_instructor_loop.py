"""The instructor loop through the console adapter over the real core (sample course, local
Qdrant, SQLite, the bundled embedder): a declined question asked twice in other words is one
group for the staff, the staff's answer becomes cited material, the askers are told when they
next write, and votes and the digest stay with the course's staff."""

from __future__ import annotations

import io
import re
from collections.abc import AsyncIterator

import pytest
from support.paths import SAMPLE_COURSE

from bot.composition import Assembly, open_assembly
from bot.console.repl import ConsoleSpeaker, run_chat
from config import Settings
from core.course_bot import CourseBot
from ingestion import discover

COURSE = "sample"
OTHER = "physics"
TEACHER = "console:teacher"
OTHER_TEACHER = "console:other-teacher"
NOT_COVERED = "The course material does not cover this question."


@pytest.fixture
def settings(settings: Settings, bundled_model: None) -> Settings:
    return settings.model_copy(
        update={
            "course_roles": {
                COURSE: {"instructor": [TEACHER]},
                OTHER: {"instructor": [OTHER_TEACHER]},
            }
        }
    )


@pytest.fixture
async def assembly(settings: Settings) -> AsyncIterator[Assembly]:
    async with open_assembly(settings) as opened:
        await _course(opened, COURSE)
        await _course(opened, OTHER)
        yield opened


@pytest.fixture
def bot(assembly: Assembly) -> CourseBot:
    return assembly.bot


async def _course(assembly: Assembly, course: str) -> None:
    sources, _ = discover([SAMPLE_COURSE])
    report = await assembly.bot.ingest_files(course, sources)
    assert not report.failed


def scripted(lines: list[str]):
    pending = list(lines)

    async def read_line(_prompt: str) -> str | None:
        return pending.pop(0) if pending else None

    return read_line


async def say(bot: CourseBot, user: str, *lines: str, course: str = COURSE) -> str:
    out = io.StringIO()
    speaker = ConsoleSpeaker(course, user=user)
    await run_chat(bot, speaker, scripted(list(lines)), out)
    return out.getvalue()


async def test_a_declined_question_asked_twice_is_answered_by_the_staff_and_cited(
    bot: CourseBot,
) -> None:
    assert NOT_COVERED in await say(bot, "alice", "Where can I park my car on campus?")
    assert NOT_COVERED in await say(bot, "bob", "Is there a car park on campus?")
    listed = await say(bot, TEACHER, "/unanswered")
    groups = re.findall(r"#(\d+) — asked (\S+ ?\S*)", listed)
    assert len(groups) == 1, listed
    number, times = groups[0]
    assert times.startswith("2 times") and "(2 declined)" in listed
    assert "“Is there a car park on campus?”" in listed

    replied = await say(
        bot,
        TEACHER,
        f"/reply {number} Students park in car park P3 behind the library; no permit is needed.",
    )
    assert f"Answered #{number}" in replied and "Told 0 of 2" in replied
    sources = await say(bot, TEACHER, "/sources")
    assert "Instructor answers.md" in sources

    third = await say(bot, "carol", "Where do I park my car at the university?")
    assert NOT_COVERED not in third
    assert "car park P3 behind the library" in third
    assert re.search(r"Instructor answers\.md, .*Instructor answer, \d{4}-\d{2}-\d{2}", third)

    # The first two are told the next time they write (a console cannot send them a DM).
    told = await say(bot, "alice", "/sources")
    assert "The course's staff answered your question “Where can I park my car" in told
    assert "car park P3 behind the library" in told
    assert "staff answered" not in await say(bot, "alice", "/sources")  # once
    assert "staff answered your question “Is there a car park" in await say(bot, "bob", "/sources")

    # Edited in place, then removed.
    await say(bot, TEACHER, f"/reply {number} Students park in car park P5 next to the gym.")
    again = await say(bot, "dave", "Where do I park my car at the university?")
    assert "car park P5 next to the gym" in again and "P3" not in again
    removed = await say(bot, TEACHER, f"/forget --answer {number}")
    assert f"Removed the answer to #{number}" in removed
    assert "Instructor answers.md" not in await say(bot, TEACHER, "/sources")


async def test_a_bad_vote_with_a_reason_is_counted_in_the_digest_and_changeable(
    bot: CourseBot,
) -> None:
    answered = await say(bot, "alice", "When is the final exam?")
    assert NOT_COVERED not in answered
    assert "Why? One tap" in await say(bot, "alice", "/bad")
    assert "not helpful (incomplete)" in await say(bot, "alice", "/bad incomplete")
    digest = await say(bot, TEACHER, "/digest week")
    assert "1 questions: 1 answered, 0 declined; 0 👍, 1 👎." in digest
    assert "Why 👎: incomplete 1." in digest
    assert "saved digest.png" in digest and "saved digest.csv" in digest
    assert "#" in await say(bot, TEACHER, "/unanswered")  # the 👎 answer is queued
    # Changed to 👍: one vote per person, and the question leaves the queue.
    assert "helpful" in await say(bot, "alice", "/good")
    digest = await say(bot, TEACHER, "/digest")
    assert "0 👍" not in digest and "1 👍, 0 👎" in digest
    assert "No unanswered questions" in await say(bot, TEACHER, "/unanswered")


async def test_the_staff_views_are_the_course_staffs_alone(bot: CourseBot) -> None:
    await say(bot, "alice", "Where can I park my car on campus?")
    await say(bot, "alice", "/bad wrong")
    # Another course's instructor: their own course's queue and digest show nothing of this.
    other = await say(bot, OTHER_TEACHER, "/unanswered", "/digest", course=OTHER)
    assert "No unanswered questions in 'physics'" in other
    assert "0 questions" in other and "park" not in other
    # Nor can they reach this course's views.
    refused = await say(bot, OTHER_TEACHER, "/unanswered", "/digest", "/reply 1 x")
    assert "park" not in refused and refused.count("Sorry") >= 3
    # Students see no one's votes or questions.
    student = await say(bot, "bob", "/unanswered", "/digest", "/reply 1 hi")
    assert "park" not in student and "wrong" not in student


async def test_a_digest_names_a_student_only_when_asked_for_one_in_private(
    bot: CourseBot,
) -> None:
    await say(bot, "alice", "Where can I park my car on campus?")
    plain = await say(bot, TEACHER, "/digest")
    assert "alice" not in plain
    named = await say(bot, TEACHER, "/digest --student alice")
    assert "student alice" in named
    grouped = await say(bot, TEACHER, "/group on", "/digest --student alice", "/digest")
    assert "alice" not in grouped.replace("--student alice", "")


async def test_help_lists_the_new_commands_by_role(bot: CourseBot) -> None:
    student = await say(bot, "newcomer", "/help")
    usable, staff = student.split("For the course's staff:")
    assert "/good [--answer ID]" in usable and "/bad [WHY]" in usable
    assert "/unanswered" not in usable and "/digest" not in usable
    # A newcomer learns who reads the class's questions and votes.
    assert "/unanswered — instructors, moderators: questions the material failed" in staff
    assert "/reply — instructors, moderators: answer a group of /unanswered questions" in staff
    assert "/digest — instructors, moderators: the class's questions, votes" in staff
    assert "/schedule — instructors:" in staff
    teacher = await say(bot, TEACHER, "/help")
    assert "For the course's staff:" not in teacher
    for command in ("/unanswered", "/reply ID ANSWER", "/digest [week|month]", "/good"):
        assert command in teacher


async def test_quiz_answers_give_the_digest_its_accuracy_per_topic(
    assembly: Assembly, bot: CourseBot
) -> None:
    answered = await say(bot, "alice", "/quiz derivatives 2", "/pick 1 A", "/pick 2 A", "/pick 2 B")
    assert "You already answered question 2 of this quiz." in answered
    right = answered.count("✓ Question")
    assert right + answered.count("✗ Question") == 2
    await assembly.quiz_answers.settled()
    await assembly.quiz_answers.flush()
    digest = await say(bot, TEACHER, "/digest week")
    assert f"derivatives: {right} of 2 right ({round(100 * right / 2)}%)" in digest
    assert "saved quiz-accuracy.csv" in digest and "alice" not in digest
    # Another course's staff see nothing of it.
    assert "derivatives" not in await say(bot, OTHER_TEACHER, "/digest week", course=OTHER)
