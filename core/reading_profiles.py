"""The reading profiles a lesson deck is made for. Their own module, free of the lesson
machinery, so the command registry (`core.commands`) offers them as `/lesson`'s choices
without importing it."""

from __future__ import annotations

from enum import StrEnum


class Profile(StrEnum):
    """A reading profile: how a deck is split, laid out and checked."""

    STANDARD = "standard"
    VISUAL = "visual"
    ADHD = "adhd"
    DYSLEXIA = "dyslexia"
