"""Passages cut into the units an extractive answer may quote: a table row with its column
headers, a whole list item, a whole sentence.

Chunk text keeps its source's line structure: blocks are separated by blank lines, list items
by single line breaks, and a PDF paragraph keeps its hard line breaks, so a sentence may be
wrapped over several lines. Wrapped lines are joined before splitting into sentences. A
heading is never a unit of its own: it labels the units under it (they are matched with its
words too) and the first of them is quoted after it, so a heading that matches the question
shows what follows it."""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum
from itertools import pairwise

from core.text import (
    LIST_MARK,
    MARKDOWN_HEADING,
    MAX_HEADING_CHARS,
    looks_like_heading,
    split_sentences,
)

# A unit with fewer words says nothing on its own ("Week 3", "10%").
MIN_WORDS = 2
# Beyond this a "sentence" is a run of PDF text without end marks: it is cut at the last
# sentence end or word boundary before this many characters.
MAX_UNIT_CHARS = 480
# A longer list item is a paragraph: its sentences are quoted one by one.
MAX_ITEM_CHARS = 300
# A line this much shorter than its paragraph's longest line ended there (a row of a PDF
# table, the last line of a paragraph) rather than wrapping.
WRAPPED_SHARE = 0.7
# ... and a line shorter than this never wraps (rows of figures are all short).
MIN_WRAPPED_CHARS = 40

_GLYPH = re.compile(r"^[•●○◦▪■□▫‣⁃∙·➢➤►▶✓✔❖◆◇*§Ø–—-]\s+")
# A Markdown rule under the header ("|---|:--:|"); a row of empty cells ("|  |", a table
# without a header) is no rule: it is the header, and names no column.
_TABLE_RULE = re.compile(r"^\|?[\s:|-]*-[\s:|-]*\|?$")
_INLINE_CODE = re.compile(r"`([^`\n]+)`")


class UnitKind(StrEnum):
    ROW = "row"
    ITEM = "item"
    SENTENCE = "sentence"


@dataclass(frozen=True, slots=True)
class QuoteUnit:
    """`text` is what is quoted; `heading` the heading shown before it (the first unit under
    a heading only); `context` the words that label it without being quoted (its passage's
    section and the heading it stands under); `position` its order in its passage."""

    passage: int
    position: int
    text: str
    kind: UnitKind
    heading: str = ""
    context: str = ""
    # The unit as its passage has it (a row's line before it was paired with the headers).
    source: str = ""
    # A key/value row's key ("Description" of "Description: ..."): what the row is about.
    key: str = ""

    @property
    def shown(self) -> str:
        return f"{self.heading}: {self.text}" if self.heading else self.text


def passage_units(passage: int, text: str, section: str = "") -> list[QuoteUnit]:
    """The quotable units of one passage (numbered `passage`), in reading order."""
    units: list[QuoteUnit] = []
    heading = ""
    fresh = False  # no unit shown under the heading yet
    for block in re.split(r"\n\s*\n", text):
        lines = [line.strip() for line in block.splitlines() if line.strip()]
        if not lines:
            continue
        if len(lines) == 1 and looks_like_heading(lines[0]):
            heading, fresh = MARKDOWN_HEADING.sub("", lines[0]).rstrip(":").strip(), True
            continue
        raw: dict[str, str] = {}
        keys: dict[str, str] = {}
        for kind, unit in _block_units(lines, raw, keys):
            if kind is not UnitKind.ROW and _labels(unit):
                heading, fresh = unit.rstrip(":").strip(), True
                continue
            if len(unit.split()) < MIN_WORDS:
                continue
            shown = heading if fresh and not _repeats(heading, unit) else ""
            context = f"{section} {heading}".strip()
            source = raw.get(unit, unit)
            units.append(
                QuoteUnit(
                    passage,
                    len(units),
                    _capped(_unmarked(unit)),
                    kind,
                    shown,
                    context,
                    source,
                    keys.get(unit, ""),
                )
            )
            fresh = False
    if fresh and ": " in heading:  # "Instructor: Dr. Ada Moreno" ending a passage is a fact
        units.append(QuoteUnit(passage, len(units), heading, UnitKind.SENTENCE, source=heading))
    return units


def _unmarked(unit: str) -> str:
    """Markdown's inline-code marks dropped from what is quoted ("`f'(x) = 3x`" reads as
    f'(x) = 3x in a chat); `source` keeps the passage's own text for matching."""
    return _INLINE_CODE.sub(r"\1", unit)


def _labels(unit: str) -> bool:
    """A unit that only says what comes next: a heading inside a block ("7. Excused
    absences"), a FAQ's question."""
    if looks_like_heading(LIST_MARK.sub("", unit)):
        return True
    return unit.endswith("?") and len(unit) <= 2 * MAX_HEADING_CHARS


def _repeats(heading: str, unit: str) -> bool:
    return unit.casefold().startswith(heading.casefold())


