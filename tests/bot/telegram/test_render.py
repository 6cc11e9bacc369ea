"""The Telegram renderer on its own: core replies to HTML messages, files and quiz polls, with
no message over Telegram's limit and no citation line or tag cut across messages."""

from __future__ import annotations

import random
import re

from hypothesis import given, settings
from hypothesis import strategies as st
from support.fake_telegram import html_problem, visible_text

from bot.common import wording
from bot.telegram.callbacks import card_command
from bot.telegram.render import FileMessage, PollMessage, TextMessage, render
from core.commands import ParsedCommand
from core.replies import (
    Answer,
    Citation,
    DocumentReply,
    ErrorReply,
    FlashcardsReply,
    FlashcardTurn,
    FlashcardView,
    Notice,
    QuizQuestion,
    QuizReply,
    SourceEntry,
    SourceList,
    StepPrompt,
)

LIMIT = 4096


def html_of(items: list[object]) -> list[str]:
    assert all(isinstance(item, TextMessage) for item in items)
    return [item.html for item in items if isinstance(item, TextMessage)]


def long_answer() -> Answer:
    """About 10,000 characters of text full of characters HTML must escape, one word longer
    than a message, and 60 citations (some labels long enough to be shortened)."""
    words = random.Random(7).choices(
        ["derivative", "limit", "x<3", "a&b", "f(x)>0", "“quoted”", "slope", "Δy/Δx"], k=1300
    )
    sentences = [" ".join(words[n : n + 12]) + "." for n in range(0, len(words), 12)]
    paragraphs = ["\n".join(sentences[n : n + 5]) for n in range(0, len(sentences), 5)]
    text = "\n\n".join(paragraphs) + " " + "&" * 1500
    citations = tuple(
        Citation(f"lecture-{n:02d} <draft> & notes.pdf", page=n, section="S" * (n * 6))
        for n in range(1, 61)
    )
    return Answer(text=text, citations=citations, quoted=True, note="the LLM did not answer")


def test_a_long_answer_is_split_without_cutting_a_citation_or_a_tag() -> None:
    answer = long_answer()
    assert len(answer.text) > 10_000
    messages = html_of(render(answer))
    assert len(messages) >= 4
    assert all(len(message) <= LIMIT for message in messages)
    assert all(html_problem(message) is None for message in messages)
    shown = [visible_text(message) for message in messages]
    lines = [line for text in shown for line in text.splitlines()]
    for expected in wording.citation_lines(answer):
        assert lines.count(expected) == 1  # whole, once
    assert shown[0].startswith("(the LLM did not answer)\nFrom the course material (quoted):")


def test_a_split_answer_keeps_every_character_in_order() -> None:
    answer = long_answer()
    shown = "\n".join(visible_text(m) for m in html_of(render(answer)))
    body = shown.split(wording.SOURCES_HEADING)[0]
    expected = "\n".join([*wording.answer_preface(answer), answer.text])
    # Only whitespace may change where a message ends.
    assert "".join(body.split()) == "".join(expected.split())


@settings(max_examples=60, deadline=None)
@given(
    text=st.text(alphabet=st.sampled_from("ab <>&\"'\n.é😀"), min_size=1, max_size=3000),
    labels=st.lists(st.text(alphabet="xy<&> .", min_size=1, max_size=40), max_size=30),
)
def test_any_answer_fits_and_parses(text: str, labels: list[str]) -> None:
    answer = Answer(text=text, citations=tuple(Citation(label) for label in labels))
    messages = html_of(render(answer, limit=500))
    assert all(len(message) <= 500 for message in messages)
    assert all(html_problem(message) is None for message in messages)
    lines = [line for m in messages for line in visible_text(m).splitlines()]
    for expected in wording.citation_lines(answer):
        assert expected.strip() in lines or expected in lines


def test_an_answer_the_material_does_not_cover_is_set_apart() -> None:
    answer = Answer("The course material does not cover this question.", grounded=False)
    assert html_of(render(answer)) == ["<i>The course material does not cover this question.</i>"]


def test_a_short_answer_is_one_message_with_a_sources_block() -> None:
    answer = Answer(
        "“The final exam is on 14 December in Hall A.” [1]",
        citations=(Citation("syllabus.md", section="Exams"), Citation("slides.pdf", page=3)),
        quoted=True,
    )
    [message] = html_of(render(answer))
    assert message == (
        "<i>From the course material (quoted):</i>\n"
        "“The final exam is on 14 December in Hall A.” [1]\n\n"
        "<b>Sources:</b>\n[1] syllabus.md, Exams\n[2] slides.pdf, p. 3"
    )


