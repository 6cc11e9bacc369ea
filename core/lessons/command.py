"""What `/lesson` asks for: `TOPIC [--slides MIN-MAX] [--profile P] [--new]` a deck,
`edit N "instruction"` a revision of slide N of the asker's latest deck. The line itself is
parsed into typed options by the command registry (`core.commands`), for every platform."""

from __future__ import annotations

import re
from dataclasses import dataclass

from core.commands import LESSON_MISUSE
from core.errors import BadInputError
from core.lessons.models import Profile, SlideBounds, SlideCountError

MAX_TOPIC_CHARS = 200
PROFILES = ", ".join(p.value for p in Profile)

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


def lesson_request(
    topic: str, *, slides: str | None = None, profile: str | None = None, fresh: bool = False
) -> LessonAsk | LessonEdit:
    """`/lesson`'s typed options as a request; `BadInputError` with one line when they are
    not one. A topic `edit N "instruction"` edits slide N of the latest deck."""
    text = topic.strip()
    edit = _EDIT.match(text)
    # "edit 2 ..." edits; a topic that merely starts with the word ("edit distance") does not.
    if edit and edit.group(1).isdigit():
        instruction = (edit.group(2) or "").strip().strip(_QUOTES).strip()
        if not instruction:
            raise BadInputError(f'Say how to change slide {edit.group(1)}: /lesson edit N "…".')
        return LessonEdit(int(edit.group(1)), instruction)
    text = " ".join(text.split()).strip(_QUOTES).strip()
    if not text:
        raise BadInputError(LESSON_MISUSE)
    if len(text) > MAX_TOPIC_CHARS:
        raise BadInputError(f"The topic is too long: at most {MAX_TOPIC_CHARS} characters.")
    return LessonAsk(
        topic=text, bounds=parse_bounds(slides), profile=parse_profile(profile), fresh=fresh
    )
