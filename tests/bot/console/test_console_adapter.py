"""The console adapter driving the real core end to end (local Qdrant on disk, bundled
embedder, in-process sessions)."""

from __future__ import annotations

import io
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from support.material import Passage, add_passages

from bot.composition import Assembly, open_assembly
from bot.console.repl import ConsoleSpeaker, ask_once, run_chat
from config import Settings
from core.course_bot import CourseBot
from core.material import SourceFile


def scripted(lines: list[str]):
    pending = list(lines)

    async def read_line(_prompt: str) -> str | None:
        return pending.pop(0) if pending else None

    return read_line


@pytest.fixture
async def assembly(settings: Settings) -> AsyncIterator[Assembly]:
    async with open_assembly(settings) as opened:
        yield opened


@pytest.fixture
def bot(assembly: Assembly) -> CourseBot:
    return assembly.bot


async def chat(bot: CourseBot, lines: list[str], course: str = "sample") -> str:
    out = io.StringIO()
    await run_chat(bot, ConsoleSpeaker(course), scripted(lines), out)
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
    bot: CourseBot, assembly: Assembly, embedder
) -> None:
    await add_passages(
        assembly.index,
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
    assert "lecture-02.pdf (syllabus, 1 chunk)" in output
    assert "never read" not in output


async def test_ask_once_reports_failure_for_an_empty_course(bot: CourseBot) -> None:
    out = io.StringIO()
    assert not await ask_once(bot, ConsoleSpeaker("empty-course", "bob"), "anything?", out)
    assert "has no material yet" in out.getvalue()


async def test_internal_failure_is_reported_politely(
    bot: CourseBot, assembly: Assembly, monkeypatch
) -> None:
    async def broken(*_args, **_kwargs):
        raise RuntimeError("qdrant exploded")

    monkeypatch.setattr(assembly.index, "count", broken)
    output = await chat(bot, ["When is the final exam?"])
    assert "Something went wrong on my side" in output
    assert "qdrant exploded" not in output


async def test_guided_exercise_and_mistake_review_from_the_console(
    bot: CourseBot, sample_course
) -> None:
    from support.paths import SAMPLE_COURSE

    exercise = SAMPLE_COURSE / "exercises" / "derivative-product-rule.exercise.yaml"
    report = await bot.ingest_files("sample", [SourceFile.at(exercise)])
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
    # The console saves the files it is sent where the user started it, and says where.
    assert "saved mistakes-by-skill.png to ./coursebot-files/mistakes-by-skill.png" in output
    assert "saved mistakes.csv to ./coursebot-files/mistakes.csv" in output
    assert Path("coursebot-files/mistakes-by-skill.png").read_bytes().startswith(b"\x89PNG")
    assert "power-rule" in Path("coursebot-files/mistakes.csv").read_text()


async def test_students_cannot_review_mistakes(bot: CourseBot) -> None:
    output = await chat(bot, ["/as stu", "/mistakes", "/help"])
    assert "Speaking as stu" in output
    assert "Sorry, only a course moderator can review the class's mistakes." in output
    assert "/mistakes [--skill" not in output.split("review the class's mistakes.")[1]


async def test_notes_are_quoted_only_to_their_owner_and_never_in_a_group(
    bot: CourseBot, assembly: Assembly, embedder
) -> None:
    await add_passages(
        assembly.index,
        embedder,
        [
            Passage(
                "The secret mnemonic for the chain rule is outside-in onion peeling.",
                "alice-notes.md",
                owner_id="alice",
            ),
            Passage("The final exam is on 14 December.", section="Exams"),
        ],
    )
    question = "What is the mnemonic for the chain rule?"
    mine = await chat(bot, ["/as alice", question])
    assert "onion peeling" in mine and "(your notes)" in mine
    in_group = await chat(bot, ["/as alice", "/group on", question, "/sources"])
    assert "In a group chat" in in_group
    assert "onion peeling" not in in_group
    assert "private" not in in_group.split("Documents in")[-1]
    other = await chat(bot, ["/as bob", question])
    assert "onion peeling" not in other


async def test_a_restarted_chat_is_not_taken_for_a_replay(bot: CourseBot) -> None:
    first = await chat(bot, ["/sources"])
    again = await chat(bot, ["/sources"])
    assert first == again
    assert "has no documents yet" in first


async def test_mistakes_are_not_shown_in_a_group(bot: CourseBot) -> None:
    output = await chat(bot, ["/group on", "/mistakes"])
    assert "ask me in a direct message" in output


async def test_a_replayed_console_request_gets_the_same_reply(bot: CourseBot) -> None:
    speaker = ConsoleSpeaker("sample", "ana")
    request = speaker.request("/status")
    first = await bot.handle(request)
    assert first.replies and first == await bot.handle(request)
    assert speaker.request("/status").message_id != request.message_id


async def test_an_exercise_keeps_its_solution_until_solution_is_asked_for(
    bot: CourseBot,
) -> None:
    from support.paths import SAMPLE_COURSE

    exercise = SAMPLE_COURSE / "exercises" / "power-rule-drill.exercise.yaml"
    assert (await bot.ingest_files("sample", [SourceFile.at(exercise)])).failed == []
    # "power rule" names no built-in family: the course's own parametric exercise is drawn.
    shown = await chat(bot, ["/exercise power rule"])
    assert "New exercise: The power rule with drawn coefficients" in shown
    assert "hidden; send /solution to see it" in shown
    assert "f'(x) =" not in shown and "step 1/2" in shown
    solution = await chat(bot, ["/solution"])
    assert "Solution: The power rule with drawn coefficients" in solution
    assert "f'(x) =" in solution


async def test_a_cited_page_is_saved_by_the_command_the_answer_offers(
    bot: CourseBot, tmp_path: Path
) -> None:
    from support.paths import SAMPLE_COURSE

    lecture = SAMPLE_COURSE / "lecture-01-limits.pdf"
    assert (await bot.ingest_files("sample", [SourceFile.at(lecture)])).failed == []
    answer = await chat(bot, ["What does the squeeze theorem say?"])
    assert "[1] lecture-01-limits.pdf, p. 8, Summary" in answer
    offer, *_others = [line.strip() for line in answer.splitlines() if "/page " in line]
    assert offer.startswith("[1] /page ") and offer.endswith(" 8 saves a picture of the page")
    command = offer.removeprefix("[1] ").removesuffix(" saves a picture of the page")
    output = await chat(bot, [command, "/page lecture-01-limits.pdf 2"])
    assert "saved lecture-01-limits-p8.png to ./coursebot-files/lecture-01-limits-p8.png" in output
    assert "saved lecture-01-limits-p2.png to ./coursebot-files/lecture-01-limits-p2.png" in output
    assert Path("coursebot-files/lecture-01-limits-p8.png").read_bytes().startswith(b"\x89PNG")
    # A page the file does not have, or a file the course does not have: one line, no file.
    missing = await chat(bot, ["/page lecture-01-limits.pdf 99", "/page 0123456789abcdef 1"])
    assert missing.count("! There is no picture of page") == 2


async def test_a_students_notes_page_is_shown_to_her_alone_where_she_reads_alone(
    bot: CourseBot, tmp_path: Path
) -> None:
    from fpdf import FPDF

    notes = FPDF()
    notes.add_page()
    notes.set_font("helvetica", size=12)
    notes.set_xy(10, 120)
    notes.multi_cell(w=180, text="My mnemonic for the chain rule: peel the onion outside in.")
    path = tmp_path / "alice-notes.pdf"
    notes.output(str(path))
    assert (await bot.ingest_files("sample", [SourceFile.at(path)], owner="alice")).failed == []

    mine = await chat(bot, ["/as alice", "What is my mnemonic for the chain rule?"])
    assert "(your notes)" in mine
    offer, *_others = [line.strip() for line in mine.splitlines() if "/page " in line]
    assert offer.startswith("[1] /page ")
    command = offer.removeprefix("[1] ").removesuffix(" saves a picture of the page")
    saved = await chat(bot, ["/as alice", command])
    assert "saved alice-notes-p1.png" in saved
    in_group = await chat(bot, ["/as alice", "/group on", command])
    assert "That page is from your private notes: I show it only where you alone" in in_group
    assert "saved" not in in_group
    # Another student naming it, by its id or its name: no such page, nothing saved.
    other = await chat(bot, ["/as bob", command, "/page alice-notes.pdf 1"])
    assert other.count("! There is no picture of page 1") == 2 and "saved" not in other


async def test_flashcard_backs_stay_hidden_until_the_card_is_turned_by_its_set_id(
    bot: CourseBot, embedder
) -> None:
    from support.paths import SAMPLE_COURSE

    files = [SAMPLE_COURSE / "lecture-02-derivatives.pdf", SAMPLE_COURSE / "syllabus.md"]
    assert (await bot.ingest_files("sample", [SourceFile.at(f) for f in files])).failed == []
    cards = await chat(bot, ["/flashcards derivatives"])
    heading = next(line for line in cards.splitlines() if line.startswith("Flashcards:"))
    set_id = int(heading.rsplit("set ", 1)[1])
    assert "→" not in cards and f"/card {set_id} N back" in cards
    first_front = next(line for line in cards.splitlines() if line.startswith("1. "))[3:]
    # The front alone, then the back only when asked for, with the id the listing printed.
    front = await chat(bot, [f"/card {set_id} 1"])
    assert first_front in front and "→" not in front and f"/card {set_id} 1 back" in front
    back = await chat(bot, [f"/card {set_id} 1 back"])
    assert first_front in back and "→ " in back


async def _derivatives_lecture(bot: CourseBot) -> None:
    from support.paths import SAMPLE_COURSE

    lecture = SAMPLE_COURSE / "lecture-02-derivatives.pdf"
    assert (await bot.ingest_files("sample", [SourceFile.at(lecture)])).failed == []


async def test_exercise_product_rule_hard_is_a_hard_product_rule_graded_step_by_step(
    bot: CourseBot,
) -> None:
    from core.exercises.families import drawn_instance

    await _derivatives_lecture(bot)
    started = await chat(bot, ["/exercise product rule hard", "/status"])
    assert "New exercise: The product rule (hard)" in started
    assert "The product rule (hard) — step 1/3" in started
    exercise_id = started.split("/status")[-1].split(": step 1 of 3")[0].split()[-1]
    drawn = drawn_instance(exercise_id)
    assert drawn is not None and drawn.family.id == "product-rule"
    assert not drawn.given["f"].is_polynomial()  # a polynomial times exp/sin/cos of kx
    steps = drawn.definition.steps
    answers = ["x + 1", *(step.answer.expected_text() for step in steps)]
    output = await chat(bot, [*answers, "/mistakes --csv"])
    assert "✗" in output and "Hint 1:" in output
    assert "Exercise complete!" in output and "3 of 3 steps solved" in output
    assert f"{steps[0].skill}: 1 (latest: “x + 1”)" in output


async def test_exercise_on_an_area_respects_the_difficulty_and_an_unknown_topic_says_so(
    bot: CourseBot,
) -> None:
    await _derivatives_lecture(bot)
    hard = await chat(bot, ["/exercise derivatives hard", "/quit"])
    heading = next(line for line in hard.splitlines() if line.startswith("New exercise:"))
    assert heading.endswith("(hard)")
    assert any(name in heading for name in ("product", "quotient", "chain", "at a point"))
    unknown = await chat(bot, ["/exercise quantum chromodynamics"])
    [reply] = [line for line in unknown.splitlines() if "quantum" in line]
    assert reply.startswith(
        "! This course has no exercise generator for 'quantum chromodynamics' offline; "
    )
    # The families of this calculus lecture only, not the whole list.
    assert "product rule" in reply and "softmax" not in reply.lower()
    # A subject the course's material does not cover draws no drill.
    statistics = await chat(bot, ["/exercise z-scores"])
    assert "! The course material does not cover z-scores; no exercise on it." in statistics
    assert "New exercise" not in statistics


async def test_a_lesson_job_prints_its_progress_lines_before_the_deck(
    bot: CourseBot, tmp_path: Path
) -> None:
    from support.paths import SAMPLE_COURSE

    lecture = SAMPLE_COURSE / "lecture-02-derivatives.pdf"
    assert (await bot.ingest_files("sample", [SourceFile.at(lecture)])).failed == []
    out = io.StringIO()
    lines = ["/lesson derivatives --slides 3-4"]
    await run_chat(bot, ConsoleSpeaker("sample"), scripted(lines), out, tmp_path)
    printed = out.getvalue().splitlines()
    first = "… Making your lesson on 'derivatives': reading the course material (step 1 of 4)…"
    ready = "… Ready: your lesson on 'derivatives'."
    saved = next(n for n, line in enumerate(printed) if line.startswith("saved lesson-derivatives"))
    assert printed.index(first) < printed.index(ready) < saved
    assert (tmp_path / "lesson-derivatives-v1.pdf").read_bytes().startswith(b"%PDF")