def test_notices_sources_steps_and_errors_are_escaped() -> None:
    [notice] = html_of(render(Notice("Use <b> & enjoy", title="coursebot")))
    assert notice == "<b>coursebot</b>\nUse &lt;b&gt; &amp; enjoy"
    [error] = html_of(render(ErrorReply("'<script>' is not a course id")))
    assert error == "'&lt;script&gt;' is not a course id"
    listing = SourceList(
        "calc101",
        (SourceEntry("d1", "a&b.pdf", "slides", 3), SourceEntry("d2", "n.md", "notes", 1, True)),
    )
    [sources] = html_of(render(listing))
    assert sources == (
        "<b>Documents in 'calc101':</b>\n• a&amp;b.pdf (slides, 3 chunks)\n"
        "• n.md (notes, 1 chunk, private)"
    )
    [empty] = html_of(render(SourceList("calc101", ())))
    assert empty == "<b>The course 'calc101' has no documents yet.</b>"
    step = StepPrompt("Limits", 2, 3, "What is lim x->0 of x<1?", feedback="✗ Not quite.")
    [prompt] = html_of(render(step))
    assert prompt == "✗ Not quite.\n<b>Limits — step 2/3</b>\nWhat is lim x-&gt;0 of x&lt;1?"


def test_a_png_is_a_photo_and_other_files_are_documents() -> None:
    [chart] = render(DocumentReply("chart.png", b"\x89PNG", "image/png", "Mistakes & more"))
    assert chart == FileMessage("chart.png", b"\x89PNG", "Mistakes &amp; more", as_photo=True)
    [csv] = render(DocumentReply("mistakes.csv", b"a,b\n", "text/csv"))
    assert csv == FileMessage("mistakes.csv", b"a,b\n", "", as_photo=False)


def test_a_long_caption_is_shortened_to_telegrams_limit() -> None:
    [item] = render(DocumentReply("x.csv", b"", "text/csv", "a&b " * 400))
    assert isinstance(item, FileMessage)
    assert len(item.caption) <= 1024 and item.caption.endswith("…")
    assert html_problem(item.caption) is None
    assert re.fullmatch(r"(a&amp;b )*a?(&amp;)?b?…", item.caption)


def test_a_quiz_is_a_heading_then_one_poll_per_question_within_telegrams_limits() -> None:
    long_label = Citation("notes/" + "a" * 60 + ".pdf", page=3, section="S" * 80)
    questions = (
        QuizQuestion(1, "What is d/dx x^2?", ("2x", "x", "x^2", "2"), 0, "Power rule.",
                     Citation("lecture-02.pdf", page=4)),
        QuizQuestion(2, "Q" * 400, ("o" * 150, "b", "c", "d"), 3, "E\n" * 300, long_label),
    )  # fmt: skip
    heading, first, second = render(QuizReply(7, "derivatives", questions, False, "Fallback."))
    assert isinstance(heading, TextMessage) and "Fallback." in heading.html
    assert isinstance(first, PollMessage) and isinstance(second, PollMessage)
    assert (first.quiz_id, first.number, first.correct) == (7, 1, 0)
    assert first.question == "1. What is d/dx x^2?"
    assert first.explanation == "Power rule.\nSource: lecture-02.pdf, p. 4"
    assert len(second.question) == 300 and second.question.endswith("…")
    assert max(len(o) for o in second.options) == 100
    # Telegram's 200 characters and two line feeds; the citation is the part kept whole.
    assert len(second.explanation) <= 200 and second.explanation.count("\n") <= 2
    assert second.explanation.endswith(long_label.label()[-20:])


def test_flashcards_show_the_first_front_with_buttons_and_the_last_has_no_next() -> None:
    cards = tuple(FlashcardView(f"front {n}", f"back {n}") for n in (1, 2, 3))
    heading, card = render(FlashcardsReply(12, "limits", cards))
    assert isinstance(heading, TextMessage) and isinstance(card, TextMessage)
    assert "Card 1 of 3" in card.html and "back 1" not in card.html
    assert [(b.text, b.data) for b in card.buttons] == [
        ("Show answer", "card:12:1:back"),
        ("Next", "card:12:2"),
    ]
    [turned] = render(FlashcardTurn(12, 3, 3, "front 3", "back 3"))
    assert isinstance(turned, TextMessage) and "back 3" in turned.html
    assert turned.buttons == ()
    [last] = render(FlashcardTurn(12, 3, 3, "front 3"))
    assert isinstance(last, TextMessage) and [b.text for b in last.buttons] == ["Show answer"]
    # What the buttons carry is the core's /card again, and nothing else is.
    assert card_command("card:12:1:back") == ParsedCommand("card", "12 1 back")
    assert card_command("card:12:2") == ParsedCommand("card", "12 2")
    assert card_command("card:12:2:front") is None and card_command(None) is None
