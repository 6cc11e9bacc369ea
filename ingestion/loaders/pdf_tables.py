"""Ruled tables on a PDF page: the grid drawn by the page's lines and rectangles, each cell's
text read from inside it.

The rules come from pdfium's path objects (already open for the text, so a page without
rules costs one pass over its objects); pdfplumber's table finder turns them into cells
(snapping near lines together, joining broken ones, finding the smallest rectangles) without
pdfminer having to parse the page again. A cell's text is pdfium's text inside its box, its
lines joined. A cell merged across columns is read once; one merged down over rows is
repeated in each of them, so every row still says what it belongs to.

Where the grid is no table worth the name (one column, a single row, boxes of prose as a
two-column layout draws them) nothing is returned and the page keeps its text."""

from __future__ import annotations

import ctypes
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from itertools import pairwise
from typing import Any

import pdfplumber.table as grid
import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c
from pdfplumber.utils import filter_edges

from ingestion.documents import Table
from ingestion.loaders.text_cleanup import clean_text

# A path this thin (points) across is a rule; longer than MIN_RULE is one worth reading.
MAX_RULE_WIDTH = 3.0
MIN_RULE = 6.0
# Grid lines this close (points) are one line (pdfplumber's defaults).
SNAP = 3.0
# A row lower than this (points) is the space between a double rule.
MIN_ROW_HEIGHT = 4.0
# A table needs this many rows (its header included) and columns holding text.
MIN_ROWS = 2
MIN_COLUMNS = 2
# Cells this long on average, in a table of so few rows, are prose laid out in boxes.
PROSE_CELL_CHARS = 250
PROSE_MAX_ROWS = 2
# A cell this long that goes on in the cell below is a line of prose, not a value ("yes").
MIN_PROSE_LINE = 25
# A table whose columns start within this (points) of the last table's on the page before
# is that table continued.
SAME_COLUMN = 2.0
# ... when it starts in this top share of its page.
TOP_SHARE = 0.3
# Paths with more segments than this are read segment by segment (a whole grid drawn as
# one path); fewer are a line or a rectangle, read from their bounds.
_SIMPLE_PATH_SEGMENTS = 5

_SOFT_HYPHEN = re.compile(r"[\ufffe\x02]\r?\n?")

_FIGURE = re.compile(r"\d")

Box = tuple[float, float, float, float]  # left, bottom, right, top in PDF points
Cell = tuple[float, float, float, float]  # left, top, right, bottom from the page's top


@dataclass(frozen=True, slots=True)
class PageTable:
    """A table found on a page: its cells, where it sits (`box`, PDF points, origin at the
    bottom left, like pdfium's line boxes) and its columns' left edges."""

    table: Table
    box: Box
    columns: tuple[float, ...]


def find_tables(page: pdfium.PdfPage, textpage: pdfium.PdfTextPage) -> list[PageTable]:
    """The page's ruled tables, top to bottom; [] when it has none it is sure of."""
    height = page.get_height()
    edges = list(_edges(page, height))
    horizontal = sum(edge["orientation"] == "h" for edge in edges)
    if horizontal < MIN_ROWS + 1 or len(edges) - horizontal < MIN_COLUMNS + 1:
        return []
    edges = grid.merge_edges(edges, SNAP, SNAP, SNAP, SNAP)
    edges = filter_edges(edges, min_length=MIN_RULE)
    cells = grid.intersections_to_cells(grid.edges_to_intersections(edges, SNAP, SNAP))
    found = []
    for table_cells in grid.cells_to_tables(cells):
        table = _read(table_cells, textpage, height)
        if table is not None:
            found.append(table)
    return sorted(found, key=lambda table: -table.box[3])


def carry_headers(pages: Sequence[list[PageTable]], heights: Sequence[float]) -> None:
    """A table continued from the page before (same columns, at the top of its page) takes
    the header of the table it continues: its first row is data, or the header repeated."""
    for number in range(1, len(pages)):
        before, here = pages[number - 1], pages[number]
        if not before or not here:
            continue
        last, first = before[-1], here[0]
        if not _same_columns(last.columns, first.columns):
            continue
        if first.box[3] < heights[number] * (1 - TOP_SHARE):
            continue
        header = last.table.header
        rows = first.table.rows
        if first.table.header != header:
            rows = (first.table.header, *rows)
        if rows:
            here[0] = replace(first, table=Table(header=header, rows=rows))


