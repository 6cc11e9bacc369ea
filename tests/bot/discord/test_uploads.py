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
    direct,
)

from core.uploads import DOWNLOAD_FAILED, NOTES_ARE_PRIVATE

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
    assert edits[-1].content.endswith("1 of 1 file ingested")
    assert all(r.ephemeral for r in sent)
    listed = await app.run("sources", ALICE, IN_COURSE)
    assert "glossary.md (" in listed[-1].content


async def test_a_student_cannot_ingest_and_nothing_is_downloaded(app) -> None:
    app.fake.serve(GLOSSARY)
    sent = await app.run("ingest", ALICE, IN_COURSE, file=GLOSSARY)
    assert sent[-1].ephemeral
    assert sent[-1].content == "Sorry, only a course instructor can add course material."
    assert app.fake.downloads == []


def test_the_first_attachment_is_required(app) -> None:
    """Discord itself asks for the file: /notes and /ingest cannot be sent without one."""
    commands = {command.name: command for command in app.client.tree.get_commands()}
    for name, optional in (("notes", ["file2", "file3"]), ("ingest", ["file2", "file5"])):
        parameters = {p.name: p for p in commands[name].parameters}
        assert parameters["file"].required, name
        assert not any(parameters[o].required for o in optional), name


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
    assert sent[-1].content == "'huge.pdf': the file is 80.0 MB; the limit is 50 MB"
    assert app.fake.downloads == []


async def test_a_file_discord_no_longer_serves_is_reported(app) -> None:
    sent = await app.run("ingest", TESS, IN_COURSE, file=GLOSSARY)  # never served
    assert sent[-1].ephemeral
    assert sent[-1].content == DOWNLOAD_FAILED.format(name="glossary.md")


async def test_notes_are_taken_only_in_a_direct_message(app) -> None:
    app.fake.serve(NOTES)
    refused = await app.run("notes", ALICE, IN_COURSE, file=NOTES)
    assert refused[0].ephemeral and refused[-1].ephemeral
    assert refused[-1].content == NOTES_ARE_PRIVATE
    assert app.fake.downloads == []  # refused before anything was fetched


async def add_alices_notes(app) -> None:
    app.fake.serve(NOTES)
    await app.run("status", ALICE, IN_COURSE)  # she writes in the course's channel first
    added = await app.run("notes", ALICE, direct(ALICE), file=NOTES)
    assert added[-1].content.startswith("✓ alice-notes.md: added,")


async def test_notes_are_private_to_the_student_who_sent_them(app) -> None:
    await add_alices_notes(app)

    # In her direct messages Alice's answer quotes her notes.
    hers = await app.run("ask", ALICE, direct(ALICE), question=MNEMONIC)
    answer = hers[-1]
    assert "low dee high" in answer.content
    assert "alice-notes.md (your notes)" in answer.embeds[0]["description"]

    # In the channel, even ephemerally, nobody's notes are searched: not even hers.
    in_channel = await app.run("ask", ALICE, IN_COURSE, question=MNEMONIC)
    assert "low dee high" not in in_channel[-1].content
    assert all("alice-notes.md" not in e["description"] for e in in_channel[-1].embeds)

    theirs = await app.run("ask", BOB, IN_COURSE, question=MNEMONIC)
    assert "low dee high" not in theirs[-1].content
    assert all("alice-notes.md" not in e["description"] for e in theirs[-1].embeds)


async def test_sources_lists_private_notes_only_in_a_direct_message(app) -> None:
    await add_alices_notes(app)
    in_channel = await app.run("sources", ALICE, IN_COURSE)
    assert "syllabus.md" in in_channel[-1].content
    assert "alice-notes.md" not in in_channel[-1].content
    assert "alice-notes.md" not in (await app.run("sources", BOB, IN_COURSE))[-1].content
    assert "alice-notes.md" in (await app.run("sources", ALICE, direct(ALICE)))[-1].content
