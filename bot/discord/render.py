"""Core replies as Discord messages: text in the message content, cut at Discord's 2,000
characters by `bot.common.splitting`; an answer's citations in "Sources" embeds (whole lines,
never cut); files as attachments; a quiz as one message per question with A-D buttons, and
flashcards one card at a time with "Show answer" and "Next" (`bot.discord.buttons`).
Rendering is pure: sending is `bot.discord.delivery`."""

from __future__ import annotations

import io
from collections.abc import Sequence
from dataclasses import dataclass, replace

import discord

from bot.common import wording
from bot.common.splitting import pack, split_text
from bot.discord.buttons import (
    Button,
    card_buttons,
    page_button,
    pick_button,
    reason_buttons,
    vote_buttons,
)
from bot.discord.markup import bold, escape, escaped_length
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

MESSAGE_LIMIT = 2000
EMBED_DESCRIPTION_LIMIT = 4096
EMBEDS_PER_MESSAGE = 10
EMBED_CHARACTERS_PER_MESSAGE = 6000
SOURCES_TITLE = "Sources"
SOURCES_COLOUR = discord.Colour.blurple()
# A title longer than this is shortened: it has to fit one message with room to spare.
_TITLE_CHARS = 200


@dataclass(frozen=True, slots=True)
class Attachment:
    """A file to attach. Kept as bytes: a `discord.File` is a stream that is used up once sent."""

    file_name: str
    content: bytes

    def to_file(self) -> discord.File:
        return discord.File(io.BytesIO(self.content), filename=self.file_name)


@dataclass(frozen=True, slots=True)
class Outgoing:
    """One Discord message. `anchor` is the core's (`Notice.anchor`): once sent, the
    message's id is reported with it."""

    content: str = ""
    embeds: tuple[discord.Embed, ...] = ()
    attachments: tuple[Attachment, ...] = ()
    buttons: tuple[Button, ...] = ()
    anchor: str = ""


def render(reply: Reply) -> list[Outgoing]:
    match reply:
        case Answer():
            messages = _answer(reply)
        case Notice(text=text, title=title, anchor=anchor):
            messages = _texts(_pack_text([_heading(title)] if title else [], text))
            if anchor and messages:
                messages[0] = replace(messages[0], anchor=anchor)
        case SourceList():
            units = [escape(wording.sources_heading(reply))]
            units.extend(escape(f"• {wording.source_line(entry)}") for entry in reply.entries)
            messages = _texts(pack(units, MESSAGE_LIMIT))
        case DocumentReply(file_name=name, content=content, caption=caption):
            messages = [Outgoing(content=escape(caption), attachments=(Attachment(name, content),))]
        case IngestSummary(report=report):
            lines = [escape(line) for line in wording.ingest_report_lines(report)]
            messages = _texts(pack(lines, MESSAGE_LIMIT))
        case StepPrompt():
            lead = [*_pieces(reply.feedback), _heading(wording.step_heading(reply))]
            messages = _texts(_pack_text(lead, reply.prompt))
        case ExerciseSheet():
            messages = _texts(pack(_sheet_units(reply), MESSAGE_LIMIT))
        case QuizReply():
            units = [_heading(wording.quiz_heading(reply))]
            units.extend(_pieces(reply.note) if reply.note else [])
            messages = _texts(pack(units, MESSAGE_LIMIT))
            messages.extend(_question(reply.quiz_id, question) for question in reply.questions)
        case FlashcardTurn():
            messages = [_card(reply)]
        case FlashcardsReply():
            units = [_heading(wording.flashcards_heading(reply))]
            units.extend(_pieces(reply.note) if reply.note else [])
            messages = _texts(pack(units, MESSAGE_LIMIT))
            if reply.cards:
                first = reply.cards[0]
                turn = FlashcardTurn(reply.set_id, 1, len(reply.cards), first.front)
                messages.append(_card(turn))
        case VoteReasons(answer_id=answer_id, text=text, reasons=reasons):
            messages = [Outgoing(content=escape(text), buttons=reason_buttons(answer_id, reasons))]
        case ErrorReply(text=text):
            messages = _texts(_pack_text([], text))
        case _:
            raise TypeError(f"no Discord rendering for {type(reply).__name__}")
    return messages


def render_all(replies: Sequence[Reply]) -> list[Outgoing]:
    return [message for reply in replies for message in render(reply)]


def practice_started(user_name: str, title: str, thread_mention: str) -> Outgoing:
    """The channel's note that a practice session goes on in its own thread."""
    return Outgoing(
        content=f"{escape(user_name)} started {_heading(title)}: it continues in {thread_mention}."
    )


def progress(text: str) -> str:
    return escape(text)[:MESSAGE_LIMIT]


