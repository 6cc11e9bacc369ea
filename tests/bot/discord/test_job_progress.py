"""Lessons and study sets as background jobs in Discord: the real discord.py client on the fake
Discord HTTP layer, the jobs run in the process or through arq on the real Redis. The deferred
response ("thinking…") is edited with the job's steps as it advances, then replaced by the
outcome (the PDF and its preview; the flashcards)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from support.fake_discord import ALICE, COURSE, EDIT_ORIGINAL, IN_COURSE
from support.job_engines import ENGINES, delete_keys, jobs_on
from support.paths import SAMPLE_COURSE

from core.material import SourceFile

STEP_ONE = "Making your {what} on '{topic}': reading the course material (step 1 of {steps})…"


@pytest.fixture
async def prefix(redis_prefix: str) -> AsyncIterator[str]:
    yield redis_prefix
    await delete_keys(redis_prefix)


@pytest.mark.parametrize("engine", ENGINES)
async def test_a_lesson_job_edits_the_deferred_response_then_the_pdf_replaces_it(
    app, engine: str, prefix: str
) -> None:
    lecture = SourceFile.at(SAMPLE_COURSE / "lecture-02-derivatives.pdf")
    assert not (await app.bot.ingest_files(COURSE, [lecture])).failed

    async with jobs_on(engine, app.bot, prefix):
        sent = await app.run("lesson", ALICE, IN_COURSE, topic="derivatives", slides="3-4")

    edits = [r for r in sent if r.is_(*EDIT_ORIGINAL)]
    shown = [edit.content for edit in edits if not edit.files]
    assert shown[0] == STEP_ONE.format(what="lesson", topic="derivatives", steps=4)
    assert shown[-1] == "Ready: your lesson on 'derivatives'."
    # The outcome takes the deferred response's place: its last edit carries a file.
    assert edits[-1].files and edits.index(edits[-1]) > 0
    files = {name for r in sent for name, _ in r.files}
    assert files == {"lesson-derivatives-v1.pdf", "lesson-derivatives-v1-preview.png"}


@pytest.mark.parametrize("engine", ENGINES)
async def test_a_flashcards_job_shows_its_steps_before_the_cards(
    app, engine: str, prefix: str
) -> None:
    async with jobs_on(engine, app.bot, prefix):
        sent = await app.run("flashcards", ALICE, IN_COURSE, topic="exam")

    edits = [r for r in sent if r.is_(*EDIT_ORIGINAL)]
    shown = [edit.content for edit in edits]
    assert shown[0] == STEP_ONE.format(what="flashcards", topic="exam", steps=2)
    assert shown[-2] == "Ready: your flashcards on 'exam'."
    # The set replaces the progress in the deferred response.
    assert "Flashcards: exam" in str(edits[-1].data)
