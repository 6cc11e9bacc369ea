"""The console adapter driving the real core end to end (local Qdrant on disk, bundled
embedder, in-process sessions)."""

from __future__ import annotations

import io
from collections.abc import AsyncIterator

import pytest
from support.material import Passage, add_passages

from bot.console.repl import ask_once, run_chat
from config import Settings
from core.course_bot import CourseBot
from core.factory import open_core


def scripted(lines: list[str]):
    pending = list(lines)

    async def read_line(_prompt: str) -> str | None:
        return pending.pop(0) if pending else None

    return read_line


@pytest.fixture
async def bot(settings: Settings) -> AsyncIterator[CourseBot]:
    async with open_core(settings) as core:
        yield core


async def chat(bot: CourseBot, lines: list[str], course: str = "sample") -> str:
    out = io.StringIO()
    await run_chat(bot, course, "alice", scripted(lines), out)
    return out.getvalue()


async def test_help_lists_the_commands(bot: CourseBot) -> None:
    output = await chat(bot, ["/help"])
    assert "/ask QUESTION" in output
    assert "/sources" in output


async def test_question_on_an_empty_course_says_so(bot: CourseBot) -> None:
    output = await chat(bot, ["When is the final exam?"])
    assert "The course 'sample' has no material yet" in output


async def test_unknown_command_gets_a_helpful_reply(bot: CourseBot) -> None:
    output = await chat(bot, ["/frobnicate now"])
    assert "I don't know the command /frobnicate" in output
    assert "Traceback" not in output


async def test_question_is_answered_from_the_material_with_citations(
    bot: CourseBot, embedder
) -> None:
    await add_passages(
        bot.index,
        embedder,
        [
            Passage("The final exam is on 14 December at 09:00 in Hall A.", section="Exams"),
            Passage("Late work loses 10% per day, up to three days.", section="Late work"),
            Passage("Derivatives measure the rate of change.", "lecture-02.pdf", page=2),
        ],
    )
    output = await chat(bot, ["When is the final exam?", "/sources", "/exit", "never read"])
    assert "From the course material (quoted):" in output
    answer = output.split("Sources:")[0]
    assert "“The final exam is on 14 December at 09:00 in Hall A.” [1]" in answer
    assert "Derivatives" not in answer
    assert "[1] syllabus.md, Exams" in output
    assert "lecture-02.pdf (syllabus, 1 chunks)" in output
    assert "never read" not in output


async def test_ask_once_reports_failure_for_an_empty_course(bot: CourseBot) -> None:
    out = io.StringIO()
    assert not await ask_once(bot, "empty-course", "bob", "anything?", out)
    assert "has no material yet" in out.getvalue()


async def test_internal_failure_is_reported_politely(bot: CourseBot, monkeypatch) -> None:
    async def broken(*_args, **_kwargs):
        raise RuntimeError("qdrant exploded")

    monkeypatch.setattr(bot.index, "count", broken)
    output = await chat(bot, ["When is the final exam?"])
    assert "Something went wrong on my side" in output
    assert "qdrant exploded" not in output


async def test_guided_exercise_and_mistake_review_from_the_console(
    bot: CourseBot, sample_course
) -> None:
    from support.paths import SAMPLE_COURSE

    from ingestion import SourceFile

    exercise = SAMPLE_COURSE / "exercises" / "derivative-product-rule.exercise.yaml"
    from bot.console.repl import console_context

    report = await bot.ingest(console_context("sample", "teacher"), [SourceFile.at(exercise)])
    assert report.failed == []
    output = await chat(
        bot,
        [
            "/practice derivative-product-rule",
            "x^2",
            "/hint",
            "2x",
            "/status",
            "/quit",
            "/mistakes --csv",
        ],
    )
    assert "The product rule, step by step — step 1/4" in output
    assert "✗" in output and "Hint 1:" in output and "Hint 2:" in output
    assert "step 2/4" in output
    assert "step 2 of 4" in output
    assert "The exercise ended." in output
    assert "Mistakes by skill for sample:" in output
    assert "power-rule: 1 (latest: “x^2”)" in output
    assert "[file mistakes-by-skill.png" in output
    assert "[file mistakes.csv" in output


async def test_students_cannot_review_mistakes(bot: CourseBot) -> None:
    from core.context import Context
    from core.replies import ErrorReply

    student = Context(platform="console", course_id="sample", user_id="stu")
    [reply] = await bot.handle(student, "/mistakes")
    assert isinstance(reply, ErrorReply)
    assert reply.text == "Sorry, only a course moderator can review the class's mistakes."
    assert "/mistakes" not in bot.help(student).text
