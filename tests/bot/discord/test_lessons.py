"""A lesson deck in Discord: the slash command's options reach the core as `/lesson` words, and
the PDF arrives as an attachment beside its first-slide preview, in the channel."""

from __future__ import annotations

from support.fake_discord import ALICE, COURSE, IN_COURSE
from support.paths import SAMPLE_COURSE

from core.material import SourceFile


async def test_a_lesson_is_attached_as_a_pdf_with_its_preview(app) -> None:
    lecture = SourceFile.at(SAMPLE_COURSE / "lecture-02-derivatives.pdf")
    assert not (await app.bot.ingest_files(COURSE, [lecture])).failed

    sent = await app.run("lesson", ALICE, IN_COURSE, topic="derivatives", slides="3-4",
                         profile="dyslexia")  # fmt: skip

    assert not sent[0].ephemeral  # a course channel's deck has no private notes in it
    files = {name: content for r in sent for name, content in r.files}
    assert set(files) == {"lesson-derivatives-v1.pdf", "lesson-derivatives-v1-preview.png"}
    assert files["lesson-derivatives-v1.pdf"].startswith(b"%PDF")
    assert files["lesson-derivatives-v1-preview.png"].startswith(b"\x89PNG")
    [pdf_message] = [r for r in sent if "lesson-derivatives-v1.pdf" in dict(r.files)]
    assert pdf_message.content.startswith("derivatives: dyslexia profile, ")
    assert "lecture-02-derivatives.pdf" in pdf_message.content
