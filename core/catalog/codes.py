"""The prerequisite cells that name courses.

What a code is, and how codes compare, is `core.course_codes`'s. A cell of prerequisites is
free text ("CSD203", "MAE101 or MAC101", "AIL30x and (PRP201c or PFP191)", "None", "Không", an OJT
rule in words): `parse_prerequisites` reads the and/or structure where the cell is only codes
and connectives, and otherwise keeps the codes it names with the cell as a condition to
read, so nothing the table says is dropped or invented."""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass
from enum import StrEnum

from core.course_codes import codes_in, drop_codes, is_code
from core.text import fold

_NONE_WORDS = {"none", "no", "khong", "n/a", "na", "nil", "-", "--", "0", "nothing"}
# "PRO192 (not applied to the BIT_AI and BA programs)": listed, but waived by the note.
# A note in parentheses waiving the code before it. Parentheses are found first and their
# words looked at after: one pattern for both re-scanned a run of "(" from each of them.
_PARENTHESISED = re.compile(r"\(([^()]*)\)")
_WAIVER_WORDS = re.compile(r"not appl|kh[oô]ng [aá]p d[uụ]ng|not required|waived", re.IGNORECASE)
# Words before a code that make it apply to some students only ("students choosing JS combo
# ... have to pass JPD133").
_CONDITIONAL = re.compile(
    r"\b(?:choosing|if|only for|for students|students who|unless)\b", re.IGNORECASE
)
# Where a list item or a sentence of a cell ends: a code's conditions are in its own.
_ITEM_END = re.compile(r"(?:^|\s)(?:-|\d+\.)\s|[.;]\s")
# A token of a cell: a parenthesis, a joining word or sign, a code written with a space
# inside ("CS 101", bounded), or any other run of characters.
_TOKEN = re.compile(
    r"\s*(\(|\)|,|;|&|\+|/|(?i:\band\b|\bor\b|\bva\b|\bhoac\b)"
    r"|[A-Za-z]{2,5} \d{2,3}[0-9xX][A-Za-z]?(?![A-Za-z0-9])|[^\s(),;&+/]+)"
)


class Kind(StrEnum):
    COURSE = "course"
    ALL = "all"
    ANY = "any"


@dataclass(frozen=True, slots=True)
class Requirement:
    """A tree of prerequisites: one course (or family), all of its parts, or any of them."""

    kind: Kind
    code: str = ""
    parts: tuple[Requirement, ...] = ()

    @classmethod
    def course(cls, code: str) -> Requirement:
        return cls(Kind.COURSE, code=code)

    def codes(self) -> list[str]:
        if self.kind is Kind.COURSE:
            return [self.code]
        return [code for part in self.parts for code in part.codes()]

    def render(self, nested: bool = False) -> str:
        if self.kind is Kind.COURSE:
            return self.code
        if self.kind is Kind.ALL:
            # "A, B" for plain codes; "A and (B or C)" once an alternative is in it.
            plain = all(part.kind is Kind.COURSE for part in self.parts)
            text = (", " if plain else " and ").join(part.render(True) for part in self.parts)
            return f"({text})" if nested and len(self.parts) > 1 else text
        text = " or ".join(part.render(True) for part in self.parts)
        return f"({text})" if nested else text


@dataclass(frozen=True, slots=True)
class Prerequisites:
    """What a prerequisite cell says. `requirement` is None when no course is required;
    `exact` is true when the whole cell was read as codes and connectives; otherwise
    `conditions` holds the cell's words for the reader (credit rules, conditional codes)."""

    raw: str
    requirement: Requirement | None = None
    exact: bool = True
    waived: tuple[tuple[str, str], ...] = ()  # (code, the note that waives it)
    conditional: tuple[str, ...] = ()  # codes required of some students only
    conditions: tuple[str, ...] = ()

    @property
    def stated(self) -> bool:
        return bool(self.raw.strip())


