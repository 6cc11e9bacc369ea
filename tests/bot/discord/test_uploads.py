"""/ingest and /notes: attachments are checked before they are downloaded, progress edits the
deferred message, and a student's notes stay theirs."""

from __future__ import annotations

from support.fake_discord import (
    ALICE,
    BOB,
    EDIT_ORIGINAL,
    IN_COURSE,
    TESS,
    File,
)

GLOSSARY = File(
    "glossary.md",
    b"# Glossary\n\nA secant line crosses a curve at two points; "
    b"its slope approaches the derivative.\n",
)
NOTES = File(
    "alice-notes.md",
    b"# My notes\n\nMy mnemonic for the quotient rule is low dee high minus high dee low.\n",
)
MNEMONIC = "What is the mnemonic for the quotient rule?"


async def test_an_instructor_ingests_with_progress_then_a_report(app) -> None:
    app.fake.serve(GLOSSARY)
    sent = await app.run("ingest", TESS, IN_COURSE, file=GLOSSARY)

    assert sent[0].ephemeral
    assert app.fake.downloads == [GLOSSARY.payload()["url"]]
    edits = [r for r in sent if r.is_(*EDIT_ORIGINAL)]
    assert edits[0].content.startswith("Ingesting file 1 of 1: glossary.md")
    assert edits[-1].content.startswith("✓ glossary.md: added,")
    assert edits[-1].content.endswith("1 of 1 files ingested")
    assert all(r.ephemeral for r in sent)
    listed = await app.run("sources", ALICE, IN_COURSE)
    assert "glossary.md (" in listed[-1].content


async def test_a_student_cannot_ingest_and_nothing_is_downloaded(app) -> None:
    app.fake.serve(GLOSSARY)
    sent = await app.run("ingest", ALICE, IN_COURSE, file=GLOSSARY)
    assert sent[-1].ephemeral
    assert sent[-1].content == "Sorry, only a course instructor can add course material."
    assert app.fake.downloads == []


async def test_a_missing_attachment_is_asked_for(app) -> None:
    sent = await app.run("notes", ALICE, IN_COURSE)
    assert sent[-1].ephemeral
    assert sent[-1].content == "Please attach a file to /notes (up to 3)."


async def test_an_unsupported_file_is_refused_before_download(app) -> None:
    program = File("setup.exe", b"MZ\x90\x00")
    app.fake.serve(program)
    sent = await app.run("ingest", TESS, IN_COURSE, file=program)
    assert sent[-1].ephemeral
    assert sent[-1].content.startswith("'setup.exe': ")
    assert app.fake.downloads == []


async def test_an_oversized_file_is_refused_before_download(app) -> None:
    huge = File("huge.pdf", b"%PDF-1.4", size=80 * 1024 * 1024)
    app.fake.serve(huge)
    sent = await app.run("ingest", TESS, IN_COURSE, file=huge, file2=GLOSSARY)
    assert sent[-1].ephemeral
    assert sent[-1].content == "'huge.pdf' is 80.0 MB; the limit is 50 MB."
    assert app.fake.downloads == []


async def test_a_file_discord_no_longer_serves_is_reported(app) -> None:
    sent = await app.run("ingest", TESS, IN_COURSE, file=GLOSSARY)  # never served
    assert sent[-1].ephemeral
    assert "could not download 'glossary.md'" in sent[-1].content


async def test_notes_are_private_to_the_student_who_sent_them(app) -> None:
    app.fake.serve(NOTES)
    added = await app.run("notes", ALICE, IN_COURSE, file=NOTES)
    assert added[0].ephemeral
    assert added[-1].content.startswith("✓ alice-notes.md: added,")

    # Alice's answer quotes her notes, so it is shown to her alone even in the channel.
    hers = await app.run("ask", ALICE, IN_COURSE, question=MNEMONIC)
    answer = hers[-1]
    assert answer.ephemeral
    assert "low dee high" in answer.content
    assert "alice-notes.md (your notes)" in answer.embeds[0]["description"]

    theirs = await app.run("ask", BOB, IN_COURSE, question=MNEMONIC)
    assert "low dee high" not in theirs[-1].content
    assert all("alice-notes.md" not in e["description"] for e in theirs[-1].embeds)
    assert "alice-notes.md" not in (await app.run("sources", BOB, IN_COURSE))[-1].content
    assert "alice-notes.md" in (await app.run("sources", ALICE, IN_COURSE))[-1].content
