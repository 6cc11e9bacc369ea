"""`/materials` through the real core (`open_assembly`, the sample course's derivatives
lecture and worked exercises ingested): the list of one's own generated material newest
first, each kind sent again as it was first sent (a lesson's stored PDF, not a new render),
nobody else's and no other course's, material citing private notes kept out of shared
places, and a response that shows private notes marked private whatever the command."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from support.asking import request
from support.exercise_drafts import POWER_RULE_DRAFT
from support.fake_ollama import running_fake_ollama, scripted

from bot import composition
from bot.composition import Assembly, open_assembly
from config import Settings
from core.commands import MATERIALS_USAGE as USAGE
from core.commands import ParsedCommand
from core.generation.materials import NOTHING_YET
from core.lessons import service as lesson_service
from core.material import SourceFile
from core.replies import (
    DocumentReply,
    ErrorReply,
    ExerciseSheet,
    FlashcardsReply,
    Notice,
    QuizReply,
)
from core.requests import Response

SAMPLE = Path(__file__).resolve().parents[3] / "examples" / "sample-course"
FILES = (SAMPLE / "lecture-02-derivatives.pdf", SAMPLE / "worked-exercises.md")
NOTES = (
    "# My notes on derivatives\n\n"
    "Derivatives, my own way: the derivative of a product is not the product of the "
    "derivatives. The derivative of x squared is 2x. Derivatives measure the slope of the "
    "tangent line; I mix up the derivative rules before exams.\n"
)


@pytest.fixture(autouse=True)
def _loaded_embedder(embedder: object, monkeypatch: pytest.MonkeyPatch) -> None:
    # The bundled model is loaded once per session, not once per assembly.
    monkeypatch.setattr(composition, "bundled_embedder", lambda _choice: embedder)


async def _ingested(settings: Settings) -> AsyncIterator[Assembly]:
    async with open_assembly(settings) as assembly:
        report = await assembly.bot.ingest_files("sample", [SourceFile.at(f) for f in FILES])
        assert not report.failed
        yield assembly


def unthrottled(tmp_path: Path, **values: Any) -> Settings:
    # One student sends many commands in a row here: the burst limit is not under test.
    return Settings(
        _env_file=None,
        data_dir=tmp_path / "data",
        rate_limit="1000/minute",
        place_rate_limit="1000/minute",
        **values,
    )  # type: ignore[call-arg]


@pytest.fixture
async def assembly(tmp_path: Path) -> AsyncIterator[Assembly]:
    async for opened in _ingested(unthrottled(tmp_path)):
        yield opened


async def respond(
    assembly: Assembly, name: str, argument: str = "", user: str = "ana", **options: Any
) -> Response:
    asked = request("", user, command=ParsedCommand(name, argument), **options)
    return await assembly.bot.handle(asked)


async def materials(assembly: Assembly, argument: str = "", **options: Any) -> Response:
    return await respond(assembly, "materials", argument, **options)


async def with_notes(assembly: Assembly, tmp_path: Path, owner: str = "ana") -> None:
    notes = tmp_path / "my-derivative-notes.md"
    notes.write_text(NOTES)
    report = await assembly.bot.ingest_files("sample", [SourceFile.at(notes)], owner=owner)
    assert not report.failed


def listing(response: Response) -> list[str]:
    [notice] = response.replies
    assert isinstance(notice, Notice), notice
    return notice.text.splitlines()


def error(response: Response) -> str:
    [reply] = response.replies
    assert isinstance(reply, ErrorReply), reply
    return reply.text


# The list -------------------------------------------------------------------------------


async def test_nothing_generated_yet_says_how_to_make_some(assembly: Assembly) -> None:
    response = await materials(assembly)
    assert listing(response) == [NOTHING_YET] and response.private


async def test_the_list_shows_every_kind_newest_first_with_id_topic_date_and_profile(
    assembly: Assembly,
) -> None:
    lesson = await assembly.bot.generate_lesson(
        "sample", "derivatives", user="ana", slides="3-5", profile="dyslexia"
    )
    [cards] = (await respond(assembly, "flashcards", "derivatives")).replies
    [quiz] = (await respond(assembly, "quiz", "derivatives 4")).replies
    await respond(assembly, "mindmap", "derivatives")
    await respond(assembly, "lesson", 'edit 1 "shorten"')
    assert isinstance(cards, FlashcardsReply) and isinstance(quiz, QuizReply)
    response = await materials(assembly)
    assert response.private  # about the asker: ephemeral on Discord
    lines = listing(response)
    rows = [line for line in lines if line.startswith("#")]
    assert len(rows) == 5 and lines[-1] == "Send /materials send ID to get one again."
    ids = [int(row.split(" · ")[0][1:]) for row in rows]
    assert ids == sorted(ids, reverse=True)
    today = f"{datetime.now(UTC):%Y-%m-%d}"
    kinds = [row.split(" · ")[1] for row in rows]
    assert kinds == ["lesson", "mindmap", "quiz", "flashcards", "lesson"]
    assert all(row.split(" · ")[2] == "derivatives" and today in row for row in rows)
    assert rows[-1] == f"#{lesson.material_id} · lesson · derivatives · {today} · dyslexia " \
        "profile, version 1"  # fmt: skip
    assert rows[0].endswith("dyslexia profile, version 2")
    assert f"#{quiz.quiz_id} · quiz" in rows[2] and f"#{cards.set_id} · flashcards" in rows[3]
    # Another student's list is their own.
    assert listing(await materials(assembly, user="bob")) == [NOTHING_YET]


# Sending again --------------------------------------------------------------------------


async def test_a_lesson_is_sent_again_as_its_stored_pdf_without_rendering(
    assembly: Assembly, monkeypatch: pytest.MonkeyPatch
) -> None:
    made = await assembly.bot.generate_lesson("sample", "derivatives", user="ana", slides="3-5")

    def no_render(*_args: Any, **_kwargs: Any) -> bytes:
        raise AssertionError("a stored deck is not rendered again")

    monkeypatch.setattr(lesson_service, "render_deck", no_render)
    response = await materials(assembly, f"send {made.material_id}")
    pdfs = [
        r for r in response.replies if isinstance(r, DocumentReply) and r.file_name.endswith(".pdf")
    ]
    [pdf] = pdfs
    assert pdf.content == made.pdf and pdf.file_name == made.file_name
    assert pdf.caption == made.caption() and not pdf.private
    assert any(
        isinstance(r, DocumentReply) and r.media_type == "image/png" for r in response.replies
    )
    # "#ID" reads the same as "ID".
    again = await materials(assembly, f"send #{made.material_id}")
    assert again.replies == response.replies


async def test_study_sets_are_sent_again_and_a_quiz_sent_again_is_the_one_pick_answers(
    assembly: Assembly,
) -> None:
    [cards] = (await respond(assembly, "flashcards", "derivatives")).replies
    [first] = (await respond(assembly, "quiz", "derivatives 3")).replies
    [other] = (await respond(assembly, "quiz", "derivative rules 3")).replies
    picture, outline = (await respond(assembly, "mindmap", "derivatives")).replies
    assert isinstance(cards, FlashcardsReply) and isinstance(first, QuizReply)
    assert isinstance(other, QuizReply) and other.quiz_id != first.quiz_id
    assert (await materials(assembly, f"send {cards.set_id}")).replies == (cards,)
    assert (await materials(assembly, f"send {first.quiz_id}")).replies == (first,)
    # /pick answers the latest quiz sent: the one sent again, not the newest made.
    letter = "ABCD"[first.questions[0].correct]
    [picked] = (await respond(assembly, "pick", f"1 {letter}")).replies
    assert isinstance(picked, Notice) and picked.text.startswith("✓ Question 1")
    stored_map = next(
        line.split(" · ")[0][1:]
        for line in listing(await materials(assembly))
        if " · mindmap · " in line
    )
    again_picture, again_outline = (await materials(assembly, f"send {stored_map}")).replies
    assert isinstance(again_picture, DocumentReply) and isinstance(picture, DocumentReply)
    assert again_picture.file_name == picture.file_name and again_outline == outline
    assert again_picture.content.startswith(b"\x89PNG")


async def test_only_the_owner_gets_it_and_only_in_its_course(assembly: Assembly) -> None:
    made = await assembly.bot.generate_lesson("sample", "derivatives", user="ana", slides="3-5")
    missing = f"You have no material #{made.material_id} in this course."
    assert error(await materials(assembly, f"send {made.material_id}", user="bob")) == missing
    report = await assembly.bot.ingest_files("other", [SourceFile.at(SAMPLE / "syllabus.md")])
    assert not report.failed
    assert error(await materials(assembly, f"send {made.material_id}", course="other")) == missing
    assert listing(await materials(assembly, course="other")) == [NOTHING_YET]
    assert (
        error(await materials(assembly, "send 999999"))
        == "You have no material #999999 in this course."
    )


@pytest.mark.parametrize("argument", ["send", "send two", "delete 3", "send 1 2"])
async def test_other_words_get_the_usage_in_one_line(assembly: Assembly, argument: str) -> None:
    assert error(await materials(assembly, argument)) == USAGE


# Private notes --------------------------------------------------------------------------


async def test_a_lesson_citing_private_notes_is_private_and_kept_out_of_shared_places(
    assembly: Assembly, tmp_path: Path
) -> None:
    await with_notes(assembly, tmp_path)
    # Asked for in a direct message: the deck may (and here does) cite ana's notes.
    made = await respond(assembly, "lesson", "derivatives --slides 3-6")
    pdf = next(
        r for r in made.replies if isinstance(r, DocumentReply) and r.file_name.endswith(".pdf")
    )
    assert "(your notes)" in pdf.caption, pdf.caption
    # The core decides: every file of it private, the response too (ephemeral on Discord),
    # though /lesson itself is not a private command.
    assert made.private and all(r.private for r in made.replies if isinstance(r, DocumentReply))
    # A deck asked for in the channel cannot see the notes: it is for the channel.
    shared = await respond(assembly, "lesson", "derivatives --slides 3-4", shared=True)
    assert not shared.private and shared.replies
    rows = [r for r in listing(await materials(assembly)) if r.startswith("#")]
    shared_row = rows[0]  # newest first
    shared_id, private_id = (int(r.split(" · ")[0][1:]) for r in rows)
    # In a shared place: the private deck is neither listed nor sent.
    there = listing(await materials(assembly, shared=True))
    assert [r for r in there if r.startswith("#")] == [shared_row]
    assert "1 more may quote your private notes" in "\n".join(there)
    refused = error(await materials(assembly, f"send {private_id}", shared=True))
    assert refused.startswith(f"#{private_id} may quote your private notes")
    sent_there = await materials(assembly, f"send {shared_id}", shared=True)
    assert any(isinstance(r, DocumentReply) for r in sent_there.replies)
    # In the direct message it is sent again, still private.
    again = await materials(assembly, f"send {private_id}")
    assert again.private and any(isinstance(r, DocumentReply) and r.private for r in again.replies)


async def test_a_study_set_citing_private_notes_makes_a_private_response(
    assembly: Assembly, tmp_path: Path
) -> None:
    await with_notes(assembly, tmp_path)
    response = await respond(assembly, "flashcards", "derivatives")
    [cards] = response.replies
    assert isinstance(cards, FlashcardsReply)
    assert any(c.source is not None and c.source.private for c in cards.cards)
    assert response.private
    assert error(await materials(assembly, f"send {cards.set_id}", shared=True)).startswith(
        f"#{cards.set_id} may quote your private notes"
    )
    # The same command in the channel sees no notes and is for the channel.
    channel = await respond(assembly, "flashcards", "derivatives", shared=True)
    assert not channel.private


# Exercises (written by the fake model) --------------------------------------------------


@pytest.fixture
async def with_model(tmp_path: Path) -> AsyncIterator[Assembly]:
    with running_fake_ollama() as fake:
        fake.chat_reply = scripted(json.dumps(POWER_RULE_DRAFT))
        settings = unthrottled(
            tmp_path, ollama_host=fake.url, ollama_models={"generate": "qwen2.5:7b"},
            ollama_timeout_s=5,
        )  # fmt: skip
        async for opened in _ingested(settings):
            yield opened


async def test_an_exercise_is_sent_again_as_its_sheet_for_its_owner_only(
    with_model: Assembly,
) -> None:
    made = await respond(with_model, "exercise", "derivatives hard")
    sheet = made.replies[0]
    assert isinstance(sheet, ExerciseSheet) and sheet.exercise_id.startswith("gen-")
    material_id = int(sheet.exercise_id.removeprefix("gen-"))
    [row] = [r for r in listing(await materials(with_model)) if r.startswith("#")]
    assert row.startswith(f"#{material_id} · exercise · derivatives · ") and row.endswith(" · hard")
    again = await materials(with_model, f"send {material_id}")
    resent, hint = again.replies
    assert resent == sheet
    assert isinstance(hint, Notice) and f"/practice {sheet.exercise_id}" in hint.text
    bob = await materials(with_model, f"send {material_id}", user="bob")
    assert error(bob) == f"You have no material #{material_id} in this course."
