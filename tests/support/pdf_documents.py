"""PDFs with ruled tables, written here with fpdf2: a Markdown document (headings,
paragraphs, pipe tables) laid out as a word processor would print it, so the PDF loader can
be checked against what the Markdown loader reads from the same text."""

from __future__ import annotations

from pathlib import Path

from fpdf import FPDF
from fpdf.fonts import FontFace

from core.lessons.fonts import font_dir

# fpdf2 cannot split a row over pages: a longer cell is cut (the real curriculum's programme
# description runs to pages in one cell).
MAX_CELL_CHARS = 500


def markdown_pdf(markdown: str, path: Path) -> Path:
    """`markdown` printed to `path` on portrait A4 pages in DejaVu Sans (Vietnamese names
    need more than the core fonts): `#` and `##` lines as bold headings, pipe tables as
    ruled tables with a bold header row, other lines as paragraphs."""
    pdf = FPDF(format="A4")
    pdf.add_font("DejaVu", "", str(font_dir() / "DejaVuSans.ttf"))
    pdf.add_font("DejaVu", "B", str(font_dir() / "DejaVuSans-Bold.ttf"))
    pdf.set_auto_page_break(True, margin=15)
    pdf.add_page()
    table: list[list[str]] = []
    for line in [*markdown.splitlines(), ""]:
        stripped = line.strip()
        if stripped.startswith("|"):
            cells = [cell.strip() for cell in stripped.strip("|").split("|")]
            if not all(set(cell) <= set(":- ") for cell in cells):
                table.append(cells)
            continue
        if table:
            _table(pdf, table)
            table = []
        if stripped.startswith("#"):
            level = len(stripped) - len(stripped.lstrip("#"))
            pdf.ln(3)
            pdf.set_font("DejaVu", "B", 16 if level == 1 else 13)
            pdf.multi_cell(0, 8, stripped.lstrip("#").strip(), new_x="LMARGIN", new_y="NEXT")
            pdf.ln(1)
        elif stripped:
            pdf.set_font("DejaVu", "", 10)
            pdf.multi_cell(0, 5, stripped, new_x="LMARGIN", new_y="NEXT")
            pdf.ln(2)
    path.write_bytes(bytes(pdf.output()))
    return path


def _table(pdf: FPDF, rows: list[list[str]]) -> None:
    width = max(len(row) for row in rows)
    pdf.set_font("DejaVu", "", 9)
    with pdf.table(
        headings_style=FontFace(emphasis="BOLD"), line_height=5, text_align="LEFT"
    ) as table:
        for cells in rows:
            row = table.row()
            for cell in [*cells, *[""] * (width - len(cells))]:
                text = cell.replace("</br>", " ")
                row.cell(text if len(text) <= MAX_CELL_CHARS else text[:MAX_CELL_CHARS] + "…")
    pdf.ln(3)
