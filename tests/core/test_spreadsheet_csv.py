"""The one CSV writer: a cell a spreadsheet would run as a formula is made text, anything else
is kept as it is, and no other module writes CSV."""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

import pytest

from core.spreadsheet_csv import SpreadsheetCsv, csv_bytes, neutralised

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    "cell",
    [
        '=HYPERLINK("http://evil.example/t","zebrafish")',
        "@SUM(A1:A9)",
        "+1+1",
        "-2+3",
        "\t=1+1",
        "\r=1+1",
        "  =1+1",
        "＝1+1",
    ],
)
def test_a_cell_that_would_start_a_formula_is_made_text(cell: str) -> None:
    assert neutralised(cell) == "'" + cell


@pytest.mark.parametrize("cell", ["2x = 4", "d/dx x^n", "| a | b |", "", "e-mail", "50%"])
def test_other_cells_are_kept_as_they_are(cell: str) -> None:
    assert neutralised(cell) == cell


def test_rows_read_back_with_every_cell_neutralised_and_none_lost() -> None:
    table = SpreadsheetCsv(["front", "back"])
    table.add(['=1+1, "quoted"\nand a new line', None])
    table.add([3, "@x"])

    rows = list(csv.reader(io.StringIO(table.to_bytes().decode("utf-8"))))

    assert rows == [["front", "back"], ['\'=1+1, "quoted"\nand a new line', ""], ["3", "'@x"]]
    assert csv_bytes(["front", "back"], [['=1+1, "quoted"\nand a new line', None], [3, "@x"]]) == (
        table.to_bytes()
    )


def test_no_other_module_writes_csv() -> None:
    """Every export goes through core/spreadsheet_csv.py: a second writer would be a second
    place to forget the formula rule."""
    # Reading CSV (Tesseract's TSV) is no export: only writers count.
    writers = re.compile(
        r"csv\.(writer|DictWriter)\(|^\s*from csv import[^\n]*\b(writer|DictWriter)\b", re.M
    )
    found = [
        str(path.relative_to(ROOT))
        for package in ("core", "bot", "ingestion", "config")
        for path in (ROOT / package).rglob("*.py")
        if writers.search(path.read_text(encoding="utf-8"))
    ]
    assert found == ["core/spreadsheet_csv.py"]
