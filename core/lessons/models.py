"""The lesson deck schema: what a deck writer (extractive or a model) produces, what the
renderer reads and what is stored. Validation here is structural (lengths, counts); the
reading-profile rules live in `core.lessons.profiles` and are checked on the PDF by
`core.lessons.checks`."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field, field_validator

from core.reading_profiles import Profile
from core.replies import cited_section

MAX_TITLE_CHARS = 120
MAX_ITEM_CHARS = 600
MAX_ITEMS_PER_SLIDE = 12
MAX_FORMULA_CHARS = 800
MAX_WIDGET_BYTES = 200_000
MAX_TABLE_COLUMNS = 8
MAX_TABLE_ROWS = 8  # rows of one table on a slide; a longer table continues on the next
MAX_CELL_CHARS = 200
# Absolute limits on any deck, whatever the student asks for.
HARD_MIN_SLIDES = 1
HARD_MAX_SLIDES = 40


class SlideKind(StrEnum):
    CONTENT = "content"
    RECAP = "recap"  # the closing summary (the ADHD profile requires one)


class Citation(BaseModel):
    """Where a slide's material came from: one chunk of the course index."""

    model_config = ConfigDict(frozen=True)

    file: str = Field(min_length=1, max_length=300)
    page: int | None = Field(default=None, ge=1)
    section: str = Field(default="", max_length=300)
    chunk_id: str = Field(default="", max_length=200)

    def label(self) -> str:
        """ "notes.pdf, p. 3, Limits": how a slide shows it."""
        parts = [self.file]
        if self.page is not None:
            parts.append(f"p. {self.page}")
        if self.section:
            parts.append(cited_section(self.section))
        return ", ".join(parts)


class SlideTable(BaseModel):
    """A table of the material, shown as a table: its column names (empty when it has none)
    and its rows, each cell plain text with inline math as `$...$`."""

    header: list[str] = Field(default_factory=list, max_length=MAX_TABLE_COLUMNS)
    rows: list[list[str]] = Field(min_length=1, max_length=MAX_TABLE_ROWS)

    @field_validator("header")
    @classmethod
    def _header_cells(cls, cells: list[str]) -> list[str]:
        return _cells(cells)

    @field_validator("rows")
    @classmethod
    def _row_cells(cls, rows: list[list[str]]) -> list[list[str]]:
        return [_cells(row) for row in rows]

    @property
    def columns(self) -> int:
        return max(len(self.header), *(len(row) for row in self.rows))


def _cells(cells: list[str]) -> list[str]:
    if len(cells) > MAX_TABLE_COLUMNS:
        raise ValueError(f"a table has at most {MAX_TABLE_COLUMNS} columns")
    cleaned = [" ".join(cell.split()) for cell in cells]
    if any(len(cell) > MAX_CELL_CHARS for cell in cleaned):
        raise ValueError(f"a table cell has at most {MAX_CELL_CHARS} characters")
    return cleaned


class Slide(BaseModel):
    title: str = Field(min_length=1, max_length=MAX_TITLE_CHARS)
    # Bullets or short paragraphs, in reading order; one idea each for the ADHD profile.
    content: list[str] = Field(default_factory=list, max_length=MAX_ITEMS_PER_SLIDE)
    # LaTeX math without delimiters ("\frac{a}{b}"), one display formula each.
    math: list[str] = Field(default_factory=list, max_length=8)
    # Tables of the material, shown as tables after the bullets.
    tables: list[SlideTable] = Field(default_factory=list, max_length=2)
    # A self-contained HTML widget as the writer gave it; sanitised before it is sent
    # (`core.lessons.widgets.sanitise_widget`), never embedded in the PDF.
    widget_html: str | None = Field(default=None, max_length=MAX_WIDGET_BYTES)
    accessibility_notes: str = Field(default="", max_length=1000)
    citations: list[Citation] = Field(default_factory=list, max_length=20)
    kind: SlideKind = SlideKind.CONTENT

    @field_validator("title")
    @classmethod
    def _title_is_text(cls, value: str) -> str:
        value = " ".join(value.split())
        if not value:
            raise ValueError("the title is empty")
        return value

    @field_validator("content")
    @classmethod
    def _items_are_short(cls, items: list[str]) -> list[str]:
        cleaned = [" ".join(item.split()) for item in items]
        for n, item in enumerate(cleaned, 1):
            if len(item) > MAX_ITEM_CHARS:
                raise ValueError(f"item {n} has {len(item)} characters (at most {MAX_ITEM_CHARS})")
        return [item for item in cleaned if item]

    @field_validator("math")
    @classmethod
    def _formulas_are_bounded(cls, formulas: list[str]) -> list[str]:
        cleaned = [f.strip() for f in formulas]
        for n, formula in enumerate(cleaned, 1):
            if len(formula) > MAX_FORMULA_CHARS:
                raise ValueError(f"formula {n} is longer than {MAX_FORMULA_CHARS} characters")
        return [f for f in cleaned if f]


class Deck(BaseModel):
    topic: str = Field(min_length=1, max_length=200)
    profile: Profile = Profile.STANDARD
    slides: list[Slide] = Field(min_length=1, max_length=HARD_MAX_SLIDES)
    # 1 for the first render; an edit returns a copy with version + 1 (the old one is kept
    # by whoever stores decks).
    version: int = Field(default=1, ge=1)

    def citations(self) -> list[Citation]:
        """Every citation of the deck once, in order of first use."""
        seen: dict[Citation, None] = {}
        for slide in self.slides:
            for citation in slide.citations:
                seen.setdefault(citation, None)
        return list(seen)


class SlideCountError(ValueError):
    """A slide range a student asked for is not usable ("8-3", "0-100")."""


@dataclass(frozen=True, slots=True)
class SlideBounds:
    """The number of slides a student asked for, inclusive at both ends."""

    minimum: int = 3
    maximum: int = 8

    def __post_init__(self) -> None:
        if not HARD_MIN_SLIDES <= self.minimum <= self.maximum <= HARD_MAX_SLIDES:
            raise SlideCountError(
                f"a deck has between {HARD_MIN_SLIDES} and {HARD_MAX_SLIDES} slides, "
                f"the minimum first: {self.minimum}-{self.maximum} is not possible"
            )

    @classmethod
    def parse(cls, text: str) -> SlideBounds:
        """ "4-8" or "5" (exactly five)."""
        parts = text.replace("–", "-").split("-")
        try:
            numbers = [int(p.strip()) for p in parts]
        except ValueError:
            raise SlideCountError(f"{text!r} is not a slide range like 4-8") from None
        if len(numbers) == 1:
            return cls(numbers[0], numbers[0])
        if len(numbers) != 2:
            raise SlideCountError(f"{text!r} is not a slide range like 4-8")
        return cls(numbers[0], numbers[1])

    def problems(self, deck: Deck) -> list[str]:
        """Why `deck`'s slide count is outside these bounds (empty when it is inside)."""
        count = len(deck.slides)
        if count < self.minimum:
            return [f"the deck has {count} slides, at least {self.minimum} are needed"]
        if count > self.maximum:
            return [f"the deck has {count} slides, at most {self.maximum} are allowed"]
        return []

    def contains(self, count: int) -> bool:
        return self.minimum <= count <= self.maximum
