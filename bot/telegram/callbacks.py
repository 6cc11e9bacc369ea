"""What inline buttons carry: a flashcard's "Show answer" and "Next" send `card:SET:N[:back]`
as their callback data, which a press turns back into the core's `/card SET N [back]`; a
citation's "Show page" sends `page:DOCUMENT:N` (the document's id), the core's `/page`; 👍 and
👎 under an answer send `vote:ID:up|down[:REASON]`, the core's `/good` and `/bad`. Both
directions live here so the format has one place. Telegram allows 64 bytes of data; these
are a few digits and a 16-character id. Whoever forged the data, the core decides what the
page may show."""

from __future__ import annotations

import re
from dataclasses import dataclass

from core.commands import ParsedCommand
from core.replies import vote_reason

CARD_DATA = re.compile(r"^card:(\d{1,12}):(\d{1,4})(:back)?$")
PAGE_DATA = re.compile(r"^page:([0-9a-f]{16}):(\d{1,6})$")
VOTE_DATA = re.compile(r"^vote:(\d{1,12}):(up|down)(?::(wrong|incomplete|course|asked))?$")
HELPFUL = "👍"
UNHELPFUL = "👎"
SHOW_ANSWER = "Show answer"
NEXT = "Next"


@dataclass(frozen=True, slots=True)
class Button:
    """An inline keyboard button: its label and the callback data a press sends."""

    text: str
    data: str


def card_data(set_id: int, number: int, *, back: bool = False) -> str:
    return f"card:{set_id}:{number}" + (":back" if back else "")


def card_buttons(set_id: int, number: int, count: int, *, turned: bool) -> tuple[Button, ...]:
    """A "Show answer" button until the card is turned, a "Next" one until the last."""
    buttons = [] if turned else [Button(SHOW_ANSWER, card_data(set_id, number, back=True))]
    if number < count:
        buttons.append(Button(NEXT, card_data(set_id, number + 1)))
    return tuple(buttons)


def page_data(document_id: str, page: int) -> str:
    return f"page:{document_id}:{page}"


def page_command(data: str | None) -> ParsedCommand | None:
    """The `/page` a "Show page" press asks for, or None for data that is not a page's."""
    match = PAGE_DATA.match(data or "")
    if match is None:
        return None
    document, page = match.groups()
    return ParsedCommand("page", options={"document": document, "page": int(page)})


def vote_buttons(answer_id: int) -> tuple[Button, ...]:
    """👍 and 👎 under an answer (the core's `/good`, `/bad`)."""
    return (Button(HELPFUL, f"vote:{answer_id}:up"), Button(UNHELPFUL, f"vote:{answer_id}:down"))


def reason_buttons(answer_id: int, reasons: tuple[tuple[str, str], ...]) -> tuple[Button, ...]:
    return tuple(Button(label, f"vote:{answer_id}:down:{key}") for key, label in reasons)


def vote_command(data: str | None) -> ParsedCommand | None:
    """The `/good` or `/bad` a vote button asks for, or None for data that is not a vote's."""
    match = VOTE_DATA.match(data or "")
    if match is None:
        return None
    answer, direction, reason = match.groups()
    if direction == "up":
        return ParsedCommand("good", options={"answer": int(answer)})
    options: dict[str, str | int] = {"answer": int(answer)}
    if reason:
        options["why"] = vote_reason(reason)
    return ParsedCommand("bad", options=options)


def card_command(data: str | None) -> ParsedCommand | None:
    """The `/card` a button press asks for, or None for data that is not a card's."""
    match = CARD_DATA.match(data or "")
    if match is None:
        return None
    set_id, number, back = match.groups()
    return ParsedCommand("card", f"{set_id} {number}" + (" back" if back else ""))
