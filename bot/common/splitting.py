"""The one place long replies are cut to a platform's message limit.

Renderers hand over *units* (a citation line, a heading, an escaped paragraph) that must never
be cut, and raw text that may be: `split_text` cuts raw text at the widest boundary that fits
(paragraph, line, sentence, word) measuring it as it will be sent (after escaping), and `pack`
fills messages with whole units."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

Measure = Callable[[str], int]

# Widest first: a cut between paragraphs reads better than one between words.
_BOUNDARIES: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"\n\s*\n"), "\n\n"),
    (re.compile(r"\n"), "\n"),
    (re.compile(r"(?<=[.!?;:])\s+"), " "),
    (re.compile(r"\s+"), " "),
)


def split_text(text: str, limit: int, measure: Measure = len) -> list[str]:
    """`text` in pieces that each measure at most `limit`, cut at natural boundaries; only a
    single word longer than the limit is cut inside."""
    if limit < 1:
        raise ValueError("limit must be positive")
    return _split(text.strip(), limit, measure, 0)


def _split(text: str, limit: int, measure: Measure, level: int) -> list[str]:
    if not text:
        return []
    if measure(text) <= limit:
        return [text]
    if level == len(_BOUNDARIES):
        return _cut_characters(text, limit, measure)
    pattern, joiner = _BOUNDARIES[level]
    pieces: list[str] = []
    current = ""
    for part in (p.strip() for p in pattern.split(text)):
        if not part:
            continue
        candidate = f"{current}{joiner}{part}" if current else part
        if measure(candidate) <= limit:
            current = candidate
            continue
        if current:
            pieces.append(current)
        if measure(part) <= limit:
            current = part
        else:
            pieces.extend(_split(part, limit, measure, level + 1))
            current = ""
    if current:
        pieces.append(current)
    return pieces


def _cut_characters(text: str, limit: int, measure: Measure) -> list[str]:
    pieces: list[str] = []
    current = ""
    for char in text:
        if current and measure(current + char) > limit:
            pieces.append(current)
            current = ""
        current += char
    if current:
        pieces.append(current)
    return pieces


def pack(units: Sequence[str], limit: int, separator: str = "\n") -> list[str]:
    """Whole units joined into as few messages as fit within `limit` characters each."""
    messages: list[str] = []
    current = ""
    for unit in units:
        if len(unit) > limit:
            raise ValueError(f"a unit of {len(unit)} characters cannot fit a {limit} limit")
        candidate = f"{current}{separator}{unit}" if current else unit
        if len(candidate) <= limit:
            current = candidate
        else:
            messages.append(current)
            current = unit
    if current:
        messages.append(current)
    return messages
