"""The reading profiles a lesson deck is made for. Their own module, free of the lesson
machinery, so the command registry (`core.commands`) offers them as `/lesson`'s choices
without importing it."""

from __future__ import annotations

from enum import StrEnum


class Profile(StrEnum):
    """A reading profile: how a deck is split, laid out and checked
    (`core.lessons.profiles` holds the numbers and their sources).

    - standard: 20 pt body text, lines of at most 80 characters;
    - visual: each slide beside a picture, the cited page where one is kept;
    - adhd: at most four one-idea points a slide, "Slide k of N", a closing recap;
    - dyslexia: body text at least 24 pt on a slide (the British Dyslexia Association's
      12-14 pt for documents, scaled for a slide read from further away), 1.5 line
      spacing, a sans-serif face, a cream background, left-aligned short lines, no italics,
      underline or capitals."""

    STANDARD = "standard"
    VISUAL = "visual"
    ADHD = "adhd"
    DYSLEXIA = "dyslexia"
