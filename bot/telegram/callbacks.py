"""What inline buttons carry: a flashcard's "Show answer" and "Next" send `card:SET:N[:back]`
as their callback data, which a press turns back into the core's `/card SET N [back]`. Both
directions live here so the format has one place. Telegram allows 64 bytes of data; these
are a few digits."""

from __future__ import annotations

import re
from dataclasses import dataclass

from core.commands import ParsedCommand

CARD_DATA = re.compile(r"^card:(\d{1,12}):(\d{1,4})(:back)?$")
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


def card_command(data: str | None) -> ParsedCommand | None:
    """The `/card` a button press asks for, or None for data that is not a card's."""
    match = CARD_DATA.match(data or "")
    if match is None:
        return None
    set_id, number, back = match.groups()
    return ParsedCommand("card", f"{set_id} {number}" + (" back" if back else ""))
