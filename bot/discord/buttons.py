"""Buttons whose `custom_id` says the whole command they stand for, so a press is handled by
any replica, after any restart, without remembering the message it is on:

- `coursebot:pick:{quiz}:{n}:{A-D}` answers question n of a quiz (`/pick QUIZ N LETTER`),
- `coursebot:card:{set}:{n}:back` turns card n of a flashcard set, `coursebot:card:{set}:{n}`
  shows card n (`/card SET N [back]`),
- `coursebot:vote:{answer}:up|down[:{reason}]` rates an answer (`/good`, `/bad --answer
  ID [WHY]`; the core judges the vote in the answer's course),
- `coursebot:page:{document}:{n}` shows the picture of page n of a cited document (`/page`;
  the core decides whether the presser may see it, whatever the id says).

`CourseButton` is the discord.py dynamic item registered for that template; what a press
does is the client's `press_button` (the handlers), reached through `interaction.client`
because the library builds the item itself from the custom id."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

import discord
import structlog

from core.commands import ParsedCommand
from core.replies import vote_reason

log = structlog.get_logger(__name__)

CUSTOM_ID_LIMIT = 100  # Discord's limit
LETTERS = "ABCD"
TEMPLATE = (
    r"coursebot:(?:(?P<kind>pick|card):(?P<set>[0-9]+):(?P<number>[0-9]+)(?::(?P<extra>[A-D]|back))?"
    r"|page:(?P<document>[0-9a-f]{16}):(?P<page>[0-9]{1,6})"
    r"|vote:(?P<answer>[0-9]{1,12}):(?P<vote>up|down)(?::(?P<reason>wrong|incomplete|course|asked))?)"
)


@dataclass(frozen=True, slots=True)
class Button:
    """A button under a message, as render produces it (delivery makes it a discord.py one)."""

    label: str
    custom_id: str
    primary: bool = False


def pick_button(quiz_id: int, number: int, option: int) -> Button:
    letter = LETTERS[option]
    return Button(letter, _checked(f"coursebot:pick:{quiz_id}:{number}:{letter}"))


def card_buttons(set_id: int, number: int, count: int, *, turned: bool) -> tuple[Button, ...]:
    """ "Show answer" until card `number` is turned, then "Next" unless it is the last."""
    buttons = []
    if not turned:
        buttons.append(
            Button("Show answer", _checked(f"coursebot:card:{set_id}:{number}:back"), primary=True)
        )
    if number < count:
        buttons.append(Button("Next", _checked(f"coursebot:card:{set_id}:{number + 1}")))
    return tuple(buttons)


def page_button(label: str, document_id: str, page: int) -> Button:
    return Button(label, _checked(f"coursebot:page:{document_id}:{page}"))


def vote_buttons(answer_id: int) -> tuple[Button, ...]:
    return (
        Button("👍", _checked(f"coursebot:vote:{answer_id}:up")),
        Button("👎", _checked(f"coursebot:vote:{answer_id}:down")),
    )


def reason_buttons(answer_id: int, reasons: tuple[tuple[str, str], ...]) -> tuple[Button, ...]:
    return tuple(
        Button(label, _checked(f"coursebot:vote:{answer_id}:down:{key}")) for key, label in reasons
    )


@runtime_checkable
class Presses(Protocol):
    async def press_button(
        self, interaction: discord.Interaction, command: ParsedCommand
    ) -> None: ...


class CourseButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=TEMPLATE):
    """Any of our buttons, on any message: registered once with `add_dynamic_items`."""

    def __init__(self, item: discord.ui.Button[Any], command: ParsedCommand) -> None:
        super().__init__(item)
        self.command = command

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction,
        item: discord.ui.Item[Any],
        match: re.Match[str],
        /,
    ) -> CourseButton:
        if not isinstance(item, discord.ui.Button):
            raise TypeError(f"not a button: {item!r}")
        return cls(item, _command(match))

    async def callback(self, interaction: discord.Interaction) -> None:
        client: Any = interaction.client
        if not isinstance(client, Presses):
            log.warning("button pressed on a client that cannot handle it", client=type(client))
            return
        await client.press_button(interaction, self.command)


def view_of(buttons: tuple[Button, ...]) -> discord.ui.View:
    return _Buttons(buttons)


class _Buttons(discord.ui.View):
    """Buttons to send. Presses reach `CourseButton` through its registered template from
    whatever message they are on, so the library must not keep this view per message: it
    would hold every quiz in memory for ever, and removing a timed-out copy would also
    unregister the template, leaving every button dead until a restart."""

    def __init__(self, buttons: tuple[Button, ...]) -> None:
        super().__init__(timeout=None)
        for button in buttons:
            style = discord.ButtonStyle.primary if button.primary else discord.ButtonStyle.secondary
            self.add_item(
                discord.ui.Button(label=button.label, custom_id=button.custom_id, style=style)
            )

    def is_dispatchable(self) -> bool:
        return False


def _command(match: re.Match[str]) -> ParsedCommand:
    """The core command a button's custom id stands for, with its typed options."""
    if match["answer"] is not None:
        answer: dict[str, str | int] = {"answer": int(match["answer"])}
        if match["vote"] == "up":
            return ParsedCommand("good", options=answer)
        if match["reason"]:
            answer["why"] = vote_reason(match["reason"])
        return ParsedCommand("bad", options=answer)
    if match["document"] is not None:
        return ParsedCommand(
            "page", options={"document": match["document"], "page": int(match["page"])}
        )
    first, number = int(match["set"]), int(match["number"])
    if match["kind"] == "pick":
        options = {"quiz": first, "question": number, "option": match["extra"] or ""}
        return ParsedCommand("pick", options=options)
    card: dict[str, str | int] = {"set": first, "number": number}
    if match["extra"] == "back":
        card["side"] = "back"
    return ParsedCommand("card", options=card)


def _checked(custom_id: str) -> str:
    if len(custom_id) > CUSTOM_ID_LIMIT:  # ids are numbers: only a corrupt id gets here
        raise ValueError(f"custom_id longer than {CUSTOM_ID_LIMIT}: {custom_id!r}")
    return custom_id