def parse_prerequisites(raw: str) -> Prerequisites:
    text = " ".join(raw.split())
    if not text or all(word in _NONE_WORDS for word in fold(text).replace(".", "").split()):
        return Prerequisites(raw=text)
    waived: list[tuple[str, str]] = []
    codes = codes_in(text)
    code_ends = [code.start + len(code.written) for code in codes]

    def waive(match: re.Match[str]) -> str:
        if not _WAIVER_WORDS.search(match.group(1)):
            return match.group(0)
        before = bisect_right(code_ends, match.start()) - 1
        if before >= 0:
            waived.append((codes[before].written, match.group(1).strip()))
        return " "

    remaining = drop_codes(_PARENTHESISED.sub(waive, text), {code for code, _ in waived})
    if waived and not re.search(r"[A-Za-z0-9]", remaining):
        return Prerequisites(raw=text, waived=tuple(waived))
    strict = _strict(remaining)
    if strict is not None:
        return Prerequisites(raw=text, requirement=strict, waived=tuple(waived))
    required: list[str] = []
    conditional: list[str] = []
    # Both found once, not again in the text before each code: a cell of thousands of codes
    # is read in one pass.
    item_starts = [0, *(m.end() for m in _ITEM_END.finditer(remaining))]
    conditions = [(m.end(), m.start()) for m in _CONDITIONAL.finditer(remaining)]
    for code in codes_in(remaining):
        item_start = item_starts[bisect_right(item_starts, code.start) - 1]
        last = bisect_right(conditions, (code.start, len(remaining))) - 1
        in_condition = last >= 0 and conditions[last][1] >= item_start
        target = conditional if in_condition else required
        if code.written not in target:
            target.append(code.written)
    return Prerequisites(
        raw=text,
        requirement=_all([Requirement.course(code) for code in required]),
        exact=False,
        waived=tuple(waived),
        conditional=tuple(conditional),
        conditions=(text,),
    )


def _all(parts: list[Requirement]) -> Requirement | None:
    if not parts:
        return None
    return parts[0] if len(parts) == 1 else Requirement(Kind.ALL, parts=tuple(parts))


def _any(parts: list[Requirement]) -> Requirement:
    return parts[0] if len(parts) == 1 else Requirement(Kind.ANY, parts=tuple(parts))


def _strict(text: str) -> Requirement | None:
    """The cell as codes and connectives (`,` and `and` mean all, `or` and `/` any, `or`
    binding tightest: "A, B or C" is A and (B or C)); None when anything else is in it."""
    tokens = [t for t in _TOKEN.findall(text) if t.strip()]
    if not tokens:
        return None
    folded = [fold(t) for t in tokens]
    if not all(
        t in {"(", ")", ",", ";", "&", "+", "/", "and", "or", "va", "hoac"} or is_code(t)
        for t in tokens
    ):
        return None
    position = 0

    def peek() -> str | None:
        return folded[position] if position < len(folded) else None

    def take() -> str:
        nonlocal position
        position += 1
        return tokens[position - 1]

    def listing() -> Requirement:
        parts = [conjunction()]
        while peek() in (",", ";"):
            take()
            parts.append(conjunction())
        return _all(parts) or parts[0]

    def conjunction() -> Requirement:
        parts = [disjunction()]
        while peek() in ("and", "&", "+", "va"):
            take()
            parts.append(disjunction())
        return _all(parts) or parts[0]

    def disjunction() -> Requirement:
        parts = [factor()]
        while peek() in ("or", "/", "hoac"):
            take()
            parts.append(factor())
        return _any(parts)

    def factor() -> Requirement:
        token = peek()
        if token == "(":
            take()
            inner = listing()
            if peek() != ")":
                raise ValueError("unbalanced")
            take()
            return inner
        if token is None or not is_code(tokens[position]):
            raise ValueError("expected a code")
        return Requirement.course(take())

    try:
        result = listing()
    except ValueError:
        return None
    return result if position == len(tokens) else None
