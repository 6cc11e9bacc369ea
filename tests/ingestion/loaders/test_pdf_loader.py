"""The PDF loader on the sample course's decks, on PDFs written here with fpdf2, and on every
syllabus of the shared syllabusqa-dev dataset."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from conftest import SAMPLE_COURSE, SHARED_DATASETS
from fpdf import FPDF
from PIL import Image

from ingestion.documents import BlockKind, DocumentKind
from ingestion.errors import CorruptFileError, EmptyFileError, EncryptedFileError
from ingestion.loaders.pdf import load_pdf
from ingestion.loaders.text_cleanup import clean_text, contents_page

LECTURE_1 = SAMPLE_COURSE / "lecture-01-limits.pdf"
LECTURE_2 = SAMPLE_COURSE / "lecture-02-derivatives.pdf"
SYLLABI = SHARED_DATASETS / "syllabusqa-dev" / "courses"


def _write(pdf: FPDF, path: Path) -> Path:
    path.write_bytes(bytes(pdf.output()))
    return path


def _syllabus_pdf(path: Path) -> Path:
    """Two portrait pages: bold headings, wrapped paragraphs, a bullet list, page numbers."""
    pdf = FPDF(format="A4")
    pdf.set_auto_page_break(False)
    pdf.set_title("Statistics 101 Syllabus")

    def heading(text: str) -> None:
        pdf.ln(6)
        pdf.set_font("helvetica", "B", 14)
        pdf.cell(0, 8, text, new_x="LMARGIN", new_y="NEXT")
        pdf.ln(2)

    def paragraph(text: str) -> None:
        pdf.set_font("helvetica", "", 11)
        pdf.multi_cell(0, 5, text, new_x="LMARGIN", new_y="NEXT")
        pdf.ln(4)

    def page_number() -> None:
        pdf.set_xy(0, 285)
        pdf.set_font("helvetica", "", 9)
        pdf.cell(210, 5, f"Page {pdf.page_no()}", align="C")

    pdf.add_page()
    heading("COURSE DESCRIPTION")
    paragraph(
        "This course introduces descriptive statistics, probability and inference. "
        "Students learn to summarise data, to reason about uncertainty and to test "
        "hypotheses with real data sets drawn from the sciences and public life."
    )
    paragraph("Lectures are on Mondays and Wednesdays. Labs are on Fridays.")
    heading("3. Grading")
    paragraph("Homework 30%\nMidterm exam 30%\nFinal exam 40%")
    page_number()
    pdf.add_page()
    paragraph(
        "Late homework loses ten percent per day. Regrade requests are due within one "
        "week of the graded work being returned."
    )
    pdf.set_font("helvetica", "", 11)
    for item in ("- Bring a calculator to every exam.", "- Phones stay in your bag."):
        pdf.cell(0, 5, item, new_x="LMARGIN", new_y="NEXT")
        pdf.ln(3)
    page_number()
    return _write(pdf, path)


# The sample course's slide decks


def test_a_landscape_deck_is_slides_with_one_page_per_slide() -> None:
    document = load_pdf(LECTURE_1, "lecture-01-limits.pdf")

    assert document.kind is DocumentKind.SLIDES
    assert document.page_count == 8
    assert document.file_name == "lecture-01-limits.pdf"
    assert document.title == "MATH 101 - Calculus I - Lecture 1: Limits and Continuity"
    assert {block.page for block in document.blocks} == set(range(1, 9))


def test_each_slide_title_is_the_section_of_its_blocks() -> None:
    document = load_pdf(LECTURE_2, "lecture-02-derivatives.pdf")

    sections = {block.page: block.section for block in document.blocks}
    assert sections[2] == ("The Derivative as a Limit",)
    assert sections[7] == ("Derivatives of sin, cos, exp and ln",)
    assert sections[9] == ("Summary",)
    assert all(block.section == sections[block.page] for block in document.blocks)
    # the title is the section, not repeated as the slide's first line
    assert not any(block.text.startswith("The Chain Rule") for block in document.blocks)


def test_a_ruled_table_on_a_slide_is_a_table_block_with_its_header() -> None:
    document = load_pdf(LECTURE_2, "lecture-02-derivatives.pdf")

    tables = [b for b in document.blocks if b.page == 7 and b.kind is BlockKind.TABLE]
    assert len(tables) == 1 and tables[0].table is not None
    assert tables[0].table.header == ("Function f(x)", "Derivative f'(x)")
    assert ("sin(x)", "cos(x)") in tables[0].table.rows
    assert "| cos(x) | -sin(x) |" in tables[0].text
    # its cells are no longer run together in the slide's paragraphs
    rest = [b.text for b in document.blocks if b.page == 7 and b.kind is not BlockKind.TABLE]
    assert not any("ln(x)" in text for text in rest)


def test_slide_bullets_become_separate_blocks_and_wrapped_lines_stay_joined() -> None:
    document = load_pdf(LECTURE_1, "lecture-01-limits.pdf")

    page_2 = [block.text for block in document.blocks if block.page == 2]
    assert page_2[0] == (
        "lim_{x->a} f(x) = L means: f(x) gets as close to L as we like when x is close\n"
        "enough to a (but x != a)."
    )
    assert "The value f(a) itself does not matter; f need not even be defined at a." in page_2
    assert len(page_2) == 4


def test_a_footer_repeated_on_every_slide_is_dropped() -> None:
    document = load_pdf(LECTURE_1, "lecture-01-limits.pdf")

    assert not any("Slide 3 / 8" in block.text for block in document.blocks)
    assert not any("MATH 101 - Calculus I |" in block.text for block in document.blocks)


# Documents written here


def test_headings_set_the_section_of_the_following_blocks_across_pages(tmp_path: Path) -> None:
    document = load_pdf(_syllabus_pdf(tmp_path / "syllabus.pdf"), "syllabus.pdf")

    assert document.kind is DocumentKind.DOCUMENT
    assert document.title == "Statistics 101 Syllabus"
    assert document.page_count == 2
    by_text = {block.text: block for block in document.blocks}
    lectures = by_text["Lectures are on Mondays and Wednesdays. Labs are on Fridays."]
    assert lectures.section == ("COURSE DESCRIPTION",)
    assert lectures.page == 1
    grades = by_text["Homework 30%\nMidterm exam 30%\nFinal exam 40%"]
    assert grades.section == ("3. Grading",)
    late = next(block for block in document.blocks if block.text.startswith("Late homework"))
    assert late.page == 2
    assert late.section == ("3. Grading",)


def test_paragraphs_split_at_spacing_and_wrapped_lines_join_into_one(tmp_path: Path) -> None:
    document = load_pdf(_syllabus_pdf(tmp_path / "syllabus.pdf"), "syllabus.pdf")

    description = next(b for b in document.blocks if b.text.startswith("This course"))
    assert description.kind is BlockKind.PARAGRAPH
    assert description.text.endswith("public life.")
    assert "\n" in description.text  # wrapped over lines, kept as lines


def test_bulleted_lines_are_list_items(tmp_path: Path) -> None:
    document = load_pdf(_syllabus_pdf(tmp_path / "syllabus.pdf"), "syllabus.pdf")

    items = [block.text for block in document.blocks if block.kind is BlockKind.LIST_ITEM]
    assert items == ["- Bring a calculator to every exam.", "- Phones stay in your bag."]


def test_page_numbers_in_the_margin_are_dropped(tmp_path: Path) -> None:
    document = load_pdf(_syllabus_pdf(tmp_path / "syllabus.pdf"), "syllabus.pdf")

    assert not any("Page 1" in block.text or "Page 2" in block.text for block in document.blocks)


def test_the_file_name_is_the_title_when_the_pdf_has_none(tmp_path: Path) -> None:
    pdf = FPDF()
    pdf.add_page()
    pdf.set_font("helvetica", size=12)
    pdf.cell(text="Office hours are on Tuesdays.")
    path = _write(pdf, tmp_path / "upload-3f9a.pdf")

    document = load_pdf(path, "Week 3 handout.pdf")

    assert document.title == "Week 3 handout"
    assert [block.text for block in document.blocks] == ["Office hours are on Tuesdays."]


def test_extracted_text_is_normalised() -> None:
    assert clean_text("ﬁnal ﬂow") == "final flow"
    assert clean_text("line one\r\nline two") == "line one\nline two"
    assert clean_text("a  word\t\tapart") == "a word apart"
    assert clean_text("the assign-\nment is due") == "the assignment is due"
    assert clean_text("Homework  30%\nMidterm   30%") == "Homework 30%\nMidterm 30%"
    assert clean_text("e-\nMail") == "e-\nMail"  # a capital after the hyphen is no split word
    assert clean_text("Grading ............ 4") == "Grading 4"  # a contents entry's leader
    assert clean_text("Homework . . . . . . . . 20%") == "Homework 20%"
    assert clean_text("jury duty.....)") == "jury duty.....)"  # an ellipsis, not a leader
    assert clean_text("1, 2, ..., n and so on...") == "1, 2, ..., n and so on..."


def _contents_pdf(path: Path, entries: list[tuple[str, str]]) -> Path:
    """A "Contents" page of dot-leader entries, spaced like headings, then one section."""
    pdf = FPDF(format="A4")
    pdf.add_page()
    pdf.set_font("helvetica", "B", 14)
    pdf.cell(0, 8, "Contents", new_x="LMARGIN", new_y="NEXT")
    pdf.set_font("helvetica", "", 11)
    for entry, page in entries:
        pdf.ln(4)
        pdf.cell(0, 6, f"{entry} {'.' * 60} {page}", new_x="LMARGIN", new_y="NEXT")
    pdf.ln(8)
    pdf.set_font("helvetica", "B", 14)
    pdf.cell(0, 8, "Office Hours", new_x="LMARGIN", new_y="NEXT")
    pdf.ln(2)
    pdf.set_font("helvetica", "", 11)
    pdf.multi_cell(0, 5, "Office hours are on Wednesdays at two.", new_x="LMARGIN", new_y="NEXT")
    pdf.add_page()
    pdf.multi_cell(0, 5, "Grading is described here.", new_x="LMARGIN", new_y="NEXT")
    return _write(pdf, path)


def test_a_table_of_contents_is_dropped_and_heads_no_section(tmp_path: Path) -> None:
    """Its entries repeat the headings (quoted, they answered "How is the course graded?"
    with "Section 10: Academic Assessment (Grading) 3"); spaced like headings, they must not
    open sections either: the real headings after them still do."""
    entries = [("Office Hours", "1"), ("Academic Assessment (Grading)", "2"), ("Help", "2")]
    document = load_pdf(_contents_pdf(tmp_path / "toc.pdf", entries), "toc.pdf")

    texts = [block.text for block in document.blocks]
    assert not any("Assessment" in text or ".." in text for text in texts)
    by_text = {block.text: block for block in document.blocks}
    assert by_text["Office hours are on Wednesdays at two."].section == ("Office Hours",)


def test_points_with_dot_leaders_are_no_table_of_contents(tmp_path: Path) -> None:
    """The figures name no page of a two-page document: the lines stay, without their dots."""
    entries = [("Homework", "100"), ("Midterm", "150"), ("Final", "200")]
    document = load_pdf(_contents_pdf(tmp_path / "points.pdf", entries), "points.pdf")

    texts = [block.text for block in document.blocks]
    assert any("Midterm 150" in text for text in texts)
    assert not any(".." in text for text in texts)


def test_long_runs_of_spaces_and_dots_clean_in_one_pass() -> None:
    """A hostile line: a leader rule searched from every position of a run re-scans it (a
    line of 20,000 spaces took 23 s, 32,000 dots 190 s); these finish at once."""
    assert clean_text("a" + " " * 200_000 + "b") == "a b"
    assert clean_text("." * 200_000 + "x") == "x"
    assert contents_page("." * 200_000 + "x") is None
    assert contents_page("Grading" + " ." * 100_000 + " 12") == 12


def test_images_are_collected_with_their_page_when_asked(tmp_path: Path) -> None:
    picture = tmp_path / "chart.png"
    Image.new("RGB", (96, 80), "navy").save(picture)
    icon = tmp_path / "icon.png"
    Image.new("RGB", (16, 16), "red").save(icon)
    pdf = FPDF()
    pdf.add_page()
    pdf.set_font("helvetica", size=12)
    pdf.cell(text="A chart of last year's grades follows.")
    pdf.add_page()
    pdf.image(str(picture), x=20, y=20, w=60)
    pdf.image(str(icon), x=20, y=120, w=5)
    path = _write(pdf, tmp_path / "grades.pdf")

    assert load_pdf(path, "grades.pdf").images == []
    images = load_pdf(path, "grades.pdf", with_images=True).images

    assert len(images) == 1  # the icon is too small to caption
    assert images[0].page == 2
    assert images[0].media_type in ("image/png", "image/jpeg")
    with Image.open(io.BytesIO(images[0].data)) as decoded:
        assert decoded.size == (96, 80)


# Errors


def test_garbage_bytes_are_a_corrupt_file(tmp_path: Path) -> None:
    path = tmp_path / "notes.pdf"
    path.write_bytes(b"this is not a PDF at all\n" * 20)

    with pytest.raises(CorruptFileError, match=r"notes\.pdf"):
        load_pdf(path, "notes.pdf")


def test_a_truncated_pdf_is_a_corrupt_file(tmp_path: Path) -> None:
    data = LECTURE_1.read_bytes()
    path = tmp_path / "lecture.pdf"
    path.write_bytes(data[: len(data) // 2])

    with pytest.raises(CorruptFileError):
        load_pdf(path, "lecture.pdf")


def test_a_password_protected_pdf_is_an_encrypted_file(tmp_path: Path) -> None:
    pdf = FPDF()
    pdf.add_page()
    pdf.set_font("helvetica", size=12)
    pdf.cell(text="Exam answers")
    pdf.set_encryption(owner_password="owner-secret", user_password="user-secret")
    path = _write(pdf, tmp_path / "answers.pdf")

    with pytest.raises(EncryptedFileError, match=r"answers\.pdf is password-protected"):
        load_pdf(path, "answers.pdf")


def test_a_pdf_with_only_an_owner_password_opens(tmp_path: Path) -> None:
    pdf = FPDF()
    pdf.add_page()
    pdf.set_font("helvetica", size=12)
    pdf.cell(text="Printing is restricted, reading is not.")
    pdf.set_encryption(owner_password="owner-secret")
    path = _write(pdf, tmp_path / "restricted.pdf")

    document = load_pdf(path, "restricted.pdf")

    assert document.blocks[0].text == "Printing is restricted, reading is not."


def test_a_pdf_without_text_is_empty_and_the_message_mentions_ocr(tmp_path: Path) -> None:
    pdf = FPDF()
    pdf.add_page()
    pdf.rect(20, 20, 100, 60, style="F")
    path = _write(pdf, tmp_path / "scan.pdf")

    with pytest.raises(EmptyFileError, match="OCR"):
        load_pdf(path, "scan.pdf")


# The shared dataset


def test_every_syllabus_of_syllabusqa_dev_loads_with_text() -> None:
    if not SYLLABI.is_dir():
        pytest.skip(f"{SYLLABI} is absent (a fresh clone has no ../shared)")
    paths = sorted(SYLLABI.glob("*/*.pdf"))
    assert paths

    for path in paths:
        document = load_pdf(path, path.name)

        assert document.blocks, path.name
        assert all(block.text.strip() for block in document.blocks), path.name
        assert all(1 <= (block.page or 0) <= document.page_count for block in document.blocks)
