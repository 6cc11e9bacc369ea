"""The study commands through the real core (`open_assembly`, the sample course ingested):
a quiz answered with /pick counts each question once, logs a wrong answer with its skill
once, and scores the quiz; flashcards and mind maps arrive as cards and a picture."""

from __future__ import annotations

import csv
import io
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from support.asking import replies

from bot.composition import Assembly, open_assembly
from config import Settings
from core.commands import ParsedCommand
from core.material import SourceFile
from core.mistakes import MistakeLog
from core.replies import DocumentReply, ErrorReply, FlashcardsReply, Notice, QuizReply

SAMPLE = Path(__file__).resolve().parents[3] / "examples" / "sample-course"


def settings(tmp_path: Path) -> Settings:
    return Settings(_env_file=None, data_dir=tmp_path / "data")  # type: ignore[call-arg]


@pytest.fixture
async def assembly(tmp_path: Path, embedder: object) -> AsyncIterator[Assembly]:
    async with open_assembly(settings(tmp_path)) as opened:
        files = [SAMPLE / "lecture-02-derivatives.pdf", SAMPLE / "syllabus.md"]
        report = await opened.bot.ingest_files("sample", [SourceFile.at(f) for f in files])
        assert not report.failed
        yield opened


def command(name: str, argument: str = "") -> dict[str, object]:
    return {"command": ParsedCommand(name, argument)}


async def test_a_quiz_is_answered_once_per_question_logged_and_scored(
    assembly: Assembly, tmp_path: Path
) -> None:
    bot = assembly.bot
    [quiz] = await replies(bot, "", "ana", **command("quiz", "derivatives 3"))
    assert isinstance(quiz, QuizReply) and len(quiz.questions) == 3
    assert all(len(q.options) == 4 and q.source is not None for q in quiz.questions)
    first, second, third = quiz.questions
    [right] = await replies(bot, "", "ana", **command("pick", f"1 {'ABCD'[first.correct]}"))
    assert isinstance(right, Notice) and right.text.startswith("✓ Question 1")
    # A second answer to the same question changes nothing.
    wrong_letter = "ABCD"[(first.correct + 1) % 4]
    [again] = await replies(bot, "", "ana", **command("pick", f"1 {wrong_letter}"))
    assert "already answered question 1" in again.text  # type: ignore[union-attr]
    wrong_choice = "ABCD"[(second.correct + 1) % 4]
    [wrong] = await replies(bot, "", "ana", **command("pick", f"2 {wrong_choice}"))
    assert wrong.text.startswith("✗ Question 2")  # type: ignore[union-attr]
    # The quiz id form (what a button or a poll names) answers the same quiz.
    pick = f"{quiz.quiz_id} 3 {'ABCD'[third.correct]}"
    [last] = await replies(bot, "", "ana", **command("pick", pick))
    assert "Quiz done: 2 of 3 right." in last.text  # type: ignore[union-attr]
    # A background flush may hold the outbox's lock: wait for it, then flush the rest.
    await assembly.outbox.settled()
    await assembly.outbox.flush()
    log = await MistakeLog.open(settings(tmp_path), migrate_schema=False)
    try:
        logged = await log.latest("sample")
    finally:
        await log.close()
    assert [(m.exercise_id, m.step_index) for m in logged] == [(f"quiz-{quiz.quiz_id}", 1)]
    assert logged[0].skill and logged[0].answer == second.options["ABCD".index(wrong_choice)]


async def test_the_same_quiz_is_served_again_and_new_replaces_it(assembly: Assembly) -> None:
    bot = assembly.bot
    [first] = await replies(bot, "", "ana", **command("quiz", "derivatives 4"))
    [again] = await replies(bot, "", "ana", **command("quiz", "derivatives 4"))
    [fresh] = await replies(bot, "", "ana", **command("quiz", "derivatives 4 --new"))
    assert isinstance(first, QuizReply) and isinstance(fresh, QuizReply)
    assert again == first and fresh.quiz_id != first.quiz_id


async def test_flashcards_mind_map_and_bad_input(assembly: Assembly) -> None:
    bot = assembly.bot
    cards, export = await replies(bot, "", "ana", **command("flashcards", "derivatives --csv"))
    assert isinstance(cards, FlashcardsReply) and len(cards.cards) >= 8
    assert isinstance(export, DocumentReply) and export.content.startswith(b"front,back,source")
    picture, outline = await replies(bot, "", "ana", **command("mindmap", "derivatives"))
    assert isinstance(picture, DocumentReply) and picture.content.startswith(b"\x89PNG")
    assert isinstance(outline, Notice) and "lecture-02-derivatives.pdf" in outline.text
    [nothing] = await replies(bot, "", "ana", **command("quiz", "medieval tapestry"))
    assert isinstance(nothing, ErrorReply) and "has nothing on 'medieval tapestry'" in nothing.text
    [no_quiz] = await replies(bot, "", "ben", **command("pick", "1 B"))
    assert isinstance(no_quiz, ErrorReply) and "no quiz open" in no_quiz.text
    [garbled] = await replies(bot, "", "ana", **command("pick", "first one"))
    assert isinstance(garbled, ErrorReply) and "/pick N B" in garbled.text


async def test_flashcards_with_anki_come_with_an_anki_deck(assembly: Assembly) -> None:
    bot = assembly.bot
    cards, deck = await replies(bot, "", "ana", **command("flashcards", "derivatives --anki"))
    assert isinstance(cards, FlashcardsReply)
    assert isinstance(deck, DocumentReply) and deck.media_type == "application/apkg"
    assert deck.file_name == "flashcards-derivatives.apkg"
    assert deck.content.startswith(b"PK")  # a zip, holding collection.anki2
    # The same set is served from the cache with or without the export.
    [again] = await replies(bot, "", "ana", **command("flashcards", "derivatives"))
    assert again == cards


ORGANISMS = """# Model organisms

Model organisms are species studied in depth so that findings transfer to others.

| Trait | Organism |
|---|---|
| Embryos you can see through | =HYPERLINK("http://evil.example/t","zebrafish") |
| Ten-day generations for classic genetics | @SUM(1+1) |
| Most genes shared with humans | +1+1 |
"""


async def test_flashcards_csv_from_a_hostile_table_holds_no_formula(
    assembly: Assembly, tmp_path: Path
) -> None:
    material = tmp_path / "organisms.md"
    material.write_text(ORGANISMS, encoding="utf-8")
    report = await assembly.bot.ingest_files("sample", [SourceFile.at(material)])
    assert not report.failed

    _, export = await replies(
        assembly.bot, "", "ana", **command("flashcards", "model organisms --csv")
    )

    assert isinstance(export, DocumentReply)
    cells = [cell for row in csv.reader(io.StringIO(export.content.decode())) for cell in row]
    assert '\'=HYPERLINK("http://evil.example/t","zebrafish")' in cells
    assert {"'@SUM(1+1)", "'+1+1"} <= set(cells)
    assert not [cell for cell in cells if cell.startswith(("=", "+", "-", "@"))]