def _block_units(
    lines: list[str], raw: dict[str, str], keys: dict[str, str]
) -> list[tuple[UnitKind, str]]:
    """One block's units: table rows with their header (`raw` maps each to its line, `keys`
    a key/value row to its key), list items, sentences."""
    found: list[tuple[UnitKind, str]] = []
    header: list[str] | None = None
    rows = 0
    run: list[str] = []  # the lines of the current list item or paragraph
    for line in lines:
        if line.startswith("|"):
            found.extend(_run_units(run))
            run = []
            if _TABLE_RULE.match(line):
                continue
            if header is None:
                header, rows = _cells(line), 0
                if _labelled(header) and _pair(header):  # a key/value table's first pair
                    raw[_pair(header)] = line
                    keys[_pair(header)] = _key(header)
                    found.append((UnitKind.ROW, _pair(header)))
                    rows += 1
                continue
            pairs = _labelled(header) or _key_value(header)
            row = _pair(_cells(line)) if pairs else _row(header, _cells(line))
            rows += 1
            if row:
                raw[row] = line
                if pairs:
                    keys[row] = _key(_cells(line))
                found.append((UnitKind.ROW, row))
            continue
        if header is not None and rows == 0:
            run.append(" | ".join(header))  # a lone header row is plain text
        header = None
        if LIST_MARK.match(line):
            found.extend(_run_units(run))
            run = []
        run.append(line)
    if header is not None and rows == 0:
        run.append(" | ".join(header))
    found.extend(_run_units(run))
    return found


def _run_units(run: list[str]) -> list[tuple[UnitKind, str]]:
    """A list item (its wrapped lines joined) is one unit, whatever its sentences; anything
    after it that does not continue it, and a paragraph, are sentences."""
    joined = join_wrapped(run)
    if not joined:
        return []
    found: list[tuple[UnitKind, str]] = []
    joined[0] = _GLYPH.sub("", joined[0])
    if LIST_MARK.match(run[0]) and len(joined[0]) <= MAX_ITEM_CHARS:
        found.append((UnitKind.ITEM, joined.pop(0)))
    found.extend(
        (UnitKind.SENTENCE, sentence.strip())
        for line in joined
        for sentence in split_sentences(line)
    )
    return found


def join_wrapped(lines: list[str]) -> list[str]:
    """A paragraph's lines with the wrapped ones joined: a line wraps when it is about as long
    as the paragraph's longest line, or the next goes on in lower case (the loaders already
    joined words hyphenated at a line end), unless it closes a sentence. A line that ended
    short (a row of a PDF table, "Homework 20%") stays apart."""
    if not lines:
        return []
    wrap_width = max(WRAPPED_SHARE * max(map(len, lines)), MIN_WRAPPED_CHARS)
    joined = [lines[0]]
    for previous, line in pairwise(lines):
        ended = previous.endswith((".", "!", "?", ":")) and not line[:1].islower()
        if not ended and (line[:1].islower() or len(previous) >= wrap_width):
            joined[-1] = f"{joined[-1]} {line}"
        else:
            joined.append(line)
    return joined


def _cells(line: str) -> list[str]:
    return [cell.strip() for cell in line.strip().strip("|").split("|")]


def _row(header: list[str], cells: list[str]) -> str:
    """A row as "Header: cell; Header: cell", empty cells left out, so every figure is shown
    with the column that says what it is; headers and figures written to be read
    (`readable_header`, `readable_figure`)."""
    pairs = []
    for name, cell in zip(header, cells, strict=False):
        if cell and cell not in "—–-":
            value = readable_figure(cell)
            pairs.append(f"{readable_header(name)}: {value}" if name else value)
    pairs.extend(cell for cell in cells[len(header) :] if cell)
    return "; ".join(pairs)


# "NoCredit", "SubjectCode", "MinAvgMarkToPass": a database column's name, split into words.
_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z])")
# "30.0%", "12.50 %": a share written with zeros that say nothing.
_ZERO_DECIMALS = re.compile(r"\b(\d+)(?:\.0+|(\.\d*[1-9])0+)\s?%")
# A two-column table whose header only says "key" and "value": its rows are the pairs.
_VALUE_HEADERS = frozenset({"value", "values", "details", "detail"})


def readable_header(name: str) -> str:
    """A column's name as words: "NoCredit" -> "No Credit", "PreRequisite" -> "Pre
    Requisite"; a name already in words is kept."""
    return name if " " in name.strip() else _CAMEL.sub(" ", name)


def readable_figure(cell: str) -> str:
    """A cell's shares without their empty decimals: "30.0%" -> "30%", "12.50%" -> "12.5%"."""
    return _ZERO_DECIMALS.sub(lambda m: f"{m.group(1)}{m.group(2) or ''}%", cell)


def _key_value(header: list[str]) -> bool:
    """| Key | Value |: each row is a pair, read "Semester: 5", not "Key: Semester; Value: 5"."""
    return len(header) == 2 and header[1].strip().casefold() in _VALUE_HEADERS


def _labelled(header: list[str]) -> bool:
    """Whether a table's first row is a label and its value ("| Syllabus ID: | 13339 |"): a
    key/value table, which Markdown gives a header row like any other. Its rows read
    "Pre-Requisite: AIL303m", not "Syllabus ID:: Pre-Requisite:; 13339: AIL303m"."""
    return len(header) >= 2 and header[0].endswith(":") and len(header[0]) > 1


def _pair(cells: list[str]) -> str:
    label, *values = cells
    value = "; ".join(readable_figure(cell) for cell in values if cell)
    if not value:  # a label alone says nothing
        return ""
    return f"{readable_header(label.rstrip(':').strip())}: {value}"


def _key(cells: list[str]) -> str:
    return readable_header(cells[0].rstrip(":").strip())


def _capped(text: str) -> str:
    if len(text) <= MAX_UNIT_CHARS:
        return text
    head = text[: MAX_UNIT_CHARS + 1]
    ends = [m.end() for m in re.finditer(r"[.!?;]\s", head)]
    cut = ends[-1] if ends and ends[-1] > MAX_UNIT_CHARS // 2 else head.rfind(" ")
    return text[: cut if cut > 0 else MAX_UNIT_CHARS].rstrip() + " …"