def _same_columns(one: tuple[float, ...], other: tuple[float, ...]) -> bool:
    return len(one) == len(other) and all(
        abs(a - b) <= SAME_COLUMN for a, b in zip(one, other, strict=True)
    )


def _edges(page: pdfium.PdfPage, height: float) -> Iterator[dict[str, Any]]:
    """Horizontal and vertical rules, as pdfplumber's edges (top-down coordinates)."""
    for path in page.get_objects(filter=[pdfium_c.FPDF_PAGEOBJ_PATH], max_depth=1):
        if not _painted(path):
            continue
        segments = pdfium_c.FPDFPath_CountSegments(path.raw)
        if segments <= _SIMPLE_PATH_SEGMENTS:
            left, bottom, right, top = path.get_bounds()
            yield from _box_edges(left, bottom, right, top, height)
        else:
            yield from _segment_edges(path, segments, height)


def _painted(path: pdfium.PdfObject) -> bool:
    fill = ctypes.c_int(0)
    stroke = ctypes.c_int(0)
    if not pdfium_c.FPDFPath_GetDrawMode(path.raw, ctypes.byref(fill), ctypes.byref(stroke)):
        return False
    return bool(fill.value or stroke.value)


def _box_edges(
    left: float, bottom: float, right: float, top: float, height: float
) -> Iterator[dict[str, Any]]:
    """A line's or rectangle's sides: a thin one is one rule along its middle."""
    if top - bottom <= MAX_RULE_WIDTH:
        yield _edge("h", left, right, height - (top + bottom) / 2)
    elif right - left <= MAX_RULE_WIDTH:
        yield _edge("v", (left + right) / 2, height - top, height - bottom)
    else:
        yield _edge("h", left, right, height - top)
        yield _edge("h", left, right, height - bottom)
        yield _edge("v", left, height - top, height - bottom)
        yield _edge("v", right, height - top, height - bottom)


def _segment_edges(
    path: pdfium.PdfObject, segments: int, height: float
) -> Iterator[dict[str, Any]]:
    a, b, c, d, e, f = path.get_matrix().get()
    start: tuple[float, float] | None = None
    previous: tuple[float, float] | None = None
    for index in range(segments):
        segment = pdfium_c.FPDFPath_GetPathSegment(path.raw, index)
        x, y = ctypes.c_float(0), ctypes.c_float(0)
        if not pdfium_c.FPDFPathSegment_GetPoint(segment, ctypes.byref(x), ctypes.byref(y)):
            continue
        point = (a * x.value + c * y.value + e, b * x.value + d * y.value + f)
        kind = pdfium_c.FPDFPathSegment_GetType(segment)
        if kind == pdfium_c.FPDF_SEGMENT_MOVETO:
            start = point
        elif kind == pdfium_c.FPDF_SEGMENT_LINETO and previous is not None:
            yield from _straight(previous, point, height)
        if pdfium_c.FPDFPathSegment_GetClose(segment) and start is not None:
            yield from _straight(point, start, height)
        previous = point


def _straight(
    one: tuple[float, float], other: tuple[float, float], height: float
) -> Iterator[dict[str, Any]]:
    (x0, y0), (x1, y1) = one, other
    if abs(y0 - y1) <= 0.5 and abs(x0 - x1) >= MIN_RULE:
        yield _edge("h", min(x0, x1), max(x0, x1), height - y0)
    elif abs(x0 - x1) <= 0.5 and abs(y0 - y1) >= MIN_RULE:
        yield _edge("v", x0, height - max(y0, y1), height - min(y0, y1))


def _edge(orientation: str, first: float, second: float, at: float) -> dict[str, Any]:
    """A horizontal edge from x `first` to `second` at top `at`; a vertical one at x `first`
    from top `second` to top `at`."""
    if orientation == "h":
        x0, x1, top, bottom = first, second, at, at
    else:
        x0, x1, top, bottom = first, first, second, at
    return {
        "x0": x0,
        "x1": x1,
        "top": top,
        "bottom": bottom,
        "doctop": top,
        "width": x1 - x0,
        "height": bottom - top,
        "orientation": orientation,
        "object_type": "rect",
    }


