"""Core replies as Telegram messages: pure functions from a reply to what is sent, so the
rendering is tested without a server. Text is Telegram HTML; no message exceeds Telegram's
4,096 characters, and a citation line or a tag is never cut (`bot.common.splitting`).

A quiz is a heading and one native quiz poll per question (Telegram grades a vote itself);
flashcards come one card at a time with "Show answer" and "Next" buttons."""

from __future__ import annotations

from dataclasses import dataclass, replace

from telegram.constants import PollLimit

from bot.common import wording
from bot.common.splitting import pack, split_text
from bot.telegram.callbacks import Button, card_buttons, page_data, reason_buttons, vote_buttons
from bot.telegram.markup import (
    CAPTION_LIMIT,
    MESSAGE_LIMIT,
    bold,
    escape,
    escaped_length,
    italic_html,
    truncate,
)
from core.replies import (
    Answer,
    DocumentReply,
    ErrorReply,
    ExerciseSheet,
    FlashcardsReply,
    FlashcardTurn,
    IngestSummary,
    Notice,
    QuizQuestion,
    QuizReply,
    Reply,
    SourceList,
    StepPrompt,
    VoteReasons,
)
from core.text import shown_name


@dataclass(frozen=True, slots=True)
class TextMessage:
    """HTML text, with a row of inline keyboard buttons under it if any. `anchor` is the
    core's (`Notice.anchor`): once sent, the message's id is reported with it."""

    html: str
    buttons: tuple[Button, ...] = ()
    anchor: str = ""


@dataclass(frozen=True, slots=True)
class FileMessage:
    """A file with an HTML caption; `as_photo` shows an image inline instead of as a file."""

    file_name: str
    content: bytes
    caption: str
    as_photo: bool


@dataclass(frozen=True, slots=True)
class PollMessage:
    """A native quiz poll for one question, in plain text within Telegram's limits.
    `quiz_id` and `number` (from 1) say which question it asks, for the core to remember."""

    quiz_id: int
    number: int
    question: str
    options: tuple[str, ...]
    correct: int
    explanation: str


Outgoing = TextMessage | FileMessage | PollMessage


def render_all(replies: list[Reply], limit: int = MESSAGE_LIMIT) -> list[Outgoing]:
    return [item for reply in replies for item in render(reply, limit)]


def render(reply: Reply, limit: int = MESSAGE_LIMIT) -> list[Outgoing]:
    match reply:
        case Answer():
            votes = vote_buttons(reply.feedback_id) if reply.feedback_id is not None else ()
            return _with_buttons(
                _texts(_answer_units(reply, limit), limit), (*_page_buttons(reply), *votes)
            )
        case Notice(text=text, title=title, anchor=anchor):
            heading = [bold(title)] if title else []
            texts = _texts([*heading, *_body(text, limit)], limit)
            if anchor and texts and isinstance(texts[0], TextMessage):
                texts[0] = replace(texts[0], anchor=anchor)
            return texts
        case SourceList():
            units = [bold(wording.sources_heading(reply))]
            units.extend(escape(f"• {wording.source_line(e)}") for e in reply.entries)
            return _texts(units, limit)
        case StepPrompt():
            feedback = _body(reply.feedback, limit)
            step_title = bold(wording.step_heading(reply))
            return _texts([*feedback, step_title, *_body(reply.prompt, limit)], limit)
        case DocumentReply():
            return [_file(reply)]
        case IngestSummary(report=report):
            return _texts([escape(line) for line in wording.ingest_report_lines(report)], limit)
        case ExerciseSheet():
            return _texts(_sheet_units(reply, limit), limit)
        case QuizReply():
            units = [bold(wording.quiz_heading(reply)), *_note(reply.note, limit)]
            units.extend(_italic(wording.QUIZ_POLLS_HOW, limit))
            polls = [_poll(reply.quiz_id, question) for question in reply.questions]
            return [*_texts(units, limit), *polls]
        case FlashcardTurn():
            return [_card(reply)]
        case FlashcardsReply():
            units = [bold(wording.flashcards_heading(reply)), *_note(reply.note, limit)]
            shown = _texts(units, limit)
            if not reply.cards:
                return shown
            first = reply.cards[0]
            # The first card, front only: its buttons turn it and go on (the core's /card).
            turn = FlashcardTurn(reply.set_id, 1, len(reply.cards), first.front, None, first.source)
            return [*shown, _card(turn)]
        case VoteReasons(answer_id=answer_id, text=text, reasons=reasons):
            return [TextMessage(escape(text), reason_buttons(answer_id, reasons))]
        case ErrorReply(text=text):
            return _texts(_body(text, limit), limit)
    raise TypeError(f"no Telegram rendering for {type(reply).__name__}")