def source_embeds(lines: Sequence[str]) -> list[discord.Embed]:
    """Citation lines, escaped, in as few embeds as their 4,096-character limit allows."""
    return [
        discord.Embed(title=SOURCES_TITLE, description=description, colour=SOURCES_COLOUR)
        for description in pack([escape(line) for line in lines], EMBED_DESCRIPTION_LIMIT)
    ]


def embed_batches(embeds: Sequence[discord.Embed]) -> list[tuple[discord.Embed, ...]]:
    """Embeds grouped per message: at most 10, and at most 6,000 characters together."""
    batches: list[tuple[discord.Embed, ...]] = []
    current: list[discord.Embed] = []
    size = 0
    for embed in embeds:
        full = len(current) == EMBEDS_PER_MESSAGE
        if current and (full or size + len(embed) > EMBED_CHARACTERS_PER_MESSAGE):
            batches.append(tuple(current))
            current, size = [], 0
        current.append(embed)
        size += len(embed)
    if current:
        batches.append(tuple(current))
    return batches


def _answer(answer: Answer) -> list[Outgoing]:
    lead = [piece for line in wording.answer_preface(answer) for piece in _pieces(line)]
    messages = _texts(_pack_text(lead, answer.text))
    batches = embed_batches(source_embeds(wording.citation_lines(answer)))
    if not batches:
        return messages
    if not messages:
        messages = [Outgoing(embeds=batch) for batch in batches]
    else:
        # The first sources go under the last piece of text; any overflow follows on its own.
        messages[-1] = replace(messages[-1], embeds=batches[0])
        messages.extend(Outgoing(embeds=batch) for batch in batches[1:])
    # "Show page" buttons under the last sources (the core's `/page`).
    buttons = tuple(
        page_button(wording.page_button_label(number, c), c.document_id, c.page)
        for number, c in wording.pictured_pages(answer)
        if c.document_id and c.page is not None
    )
    if answer.feedback_id is not None:
        buttons = (*buttons, *vote_buttons(answer.feedback_id))
    if buttons:
        messages[-1] = replace(messages[-1], buttons=buttons)
    return messages


def _question(quiz_id: int, question: QuizQuestion) -> Outgoing:
    """One question, its options under it and a button per option (questions are checked
    to be short in the core: one message always holds one)."""
    [content, *_] = pack(_pieces("\n".join(wording.question_lines(question))), MESSAGE_LIMIT)
    buttons = tuple(pick_button(quiz_id, question.number, n) for n in range(len(question.options)))
    return Outgoing(content=content, buttons=buttons)


def _card(turn: FlashcardTurn) -> Outgoing:
    # One message: the buttons go with the card they turn. A card longer than a message
    # is cut (cards are a sentence or two; the CSV and Anki exports keep them whole).
    [content, *_] = pack(_pieces("\n".join(wording.card_lines(turn))), MESSAGE_LIMIT)
    turned = turn.back is not None
    buttons = card_buttons(turn.set_id, turn.number, turn.count, turned=turned)
    return Outgoing(content=content, buttons=buttons)


def _sheet_units(sheet: ExerciseSheet) -> list[str]:
    units = [_heading(wording.sheet_heading(sheet)), *_pieces(sheet.statement)]
    units.extend(f"*{piece}*" for line in wording.sheet_notes(sheet) for piece in _pieces(line))
    units.append(bold(wording.SOLUTION_LABEL))
    # Escaping neutralises any `||` in the text, so each piece is exactly one spoiler.
    room = MESSAGE_LIMIT - len("||||")
    units.extend(f"||{piece}||" for piece in _pieces(sheet.solution, room))
    return units


def _pieces(text: str, limit: int = MESSAGE_LIMIT) -> list[str]:
    """Raw `text` cut to fit `limit` once escaped, then escaped."""
    return [escape(piece) for piece in split_text(text, limit, escaped_length)]


def _pack_text(lead: list[str], text: str) -> list[str]:
    """Lead units (headings, feedback) followed by `text`. The text is cut a little shorter
    when the lead is short, so the lead shares the first message instead of standing alone."""
    lead_size = len("\n".join(lead)) + 1 if lead else 0
    reserve = lead_size if lead_size <= MESSAGE_LIMIT // 4 else 0
    return pack([*lead, *_pieces(text, MESSAGE_LIMIT - reserve)], MESSAGE_LIMIT)


def _heading(text: str) -> str:
    short = text if len(text) <= _TITLE_CHARS else text[: _TITLE_CHARS - 1] + "…"
    return bold(short)


def _texts(contents: list[str]) -> list[Outgoing]:
    return [Outgoing(content=content) for content in contents]
