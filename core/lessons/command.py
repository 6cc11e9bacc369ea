"""The words of `/lesson`: `TOPIC [--slides MIN-MAX] [--profile P] [--new]` asks for a deck,
`edit N "instruction"` revises slide N of the asker's latest deck. Parsed here, once, for
every platform (a Discord slash command arrives as the same text)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from core.errors import BadInputError
from core.lessons.models import Profile, SlideBounds, SlideCountError

MAX_TOPIC_CHARS = 200
PROFILES = ", ".join(p.value for p in Profile)
USAGE = (
    "Send /lesson TOPIC [--slides MIN-MAX] [--profile standard|visual|adhd|dyslexia] "
    '[--new], or /lesson edit N "instruction".'
)

_OPTION = re.compile(r"(?:^|\s)--(?:(new)\b|(slides|profile)\b(?:[\s=]+(?!--)(\S+))?)", re.I)
_EDIT = re.compile(r"^edit\s+(\S+)(?:\s+(.*))?$", re.I | re.S)
# Quotes a chat client may put around the instruction, straight or typographic.
_QUOTES = "\"'“”‘’«»"


@dataclass(frozen=True, slots=True)
class LessonAsk:
    topic: str
    bounds: SlideBounds
    profile: Profile
    fresh: bool = False


@dataclass(frozen=True, slots=True)
class LessonEdit:
    slide_number: int
    instruction: str


def parse_profile(text: str | None) -> Profile:
    if not text:
        return Profile.STANDARD
    try:
        return Profile(text.strip().lower())
    except ValueError:
        raise BadInputError(f"There is no reading profile '{text}': choose {PROFILES}.") from None


def parse_bounds(text: str | None) -> SlideBounds:
    if not text:
        return SlideBounds()
    try:
        return SlideBounds.parse(text)
    except SlideCountError as error:
        raise BadInputError(f"Bad --slides: {error}.") from None


def parse_lesson(argument: str) -> LessonAsk | LessonEdit:
    """`/lesson`'s argument as a request; `BadInputError` with one line when it is not one."""
    text = argument.strip()
    edit = _EDIT.match(text)
    # "edit 2 ..." edits; a topic that merely starts with the word ("edit distance") does not.
    if edit and edit.group(1).isdigit():
        instruction = (edit.group(2) or "").strip().strip(_QUOTES).strip()
        if not instruction:
            raise BadInputError(f'Say how to change slide {edit.group(1)}: /lesson edit N "…".')
        return LessonEdit(int(edit.group(1)), instruction)
    options: dict[str, str | None] = {}
    for match in _OPTION.finditer(text):
        if match.group(1):
            options["new"] = None
            continue
        name = match.group(2).lower()
        if not match.group(3):
            raise BadInputError(f"--{name} needs a value. {USAGE}")
        options[name] = match.group(3)
    topic = " ".join(_OPTION.sub(" ", text).split()).strip(_QUOTES).strip()
    if not topic:
        raise BadInputError(f"Which topic? {USAGE}")
    if len(topic) > MAX_TOPIC_CHARS:
        raise BadInputError(f"The topic is too long: at most {MAX_TOPIC_CHARS} characters.")
    return LessonAsk(
        topic=topic,
        bounds=parse_bounds(options.get("slides")),
        profile=parse_profile(options.get("profile")),
        fresh="new" in options,
    )
