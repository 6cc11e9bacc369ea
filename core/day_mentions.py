"""Calendar days as the material and the students write them: `2026-12-14`, `14 December
2026`, `December 14th`, `Dec. 14`, `12/14`, `12/14/2026`. Numeric days read month first (as
the syllabi read here write them) unless the first part cannot be a month.

One reader for every place that needs a day: exam reminders read the dates of exams, and the
extractive answerer matches "May 1st" in a question with "5/01" in a schedule's row."""

from __future__ import annotations

import re
from dataclasses import dataclass

_MONTHS = {
    name: number
    for number, names in enumerate(
        (
            ("january", "jan"), ("february", "feb"), ("march", "mar"), ("april", "apr"),
            ("may",), ("june", "jun"), ("july", "jul"), ("august", "aug"),
            ("september", "sep", "sept"), ("october", "oct"), ("november", "nov"),
            ("december", "dec"),
        ),
        start=1,
    )
    for name in names
}  # fmt: skip
_MONTH = "|".join(sorted(_MONTHS, key=len, reverse=True))
_DAY = r"(?P<d>\d{1,2})(?:st|nd|rd|th)?"
_YEAR = r"(?:,?\s+(?P<y>\d{4}))?"
_PATTERNS = (
    re.compile(r"\b(?P<y>\d{4})-(?P<m>\d{1,2})-(?P<d>\d{1,2})\b"),
    re.compile(rf"\b{_DAY}\s+(?:of\s+)?(?P<mn>{_MONTH})\b\.?{_YEAR}", re.I),
    re.compile(rf"\b(?P<mn>{_MONTH})\b\.?\s+{_DAY}\b{_YEAR}", re.I),
    re.compile(r"(?<![\d/.])(?P<a>\d{1,2})/(?P<b>\d{1,2})(?:/(?P<y>\d{4}|\d{2}))?(?![\d/])"),
)


@dataclass(frozen=True, slots=True)
class DayMention:
    """A day named in a text: where it starts and ends, its month and day, its year if
    stated (a two-digit year as 20xx)."""

    start: int
    end: int
    month: int
    day: int
    year: int | None

    @property
    def token(self) -> str:
        """One word for the day whatever its spelling ("May 1st", "5/01": "day05x01"), so
        that word-level matching sees one term; the year is left out, as questions do."""
        return f"day{self.month:02d}x{self.day:02d}"


def day_mentions(text: str) -> list[DayMention]:
    """Every calendar day `text` names, in order of where it starts (impossible days such as
    13/13 or February 31 left out; a numeric one is one overlapping no other mention)."""
    found: list[DayMention] = []
    for pattern in _PATTERNS:
        for match in pattern.finditer(text):
            if any(m.start < match.end() and match.start() < m.end for m in found):
                continue
            mention = _mention(match)
            if mention is not None:
                found.append(mention)
    return sorted(found, key=lambda m: m.start)


def with_day_tokens(text: str) -> str:
    """`text` with every day it names followed by its `DayMention.token`; the day's own
    words stay ("1/2" may be a half, not January 2)."""
    mentions = day_mentions(text)
    if not mentions:
        return text
    parts: list[str] = []
    at = 0
    for mention in mentions:
        parts.append(text[at : mention.end])
        parts.append(f" {mention.token} ")
        at = mention.end
    parts.append(text[at:])
    return "".join(parts)


def _mention(match: re.Match[str]) -> DayMention | None:
    parts = match.groupdict()
    if parts.get("a"):
        month, day = int(parts["a"]), int(parts["b"])
        if month > 12:
            month, day = day, month
    elif parts.get("mn"):
        month, day = _MONTHS[parts["mn"].lower()], int(parts["d"])
    else:
        month, day = int(parts["m"]), int(parts["d"])
    year = int(parts["y"]) if parts.get("y") else None
    if year is not None and year < 100:
        year += 2000
    if not (1 <= month <= 12 and 1 <= day <= _LAST_DAY[month - 1]):
        return None
    return DayMention(match.start(), match.end(), month, day, year)


_LAST_DAY = (31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31)
