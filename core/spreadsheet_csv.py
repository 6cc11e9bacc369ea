"""CSV files for people to open in a spreadsheet: every export (flashcards, mistakes, any
later one) is written here, so no cell the material or a student typed runs as a formula.

A spreadsheet reads a cell starting with `=`, `+`, `-` or `@` as a formula (`=HYPERLINK(...)`
sends a click to any address; `@SUM(...)`, `+1+1` compute), and a tab or carriage return in
front hides such a start from a naive check. Such a cell gets a leading `'`, which makes it
text in Excel, LibreOffice and Google Sheets (OWASP's advice for CSV injection). Leading spaces
are looked through: LibreOffice can be set to trim them. The full-width forms count too: some
East Asian spreadsheet settings read them as the plain ones.

(defusedcsv does the same job but misses tab and carriage return, and rewrites `|`, which the
pipe tables in course material use.)"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Sequence

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r", "\n", "＝", "＋", "－", "＠")


def neutralised(value: object) -> str:
    """The cell's text, made plain text for a spreadsheet when it would start a formula."""
    text = "" if value is None else str(value)
    return "'" + text if text.lstrip(" ").startswith(FORMULA_STARTS) else text


class SpreadsheetCsv:
    """A UTF-8 CSV built row by row (an export can stream rows from the database)."""

    def __init__(self, header: Sequence[str]) -> None:
        self._buffer = io.StringIO()
        self._writer = csv.writer(self._buffer)
        self.add(header)

    def add(self, row: Iterable[object]) -> None:
        self._writer.writerow([neutralised(cell) for cell in row])

    def to_bytes(self) -> bytes:
        return self._buffer.getvalue().encode("utf-8")


def csv_bytes(header: Sequence[str], rows: Iterable[Iterable[object]]) -> bytes:
    """A whole export at once: the header, then each row."""
    table = SpreadsheetCsv(header)
    for row in rows:
        table.add(row)
    return table.to_bytes()