def _read(
    cells: list[Cell],
    textpage: pdfium.PdfTextPage,
    height: float,
) -> PageTable | None:
    """One grid's rows of cell text, or None where it is no table to be sure of."""
    rows = grid.Table(None, cells).rows  # type: ignore[arg-type]  # rows never read the page
    texts = {cell: _cell_text(textpage, cell, height) for cell in cells}
    table: list[list[str]] = []
    tops: list[float] = []  # each kept row's top
    for number, row in enumerate(rows):
        if row.bbox[3] - row.bbox[1] < MIN_ROW_HEIGHT:
            continue  # a double rule: no text fits between
        line = []
        for column, cell in enumerate(row.cells):
            if cell is not None:
                line.append(texts[cell])
                continue
            above = _spanning(rows, number, column)
            # merged down from the row above: repeated; merged across: read once already
            line.append(texts[above] if above is not None else "")
        if any(line) and (not table or line != table[-1]):
            table.append(line)
            tops.append(row.bbox[1])
    if not table:
        return None
    filled = [index for index in range(len(table[0])) if any(row[index] for row in table)]
    table = [[row[index] for index in filled] for row in table]
    # Rows above the header holding one cell across the grid are its title: they stay in
    # the page's text, where a title reads as a heading.
    while len(table) > MIN_ROWS and sum(1 for cell in table[0] if cell) == 1:
        table.pop(0)
        tops.pop(0)
    if not _sure(table):
        return None
    left = min(cell[0] for cell in cells)
    right = max(cell[2] for cell in cells)
    bottom = max(cell[3] for cell in cells)
    columns = tuple(sorted({round(cell[0], 1) for cell in cells}))
    if not _headed(table):
        table.insert(0, [""] * len(table[0]))
    return PageTable(
        table=Table(header=tuple(table[0]), rows=tuple(tuple(row) for row in table[1:])),
        box=(left, height - bottom, right, height - tops[0]),
        columns=columns,
    )


def _spanning(rows: list[grid.CellGroup], number: int, column: int) -> Cell | None:
    """The cell of an earlier row in this column that reaches down over row `number`."""
    bottom = rows[number].bbox[3]
    for earlier in reversed(rows[:number]):
        cell = earlier.cells[column]
        if cell is not None:
            return cell if cell[3] >= bottom - SNAP else None
    return None


def _cell_text(textpage: pdfium.PdfTextPage, cell: Cell, height: float) -> str:
    x0, top, x1, bottom = cell
    text = textpage.get_text_bounded(left=x0, bottom=height - bottom, right=x1, top=height - top)
    text = _SOFT_HYPHEN.sub("", text)  # a word hyphenated over the cell's lines
    return " ".join(clean_text(text.replace("\r\n", "\n")).split())


def _sure(table: list[list[str]]) -> bool:
    if len(table) < MIN_ROWS or len(table[0]) < MIN_COLUMNS:
        return False
    # most rows holding their text in one cell: boxed or shaded paragraphs, not columns
    single = sum(1 for row in table if sum(1 for cell in row if cell) < MIN_COLUMNS)
    if single * 2 >= len(table):
        return False
    if _wrapped(table) * 3 > len(table):
        return False
    cells = [cell for row in table for cell in row if cell]
    return not (
        len(table) <= PROSE_MAX_ROWS and sum(map(len, cells)) / len(cells) > PROSE_CELL_CHARS
    )


def _headed(table: list[list[str]]) -> bool:
    """Whether the first row names the columns: not when it holds a figure where the rows
    under it hold figures too ("4 Exams | 36%" over "Quizzes | 12%"). A key/value table
    ("Name: | ...") keeps its first pair as the header row, as Markdown gives it."""
    first, rest = table[0], table[1:]
    if all(row[0].endswith(":") for row in table):
        return True  # labels and values: read as Markdown has them, the first pair on top
    for column, cell in enumerate(first):
        if _FIGURE.search(cell) and 2 * sum(
            bool(_FIGURE.search(row[column])) for row in rest
        ) >= len(rest):
            return False
    return True


def _wrapped(table: list[list[str]]) -> int:
    """Rows whose cell goes on mid-sentence from the cell above: lines of prose that a rule
    under each line (shading, underlined links) cut into rows."""
    count = 0
    for upper, lower in pairwise(table):
        if any(
            len(above) >= MIN_PROSE_LINE
            and below
            and above[-1].isalpha()
            and above[-1].islower()
            and below[0].islower()
            for above, below in zip(upper, lower, strict=True)
        ):
            count += 1
    return count
