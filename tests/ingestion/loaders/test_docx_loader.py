"""The Word loader on documents built here with python-docx."""

from __future__ import annotations

import io
from pathlib import Path

import docx
import pytest
from docx.shared import Inches
from PIL import Image

from ingestion.documents import BlockKind, DocumentKind, Table
from ingestion.errors import CorruptFileError, EmptyFileError, EncryptedFileError
from ingestion.loaders.docx import load_docx


def _guide(tmp_path: Path) -> Path:
    """A course guide: Title, Heading 1/2, paragraphs, nested list items, a table, a picture."""
    document = docx.Document()
    document.add_heading("Statistics 101 Course Guide", level=0)
    document.add_heading("Assessment", level=1)
    document.add_paragraph("Grades are given in percent.")
    document.add_heading("Exams", level=2)
    document.add_paragraph("Bring a calculator", style="List Bullet")
    document.add_paragraph("A basic one is enough", style="List Bullet 2")
    document.add_paragraph("Arrive ten minutes early", style="List Number")
    table = document.add_table(rows=3, cols=2)
    for row, cells in enumerate([("Part", "Weight"), ("Homework", "30%"), ("Final", "70%")]):
        for column, text in enumerate(cells):
            table.cell(row, column).text = text
    document.add_paragraph("Exams are closed book.")
    document.add_heading("Contact", level=1)
    document.add_paragraph("Email the instructor with ﬁve days' notice.")
    picture = tmp_path / "campus-map.png"
    Image.new("RGB", (100, 70), "olive").save(picture)
    document.add_picture(str(picture), width=Inches(2))
    path = tmp_path / "guide.docx"
    document.save(str(path))
    return path


def test_a_word_file_is_a_document_without_pages(tmp_path: Path) -> None:
    document = load_docx(_guide(tmp_path), "Course guide.docx")

    assert document.kind is DocumentKind.DOCUMENT
    assert document.file_name == "Course guide.docx"
    assert document.title == "Statistics 101 Course Guide"  # the paragraph in "Title" style
    assert all(block.page is None for block in document.blocks)


def test_headings_build_the_section_path_by_level(tmp_path: Path) -> None:
    document = load_docx(_guide(tmp_path), "guide.docx")

    sections = {block.text: block.section for block in document.blocks}
    guide = "Statistics 101 Course Guide"
    assert sections["Grades are given in percent."] == (guide, "Assessment")
    assert sections["Exams are closed book."] == (guide, "Assessment", "Exams")
    assert sections["Email the instructor with five days' notice."] == (guide, "Contact")
    assert not any(block.text in ("Assessment", "Exams", "Contact") for block in document.blocks)


def test_body_is_read_in_order_with_tables_between_paragraphs(tmp_path: Path) -> None:
    document = load_docx(_guide(tmp_path), "guide.docx")

    assert [block.kind for block in document.blocks] == [
        BlockKind.PARAGRAPH,
        BlockKind.LIST_ITEM,
        BlockKind.LIST_ITEM,
        BlockKind.LIST_ITEM,
        BlockKind.TABLE,
        BlockKind.PARAGRAPH,
        BlockKind.PARAGRAPH,
    ]


def test_list_paragraphs_are_list_items_indented_by_level(tmp_path: Path) -> None:
    document = load_docx(_guide(tmp_path), "guide.docx")

    items = [block.text for block in document.blocks if block.kind is BlockKind.LIST_ITEM]
    assert items == [
        "- Bring a calculator",
        "  - A basic one is enough",
        "- Arrive ten minutes early",
    ]


def test_a_table_keeps_its_cells_with_the_first_row_as_header(tmp_path: Path) -> None:
    document = load_docx(_guide(tmp_path), "guide.docx")

    table = next(block for block in document.blocks if block.kind is BlockKind.TABLE)
    assert table.table == Table(
        header=("Part", "Weight"), rows=(("Homework", "30%"), ("Final", "70%"))
    )
    assert table.text == "| Part | Weight |\n| Homework | 30% |\n| Final | 70% |"
    assert table.section == ("Statistics 101 Course Guide", "Assessment", "Exams")


def test_cells_merged_across_columns_count_once(tmp_path: Path) -> None:
    document = docx.Document()
    table = document.add_table(rows=2, cols=3)
    merged = table.cell(0, 0).merge(table.cell(0, 2))
    merged.text = "Week 1"
    for column, text in enumerate(("Mon", "Wed", "Fri")):
        table.cell(1, column).text = text
    path = tmp_path / "schedule.docx"
    document.save(str(path))

    block = load_docx(path, "schedule.docx").blocks[0]

    assert block.table == Table(header=("Week 1",), rows=(("Mon", "Wed", "Fri"),))


def test_pictures_become_images_with_their_section_only_when_asked(tmp_path: Path) -> None:
    path = _guide(tmp_path)

    assert load_docx(path, "guide.docx").images == []
    images = load_docx(path, "guide.docx", with_images=True).images

    assert [(image.page, image.section, image.media_type) for image in images] == [
        (None, ("Statistics 101 Course Guide", "Contact"), "image/png")
    ]
    with Image.open(io.BytesIO(images[0].data)) as decoded:
        assert decoded.size == (100, 70)


def test_the_file_name_is_the_title_when_the_file_has_none(tmp_path: Path) -> None:
    document = docx.Document()
    document.core_properties.title = ""
    document.add_paragraph("Office hours are on Tuesdays.")
    path = tmp_path / "upload.docx"
    document.save(str(path))

    assert load_docx(path, "Week 3 handout.docx").title == "Week 3 handout"


def test_garbage_bytes_are_a_corrupt_file(tmp_path: Path) -> None:
    path = tmp_path / "notes.docx"
    path.write_bytes(b"not a zip archive, just text" * 10)

    with pytest.raises(CorruptFileError, match=r"notes\.docx"):
        load_docx(path, "notes.docx")


def test_a_truncated_document_is_a_corrupt_file(tmp_path: Path) -> None:
    data = _guide(tmp_path).read_bytes()
    path = tmp_path / "cut.docx"
    path.write_bytes(data[: len(data) // 2])

    with pytest.raises(CorruptFileError):
        load_docx(path, "cut.docx")


def test_a_presentation_named_docx_is_a_corrupt_file(tmp_path: Path) -> None:
    from pptx import Presentation

    path = tmp_path / "renamed.docx"
    Presentation().save(str(path))

    with pytest.raises(CorruptFileError):
        load_docx(path, "renamed.docx")


def test_an_ole_container_is_reported_as_password_protected(tmp_path: Path) -> None:
    path = tmp_path / "locked.docx"
    path.write_bytes(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(504))

    with pytest.raises(EncryptedFileError, match="password-protected"):
        load_docx(path, "locked.docx")


def test_a_document_without_text_is_empty(tmp_path: Path) -> None:
    document = docx.Document()
    document.add_paragraph("   ")
    path = tmp_path / "blank.docx"
    document.save(str(path))

    with pytest.raises(EmptyFileError):
        load_docx(path, "blank.docx")