def _poll(quiz_id: int, question: QuizQuestion) -> PollMessage:
    # The checks keep questions and options within the limits; cutting here is the last
    # guard, since Telegram refuses a poll over them.
    return PollMessage(
        quiz_id=quiz_id,
        number=question.number,
        question=_cut(f"{question.number}. {question.question}", PollLimit.MAX_QUESTION_LENGTH),
        options=tuple(_cut(o, PollLimit.MAX_OPTION_LENGTH) for o in question.options),
        correct=question.correct,
        explanation=_explanation(question),
    )


def _explanation(question: QuizQuestion) -> str:
    """The explanation Telegram shows after a vote: the item's own, then its citation, in
    200 characters and on at most three lines. The citation is kept whole when it fits; the
    explanation gives way."""
    limit = PollLimit.MAX_EXPLANATION_LENGTH
    label = shown_name(question.source.label()) if question.source else ""
    source = f"Source: {label}" if label else ""
    text = " ".join(question.explanation.split())
    if label:  # an explanation quoting its citation: the citation goes on its own line
        text = text.replace(f"({label})", "").strip()
    if not source:
        return _cut(text, limit)
    if len(source) >= limit - 10 or not text:
        return _cut(source, limit)
    return f"{_cut(text, limit - len(source) - 1)}\n{source}"


def _page_buttons(answer: Answer) -> tuple[Button, ...]:
    """A "Show page" button per pictured page the answer cites (the core's `/page`)."""
    return tuple(
        Button(wording.page_button_label(number, c), page_data(c.document_id, c.page))
        for number, c in wording.pictured_pages(answer)
        if c.document_id and c.page is not None
    )


def _with_buttons(messages: list[Outgoing], buttons: tuple[Button, ...]) -> list[Outgoing]:
    """`buttons` under the last message (the one with the sources)."""
    if buttons and messages and isinstance(last := messages[-1], TextMessage):
        messages[-1] = TextMessage(last.html, buttons)
    return messages


def _card(turn: FlashcardTurn) -> TextMessage:
    text = escape("\n".join(_short(line) for line in wording.card_lines(turn)))
    buttons = card_buttons(turn.set_id, turn.number, turn.count, turned=turn.back is not None)
    return TextMessage(text, buttons)


def _cut(text: str, limit: int) -> str:
    """Plain text (poll texts take no markup) in at most `limit` characters."""
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _answer_units(answer: Answer, limit: int) -> list[str]:
    units = [piece for line in wording.answer_preface(answer) for piece in _italic(line, limit)]
    # "Not covered" must not read like an answer: set it apart.
    units.extend(_body(answer.text, limit) if answer.grounded else _italic(answer.text, limit))
    if answer.citations:
        # The leading newline leaves a blank line before the heading; it is stripped if the
        # heading happens to open a message.
        units.append("\n" + bold(wording.SOURCES_HEADING))
        units.extend(escape(line) for line in wording.citation_lines(answer))
    return units


def _sheet_units(sheet: ExerciseSheet, limit: int) -> list[str]:
    units = [bold(wording.sheet_heading(sheet)), *_body(sheet.statement, limit)]
    units.extend(piece for line in wording.sheet_notes(sheet) for piece in _italic(line, limit))
    units.append("\n" + bold(wording.SOLUTION_LABEL))
    # Every piece in its own spoiler: a solution longer than a message stays hidden too.
    room = limit - len("<tg-spoiler></tg-spoiler>")
    units.extend(f"<tg-spoiler>{piece}</tg-spoiler>" for piece in _body(sheet.solution, room))
    return units


def _body(text: str, limit: int) -> list[str]:
    """Free text as escaped pieces that each fit a message (with room for one tag pair)."""
    room = limit - len("<i></i>")
    return [escape(piece) for piece in split_text(text, room, measure=escaped_length)]


def _note(text: str, limit: int) -> list[str]:
    return _italic(text, limit) if text else []


def _short(text: str, chars: int = 1500) -> str:
    """A card side short enough that a card always fits one message with its markup."""
    return text if len(text) <= chars else text[: chars - 1] + "…"


def _italic(text: str, limit: int) -> list[str]:
    return [italic_html(piece) for piece in _body(text, limit)]


def _texts(units: list[str], limit: int) -> list[Outgoing]:
    return [TextMessage(message.strip()) for message in pack(units, limit) if message.strip()]


def _file(reply: DocumentReply) -> FileMessage:
    return FileMessage(
        file_name=reply.file_name,
        content=reply.content,
        caption=truncate(reply.caption, CAPTION_LIMIT),
        as_photo=reply.media_type == "image/png",
    )
