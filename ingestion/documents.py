"""What a loader produces: a document as ordered blocks that remember their page or slide and
their section path. Chunking works on blocks and never needs to know the file format."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum


class BlockKind(StrEnum):
    PARAGRAPH = "paragraph"
    LIST_ITEM = "list_item"
    TABLE = "table"
    NOTES = "notes"  # a slide's speaker notes


class DocumentKind(StrEnum):
    SYLLABUS = "syllabus"
    SLIDES = "slides"
    EXERCISES = "exercises"
    NOTES = "notes"
    DOCUMENT = "document"
    GUIDED_EXERCISE = "guided_exercise"


@dataclass(frozen=True, slots=True)
class Table:
    header: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]

    def render(self, rows: tuple[tuple[str, ...], ...] | None = None) -> str:
        """Pipe-separated lines, header first: readable in chat and for the embedder. A table
        without a header (its cells all empty) still starts with its empty header line, so
        its first row is read as a row, not as the names of the columns."""
        lines = [_row(self.header)] if self.header else []
        lines.extend(_row(row) for row in (self.rows if rows is None else rows))
        return "\n".join(lines)


def _row(cells: tuple[str, ...]) -> str:
    cleaned = [" ".join(cell.split()) for cell in cells]
    while len(cleaned) > 1 and not cleaned[-1]:
        cleaned.pop()  # stray trailing pipes in hand-written tables
    return "| " + " | ".join(cleaned) + " |"


@dataclass(frozen=True, slots=True)
class Block:
    """A unit of text in reading order.

    `page` is the 1-based page or slide number (None for formats without pages); `section` is
    the heading path leading to the block (for slides: the slide title). A TABLE block carries
    its cells in `table`; its `text` is a readable rendering of the same table."""

    text: str
    kind: BlockKind = BlockKind.PARAGRAPH
    page: int | None = None
    section: tuple[str, ...] = ()
    table: Table | None = None


@dataclass(frozen=True, slots=True)
class ImageRef:
    """An image found in the document, for captioning when a vision model is configured."""

    data: bytes
    media_type: str
    page: int | None = None
    section: tuple[str, ...] = ()


@dataclass(slots=True)
class LoadedDocument:
    file_name: str
    title: str
    blocks: list[Block]
    kind: DocumentKind = DocumentKind.DOCUMENT
    page_count: int = 0
    images: list[ImageRef] = field(default_factory=list)
    # A guided exercise's id and YAML source, stored with each of its chunks.
    exercise_id: str | None = None
    exercise_source: str | None = None
    # Extra payload stored with every chunk.
    attributes: dict[str, str] = field(default_factory=dict)
