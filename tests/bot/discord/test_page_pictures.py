"""A citation's "Show page" on Discord over the real client library: the answer carries a
button per pictured page, a press sends the page's picture to the presser alone, and a
hand-made custom id naming a classmate's notes or another course's page is refused by the
core."""

from __future__ import annotations

from pathlib import Path

from fpdf import FPDF
from support.fake_discord import (
    ADA,
    ALICE,
    BOB,
    COURSE,
    ELSEWHERE,
    IN_COURSE,
    Request,
    button_press,
    custom_ids,
    press,
)
from support.paths import SAMPLE_COURSE

from bot.discord.members import user_key
from core.material import SourceFile
from ingestion.identity import document_id

LECTURE = SAMPLE_COURSE / "lecture-01-limits.pdf"
SQUEEZE = "What does the squeeze theorem say?"


async def pressed(app, custom_id: str, person, place, message) -> Request:
    start = len(app.fake.requests)
    await press(app.client, button_press(custom_id, person, place, message))
    return app.fake.requests[start:][-1]


def carrying(message: dict, custom_id: str) -> dict:
    """`message` as a hand-made client shows it: with a button of any custom id."""
    button = {"type": 2, "style": 2, "label": "Show page", "custom_id": custom_id}
    return {**message, "components": [{"type": 1, "components": [button]}]}


def notes_pdf(path: Path) -> Path:
    pdf = FPDF()
    pdf.add_page()
    pdf.set_font("helvetica", size=12)
    pdf.set_xy(10, 120)
    pdf.multi_cell(w=180, text="Peel the chain rule like an onion, outside in.")
    pdf.output(str(path))
    return path


async def test_a_citations_button_sends_its_page_to_the_presser_alone(app) -> None:
    assert (await app.bot.ingest_files(COURSE, [SourceFile.at(LECTURE)])).failed == []
    sent = await app.run("ask", ALICE, IN_COURSE, question=SQUEEZE)
    [answer] = [r for r in sent if custom_ids(r)]
    lecture = document_id(COURSE, "lecture-01-limits.pdf")
    page, up, down = custom_ids(answer)
    assert page == f"coursebot:page:{lecture}:8"
    assert up.startswith("coursebot:vote:") and up.endswith(":up") and down.endswith(":down")
    button, *_votes = [c for row in answer.data["components"] for c in row["components"]]
    assert button["label"] == "Show p. 8 [1]"
    message = app.fake.message_of(answer, IN_COURSE.channel_id)
    shown = await pressed(app, f"coursebot:page:{lecture}:8", BOB, IN_COURSE, message)
    assert shown.ephemeral
    [(name, png)] = shown.files
    assert name == "lecture-01-limits-p8.png" and png.startswith(b"\x89PNG\r\n\x1a\n")
    assert shown.content == "lecture-01-limits.pdf, p. 8"


async def test_hand_made_ids_naming_a_private_or_another_courses_page_are_refused(
    app, tmp_path: Path
) -> None:
    notes = notes_pdf(tmp_path / "alice-notes.pdf")
    alice = user_key(ALICE.id)
    assert (await app.bot.ingest_files(COURSE, [SourceFile.at(notes)], owner=alice)).failed == []
    await app.run("bind", ADA, ELSEWHERE, course="physics1")  # Ada's own course
    assert (await app.bot.ingest_files("physics1", [SourceFile.at(LECTURE)])).failed == []
    alices = document_id(COURSE, "alice-notes.pdf", alice)
    physics = document_id("physics1", "lecture-01-limits.pdf")
    sent = await app.run("ask", BOB, IN_COURSE, question=SQUEEZE)
    message = app.fake.message_of(sent[-1], IN_COURSE.channel_id)
    for person, custom_id in (
        (BOB, f"coursebot:page:{alices}:1"),
        (BOB, f"coursebot:page:{physics}:1"),
        (ALICE, f"coursebot:page:{physics}:1"),
    ):
        refusal = await pressed(app, custom_id, person, IN_COURSE, carrying(message, custom_id))
        assert refusal.ephemeral and not refusal.files
        assert refusal.content.startswith("There is no picture of page 1")
    # Alice's own notes in the channel: even ephemeral, the channel is a shared place.
    own_id = f"coursebot:page:{alices}:1"
    own = await pressed(app, own_id, ALICE, IN_COURSE, carrying(message, own_id))
    assert not own.files and "private notes" in own.content
