"""Core replies as Telegram messages: pure functions from a reply to what is sent, so the
rendering is tested without a server. Text is Telegram HTML; no message exceeds Telegram's
4,096 characters, and a citation line or a tag is never cut (`bot.common.splitting`)."""

from __future__ import annotations

from dataclasses import dataclass

from bot.common import wording
from bot.common.splitting import pack, split_text
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
    QuizReply,
    Reply,
    SourceList,
    StepPrompt,
)


@dataclass(frozen=True, slots=True)
class TextMessage:
    html: str


@dataclass(frozen=True, slots=True)
class FileMessage:
    """A file with an HTML caption; `as_photo` shows an image inline instead of as a file."""

    file_name: str
    content: bytes
    caption: str
    as_photo: bool


Outgoing = TextMessage | FileMessage


def render_all(replies: list[Reply], limit: int = MESSAGE_LIMIT) -> list[Outgoing]:
    return [item for reply in replies for item in render(reply, limit)]


def render(reply: Reply, limit: int = MESSAGE_LIMIT) -> list[Outgoing]:
    match reply:
        case Answer():
            return _texts(_answer_units(reply, limit), limit)
        case Notice(text=text, title=title):
            heading = [bold(title)] if title else []
            return _texts([*heading, *_body(text, limit)], limit)
        case SourceList():
            units = [bold(wording.sources_heading(reply))]
            units.extend(escape(f"• {wording.source_line(e)}") for e in reply.entries)
            return _texts(units, limit)
        case StepPrompt():
            feedback = _body(reply.feedback, limit)
            heading = bold(wording.step_heading(reply))
            return _texts([*feedback, heading, *_body(reply.prompt, limit)], limit)
        case DocumentReply():
            return [_file(reply)]
        case IngestSummary(report=report):
            return _texts([escape(line) for line in wording.ingest_report_lines(report)], limit)
        case ExerciseSheet():
            return _texts(_sheet_units(reply, limit), limit)
        case QuizReply():
            units = [bold(wording.quiz_heading(reply)), *_note(reply.note, limit)]
            for question in reply.questions:
                units.append("\n" + escape("\n".join(wording.question_lines(question))))
            units.append("\n" + _italic(wording.QUIZ_HOW, limit)[0])
            return _texts(units, limit)
        case FlashcardTurn():
            return _texts([escape("\n".join(wording.card_lines(reply)))], limit)
        case FlashcardsReply():
            units = [bold(wording.flashcards_heading(reply)), *_note(reply.note, limit)]
            for number, card in enumerate(reply.cards, 1):
                # The back stays hidden until tapped, as a flashcard should.
                front, back = escape(_short(card.front)), escape(_short(card.back))
                units.append(f"{number}. {front}\n<tg-spoiler>{back}</tg-spoiler>")
            return _texts(units, limit)
        case ErrorReply(text=text):
            return _texts(_body(text, limit), limit)
    raise TypeError(f"no Telegram rendering for {type(reply).__name__}")


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
