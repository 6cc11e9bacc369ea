"""Core replies as Discord messages: limits kept, citations whole, material shown literally."""

from __future__ import annotations

import discord
from hypothesis import example, given, settings
from hypothesis import strategies as st

from bot.common import wording
from bot.discord.markup import escape
from bot.discord.render import (
    EMBED_CHARACTERS_PER_MESSAGE,
    EMBED_DESCRIPTION_LIMIT,
    EMBEDS_PER_MESSAGE,
    MESSAGE_LIMIT,
    SOURCES_TITLE,
    Outgoing,
    embed_batches,
    render,
)
from core.replies import (
    Answer,
    Citation,
    DocumentReply,
    ErrorReply,
    Notice,
    SourceEntry,
    SourceList,
    StepPrompt,
)

words = st.text(
    alphabet=st.characters(codec="utf-8", exclude_categories=("Cs", "Cc", "Zs", "Zl", "Zp")),
    min_size=1,
    max_size=30,
)
texts = st.lists(st.tuples(words, st.sampled_from([" ", " ", "\n", "\n\n", ". "])), max_size=400)
citations = st.lists(
    st.builds(
        Citation,
        file_name=words,
        page=st.none() | st.integers(1, 999),
        section=st.none()
        | st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), max_size=400),
        private=st.booleans(),
    ),
    max_size=60,
)


def shown(text: str) -> str:
    return "".join(text.split()).replace("\\", "").replace("\u200b", "")


def joined(parts: list[tuple[str, str]]) -> str:
    return "".join(word + gap for word, gap in parts)


def check_limits(messages: list[Outgoing]) -> None:
    for message in messages:
        assert len(message.content) <= MESSAGE_LIMIT
        assert len(message.embeds) <= EMBEDS_PER_MESSAGE
        assert sum(len(e) for e in message.embeds) <= EMBED_CHARACTERS_PER_MESSAGE
        assert all(len(e.description or "") <= EMBED_DESCRIPTION_LIMIT for e in message.embeds)
        assert message.content or message.embeds or message.attachments


@settings(max_examples=60, deadline=None)
@given(texts, citations)
@example(  # several messages of text, several embeds of sources
    parts=[("derivative", " "), ("[1].", "\n\n"), ("x" * 30, "\n")] * 200,
    cited=[Citation("lecture.pdf", 3, "s" * 290)] * 40,
)
def test_answers_keep_discords_limits_and_every_citation_whole(parts, cited) -> None:
    answer = Answer(text=joined(parts), citations=tuple(cited))
    messages = render(answer)
    check_limits(messages)
    lines = [
        line
        for message in messages
        for embed in message.embeds
        for line in (embed.description or "").split("\n")
    ]
    assert lines == [escape(line) for line in wording.citation_lines(answer)]
    assert all(e.title == SOURCES_TITLE for m in messages for e in m.embeds)
    # Every character of the answer is there, in order; only the whitespace where it was
    # cut may differ (and escapes, which depend on where a line starts).
    assert shown("".join(m.content for m in messages)) == shown(answer.text)


def test_material_cannot_format_or_ping() -> None:
    [message] = render(Answer("**Bold** claim for @everyone and <@123456789012345678>"))
    assert message.content.startswith("\\*\\*Bold\\*\\* claim")
    assert "@everyone" not in message.content
    assert "<@123456789012345678>" not in message.content


def test_sources_embeds_fill_messages_within_the_per_message_total() -> None:
    embeds = [discord.Embed(title=SOURCES_TITLE, description="x" * 4000) for _ in range(3)]
    assert [len(batch) for batch in embed_batches(embeds)] == [1, 1, 1]
    small = [discord.Embed(title=SOURCES_TITLE, description="x") for _ in range(12)]
    assert [len(batch) for batch in embed_batches(small)] == [10, 2]


def test_a_document_becomes_an_attachment() -> None:
    [message] = render(DocumentReply("mistakes.csv", b"a,b\n", "text/csv", "Mistakes_all"))
    assert message.content == "Mistakes\\_all"
    [attachment] = message.attachments
    file = attachment.to_file()
    assert file.filename == "mistakes.csv"
    assert file.fp.read() == b"a,b\n"


def test_a_step_shows_feedback_then_its_heading_then_the_prompt() -> None:
    step = StepPrompt("Limits", 2, 3, "What is lim x→0 of sin(x)/x?", feedback="✓ Right.")
    [message] = render(step)
    assert message.content == "✓ Right.\n**Limits — step 2/3**\nWhat is lim x→0 of sin(x)/x?"


def test_refusals_and_source_lists_are_plain_text() -> None:
    """Who sees them is the core's `Response.private`, not the renderer's business."""
    [refusal] = render(ErrorReply("No *way*."))
    assert refusal.content == "No \\*way\\*."
    [notice] = render(Notice("Bound.", title="coursebot"))
    assert notice.content == "**coursebot**\nBound."
    mine = SourceList("calc101", (SourceEntry("d1", "mine.md", "notes", 2, private=True),))
    [listed] = render(mine)
    assert listed.content.startswith(escape(wording.sources_heading(mine)))
    assert escape(wording.source_line(mine.entries[0])) in listed.content
