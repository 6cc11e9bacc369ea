"""Ruled tables in PDFs written here with fpdf2: a table block with its header where the
table stood, merged and wrapped cells, a table continued on the next page, and pages whose
ruled boxes are no table keeping their text."""

from __future__ import annotations

from pathlib import Path

from fpdf import FPDF

from ingestion.documents import Block, BlockKind
from ingestion.loaders.pdf import load_pdf

EXAMS = [
    ("Exam", "Date", "Time"),
    ("Midterm 1", "Fri Mar 3", "7-9 pm"),
    ("Midterm 2", "Fri Apr 7", "7-9 pm"),
    ("Midterm 3", "Fri May 5", "6-8 pm"),
]

LONG_TOPIC = "Limits, continuity and the squeeze theorem, with worked examples from the notes"


def _document(path: Path, draw) -> Path:
    pdf = FPDF(format="A4")
    pdf.set_font("helvetica", size=11)
    pdf.add_page()
    draw(pdf)
    path.write_bytes(bytes(pdf.output()))
    return path


def _paragraph(pdf: FPDF, text: str) -> None:
    pdf.multi_cell(0, 6, text, new_x="LMARGIN", new_y="NEXT")
    pdf.ln(4)


def _table(pdf: FPDF, rows, **options) -> None:
    with pdf.table(**options) as table:
        for cells in rows:
            row = table.row()
            for cell in cells:
                row.cell(cell)
    pdf.ln(4)


def _tables(blocks: list[Block]) -> list[Block]:
    return [block for block in blocks if block.kind is BlockKind.TABLE]


def test_an_exam_table_is_one_block_with_its_header_between_its_paragraphs(
    tmp_path: Path,
) -> None:
    def draw(pdf: FPDF) -> None:
        _paragraph(pdf, "Exams. The course has three midterms, each closed book.")
        _table(pdf, EXAMS)
        _paragraph(pdf, "Makeup exams are given only with a documented excuse.")

    document = load_pdf(_document(tmp_path / "exams.pdf", draw), "exams.pdf")

    kinds = [block.kind for block in document.blocks]
    assert kinds == [BlockKind.PARAGRAPH, BlockKind.TABLE, BlockKind.PARAGRAPH]
    [table] = _tables(document.blocks)
    assert table.table is not None
    assert table.table.header == ("Exam", "Date", "Time")
    assert table.table.rows[1] == ("Midterm 2", "Fri Apr 7", "7-9 pm")
    assert table.text.splitlines()[2] == "| Midterm 2 | Fri Apr 7 | 7-9 pm |"
    assert table.page == 1
    # the cells are read once, in the table, not again as a run of words
    assert not any("Midterm" in block.text for block in document.blocks if block is not table)


def test_merged_and_wrapped_cells_are_read_whole(tmp_path: Path) -> None:
    def draw(pdf: FPDF) -> None:
        with pdf.table(col_widths=(30, 30, 70)) as table:
            for cells in (("Week", "Day", "Topic"),):
                row = table.row()
                for cell in cells:
                    row.cell(cell)
            row = table.row()
            row.cell("Week 1", rowspan=2)
            row.cell("Mon")
            row.cell(LONG_TOPIC)
            row = table.row()
            row.cell("Wed")
            row.cell("Derivatives")
            row = table.row()
            row.cell("Week 2")
            row.cell("Spring break: no class this week", colspan=2)

    document = load_pdf(_document(tmp_path / "schedule.pdf", draw), "schedule.pdf")

    [block] = _tables(document.blocks)
    assert block.table is not None
    assert block.table.rows == (
        # a cell wrapped over lines is one cell
        ("Week 1", "Mon", LONG_TOPIC),
        ("Week 1", "Wed", "Derivatives"),  # merged down: each row says its week
        ("Week 2", "Spring break: no class this week", ""),  # merged across: read once
    )


def test_a_table_continued_on_the_next_page_keeps_its_header(tmp_path: Path) -> None:
    weeks = [("Week", "Reading")] + [(f"Week {n}", f"Chapter {n}") for n in range(1, 41)]

    def draw(pdf: FPDF) -> None:
        _table(pdf, weeks)

    document = load_pdf(_document(tmp_path / "weeks.pdf", draw), "weeks.pdf")

    tables = _tables(document.blocks)
    assert [block.page for block in tables] == [1, 2]
    assert all(block.table and block.table.header == ("Week", "Reading") for block in tables)
    rows = [row for block in tables if block.table for row in block.table.rows]
    assert rows == weeks[1:]  # the header fpdf2 repeats is not read as a row


def test_a_grade_scale_without_a_header_row_gets_an_empty_one(tmp_path: Path) -> None:
    def draw(pdf: FPDF) -> None:
        _table(pdf, [("A", "93%"), ("A-", "90%"), ("B+", "87%")], first_row_as_headings=False)

    document = load_pdf(_document(tmp_path / "scale.pdf", draw), "scale.pdf")

    [block] = _tables(document.blocks)
    assert block.table is not None
    assert block.table.header == ("", "")
    assert block.table.rows[0] == ("A", "93%")
    assert block.text.splitlines()[:2] == ["|  |", "| A | 93% |"]


def test_boxes_that_are_no_table_keep_their_text(tmp_path: Path) -> None:
    prose = (
        "Students are expected to attend every lecture and to read the assigned chapter "
        "before it. Questions raised in class are answered in the forum within two days, "
        "and the answers are summarised in the weekly notes that follow each lecture. "
    ) * 2

    def draw(pdf: FPDF) -> None:
        # one column of boxed notes
        _table(pdf, [("Note",), ("Bring a calculator.",), ("Phones stay off.",)])
        # prose laid out in two ruled columns
        _table(pdf, [(prose, prose)], first_row_as_headings=False)

    document = load_pdf(_document(tmp_path / "boxes.pdf", draw), "boxes.pdf")

    assert _tables(document.blocks) == []
    text = "\n".join(block.text for block in document.blocks)
    assert "Bring a calculator." in text
    assert "Questions raised in class" in text
