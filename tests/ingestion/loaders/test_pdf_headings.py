"""Headings in PDFs written here with fpdf2: told by their type, numbering and the outline,
never by a table row, a name or a date set in bold; every chunk named by the heading above
its own first line."""

from __future__ import annotations

from pathlib import Path

import pytest
from fpdf import FPDF

from core.replies import Citation
from ingestion.chunking import chunk_document
from ingestion.loaders.pdf import load_pdf
from ingestion.loaders.pdf_headings import (
    Candidate,
    HeadingRules,
    HeadingTrail,
    LineStyle,
    refused,
)

BODY = (
    "Students write short memos on the budgets of federal agencies, and each memo is read "
    "by two classmates before it is graded. Feedback is due within a week of the memo. "
)
GRADED = (
    "Each assignment is graded on a ten point scale, and the lowest two scores are dropped "
    "before the average is taken. Scores are posted on the course site within a week. "
)


def _words(text: str) -> int:
    return len(text.split())


class _Writer:
    """A portrait document: headings, body paragraphs, optional outline entries."""

    def __init__(self) -> None:
        self.pdf = FPDF(format="A4")
        self.pdf.set_auto_page_break(True, margin=20)
        self.pdf.add_page()

    def heading(self, text: str, size: int = 16, style: str = "B", level: int | None = None):
        self.pdf.ln(5)
        if level is not None:  # an outline (bookmark) entry pointing here
            self.pdf.start_section(text, level=level)
        self.pdf.set_font("helvetica", style, size)
        self.pdf.cell(0, size * 0.5, text, new_x="LMARGIN", new_y="NEXT")
        self.pdf.ln(2)

    def paragraph(self, text: str) -> None:
        self.pdf.set_font("helvetica", "", 11)
        self.pdf.multi_cell(0, 5, text, new_x="LMARGIN", new_y="NEXT")
        self.pdf.ln(4)

    def bold_line(self, text: str) -> None:
        """A short bold line with space above: the look of a heading."""
        self.pdf.ln(5)
        self.pdf.set_font("helvetica", "B", 11)
        self.pdf.cell(0, 6, text, new_x="LMARGIN", new_y="NEXT")
        self.pdf.ln(2)

    def line(self, text: str, size: int = 11, style: str = "", space: int = 5, **cell) -> None:
        """One line in the given type, `space` points under the text above."""
        self.pdf.ln(space)
        self.pdf.set_font("helvetica", style, size)
        self.pdf.cell(0, size * 0.5, text, new_x="LMARGIN", new_y="NEXT", **cell)

    def row(self, *cells: str) -> None:
        """A bold table row: cells far apart on one line."""
        self.pdf.ln(5)
        self.pdf.set_font("helvetica", "B", 11)
        for cell in cells:
            self.pdf.cell(45, 6, cell)
        self.pdf.ln(8)

    def save(self, path: Path) -> Path:
        path.write_bytes(bytes(self.pdf.output()))
        return path


def test_a_larger_bold_heading_labels_the_chunks_below_it_on_the_next_page(
    tmp_path: Path,
) -> None:
    writer = _Writer()
    writer.heading("Course Overview")
    writer.paragraph(BODY * 3)
    writer.paragraph(BODY * 3)
    writer.heading("Assignments and Grading")
    for _ in range(8):  # runs well onto page 2
        writer.paragraph(GRADED * 3)
    document = load_pdf(writer.save(tmp_path / "syllabus.pdf"), "syllabus.pdf")

    chunks = chunk_document(document, "c", _words, 120)
    assert {chunk.page for chunk in chunks} == {1, 2}
    assert chunks[0].section == "Course Overview"
    # chunks of page 1 that start under the second heading are named by it, not by the
    # heading their page starts in
    graded = [chunk for chunk in chunks if chunk.text.startswith("Each assignment")]
    assert any(chunk.page == 1 for chunk in graded)
    assert {chunk.section for chunk in graded} == {"Assignments and Grading"}
    # and the heading goes on naming the text on the next page, which has none of its own
    assert {chunk.section for chunk in chunks if chunk.page == 2} == {"Assignments and Grading"}


@pytest.mark.parametrize(
    "line",
    [
        "5/15 13 Ch. 13 - Tax Credits",  # a schedule row
        "Monday, February 7",  # a date
        "February 21: Budget Preparation",  # a dated schedule entry
        "<PROF_FULL_NAME>",  # a redacted name
        "Professor Jane Smith",  # a name with its title
        "Jane Smith, Ph.D.",  # a name with its degree
        "Office: 745 Lederle Tower",  # a field and its value
        "Midterm Exams 600",  # a row of a grading table
        "Quizzes 15%",
        "35% Laboratory",  # a grading row with its weight first
        "Table of Contents",
        "206A Chenoweth",  # a room and its building
        "(she/her)",  # an aside
        "Cobb & McClain (2006)",  # a reference
        "Introduction due to instructor, Thursday",  # a schedule entry
    ],
)
def test_a_bold_line_that_is_a_row_a_name_or_a_date_is_no_heading(
    tmp_path: Path, line: str
) -> None:
    writer = _Writer()
    writer.paragraph("Federal Budgeting, Spring 2023")
    writer.heading("Course Schedule")
    writer.paragraph(BODY)
    writer.bold_line(line)
    writer.paragraph("Read the chapter before class and bring your questions.")
    document = load_pdf(writer.save(tmp_path / "schedule.pdf"), "schedule.pdf")

    after = next(block for block in document.blocks if "Read the" in block.text)
    assert after.section == ("Course Schedule",)


def test_the_same_rules_keep_a_real_bold_heading(tmp_path: Path) -> None:
    """The other side of the refusals above: a short bold title-case line standing apart."""
    writer = _Writer()
    writer.paragraph("Federal Budgeting, Spring 2023")
    writer.heading("Course Schedule")
    writer.paragraph(BODY)
    writer.bold_line("Attendance Policy")
    writer.paragraph("Read the chapter before class and bring your questions.")
    writer.heading("Resources")
    writer.paragraph("The library holds two copies of the textbook.")
    document = load_pdf(writer.save(tmp_path / "policy.pdf"), "policy.pdf")

    after = next(block for block in document.blocks if "Read the" in block.text)
    assert after.section == ("Course Schedule", "Attendance Policy")
    library = next(block for block in document.blocks if "library" in block.text)
    assert library.section == ("Resources",)


def test_a_type_that_heads_one_section_only_is_no_parent(tmp_path: Path) -> None:
    """A larger "Instructor:" once at the top does not hold the syllabus's sections."""
    writer = _Writer()
    writer.paragraph("Federal Budgeting, Spring 2023")
    writer.heading("Instructor", size=14)
    writer.paragraph("Office hours are on Tuesdays after class.")
    writer.bold_line("Class Schedule")
    writer.paragraph("Read the chapter before class and bring your questions.")
    writer.bold_line("Grading")
    writer.paragraph("Memos count for thirty percent.")
    document = load_pdf(writer.save(tmp_path / "instructor.pdf"), "instructor.pdf")

    after = next(block for block in document.blocks if "Read the" in block.text)
    assert after.section == ("Class Schedule",)


def test_a_table_row_with_cells_apart_is_no_heading(tmp_path: Path) -> None:
    writer = _Writer()
    writer.paragraph("Federal Budgeting, Spring 2023")
    writer.heading("Grading")
    writer.paragraph(BODY)
    writer.row("Week", "Topic", "Reading", "Due")
    writer.paragraph("Read the chapter before class and bring your questions.")
    document = load_pdf(writer.save(tmp_path / "table.pdf"), "table.pdf")

    after = next(block for block in document.blocks if "Read the" in block.text)
    assert after.section == ("Grading",)


def test_the_outline_gives_the_hierarchy_when_the_type_does_not(tmp_path: Path) -> None:
    """All headings in one bold type: only the bookmarks say which one is under which."""
    writer = _Writer()
    writer.heading("Section 9: Learning Goals", size=12, level=0)
    writer.paragraph(BODY)
    writer.heading("Section 10: Academic Assessment", size=12, level=0)
    writer.paragraph(BODY)
    writer.heading("Grading Scale", size=12, level=1)
    writer.paragraph("An A needs 93 points or more; an A- needs 90.")
    writer.heading("Late Work", size=12, level=1)
    writer.paragraph("Late work loses ten percent a day.")
    writer.heading("Section 11: Time Commitment", size=12, level=0)
    writer.paragraph("Plan on nine to twelve hours a week.")
    document = load_pdf(writer.save(tmp_path / "outlined.pdf"), "outlined.pdf")

    sections = {block.text.split()[0]: block.section for block in document.blocks}
    assert sections["An"] == ("Section 10: Academic Assessment", "Grading Scale")
    assert sections["Late"] == ("Section 10: Academic Assessment", "Late Work")
    assert sections["Plan"] == ("Section 11: Time Commitment",)


def test_a_larger_heading_holds_the_bold_ones_under_it() -> None:
    rules = HeadingRules(LineStyle(11.0, False))
    trail = HeadingTrail()
    trail.text()

    def heading(text: str, style: LineStyle) -> tuple[str, ...]:
        found = rules.heading(Candidate(text, 1, style, gap_before=True, in_row=False))
        assert found is not None, text
        return trail.enter(found)

    assert heading("Course Policies", LineStyle(16.0, True)) == ("Course Policies",)
    assert heading("Late Work", LineStyle(11.0, True)) == ("Course Policies", "Late Work")
    assert heading("Attendance", LineStyle(11.0, True)) == ("Course Policies", "Attendance")
    assert heading("Resources", LineStyle(16.0, True)) == ("Resources",)


def test_the_title_block_names_the_text_under_it_but_no_section() -> None:
    rules = HeadingRules(LineStyle(11.0, False))
    trail = HeadingTrail()
    title = rules.heading(Candidate("Federal Budgeting", 1, LineStyle(20.0, True), True, False))
    assert title is not None
    assert trail.enter(title) == ("Federal Budgeting",)
    trail.text()
    overview = rules.heading(Candidate("Course Overview", 1, LineStyle(11.0, True), True, False))
    assert overview is not None
    assert trail.enter(overview) == ("Course Overview",)


def test_refusals_leave_numbered_sections_alone() -> None:
    assert not refused("Section 10: Academic Assessment (Grading)")
    assert not refused("Food Intake Analysis (6%)")
    assert not refused("CHEM 122")
    assert not refused("Federal Budgeting Process - Spring 2023")
    assert refused("Week 2: September 12, 14")
    assert refused("<PROF_FULL_NAME")  # a placeholder cut by a line break
    assert refused('Chinaman in New York" (1870)')  # a piece of a quoted title
    assert refused("Page")
    assert not refused("1 Course Overview")


def test_a_citation_shows_the_last_one_or_two_levels() -> None:
    deep = Citation("syllabus.pdf", 4, "Course Syllabus > Section 10: Assessment > Grading")
    assert deep.label() == "syllabus.pdf, p. 4, Section 10: Assessment › Grading"
    assert Citation("syllabus.pdf", 2, "Grading").label() == "syllabus.pdf, p. 2, Grading"
    assert Citation("syllabus.pdf", 2).label() == "syllabus.pdf, p. 2"


def test_a_title_case_line_in_the_body_type_with_space_above_heads_a_section(
    tmp_path: Path,
) -> None:
    """Many syllabi set their headings in the body's own type ("Required Texts:")."""
    writer = _Writer()
    writer.paragraph("Statistical Modeling, Fall 2022")
    writer.heading("Course Overview", size=11)
    writer.paragraph(BODY)
    writer.heading("Required Texts:", size=11, style="")
    writer.paragraph("Memos count for thirty percent.")
    writer.heading("Course Grading", size=11)
    writer.paragraph("The final counts for forty percent.")
    document = load_pdf(writer.save(tmp_path / "plain.pdf"), "plain.pdf")

    memos = next(block for block in document.blocks if "Memos" in block.text)
    assert memos.section == ("Course Overview", "Required Texts")


def _section_of(document, start: str) -> tuple[str, ...]:
    return next(block for block in document.blocks if block.text.startswith(start)).section


def test_a_numbered_section_titled_as_a_question_heads_its_section(tmp_path: Path) -> None:
    """ "Section 9: What will you learn?" in the body's type: its number makes it a heading
    whatever its casing."""
    writer = _Writer()
    writer.paragraph("Chemistry 122, Spring 2023")
    writer.heading("Section 8: Required Materials", size=11, style="")
    writer.paragraph(BODY)
    writer.heading("Section 9: What will you learn in this course?", size=11, style="")
    writer.paragraph("You will learn to build a logical argument.")
    document = load_pdf(writer.save(tmp_path / "numbered.pdf"), "numbered.pdf")

    assert _section_of(document, "You will") == ("Section 9: What will you learn in this course?",)


def test_a_slightly_larger_sub_heading_under_a_bold_heading_has_its_own_level(
    tmp_path: Path,
) -> None:
    """A bold 12-point "Course policies:" over a regular 12-point "Teams:" over 11-point text:
    the space under the first heading does not hide the second."""
    writer = _Writer()
    writer.paragraph(BODY)
    writer.line("Course recommendations:", size=12, style="B", space=6)
    writer.pdf.ln(2)
    writer.paragraph(BODY)
    writer.line("Course policies:", size=12, style="B", space=6)
    writer.line("Teams:", size=12, space=6)
    writer.pdf.ln(2)
    writer.paragraph("Your lab grade is based on team submissions.")
    writer.line("Lecture attendance", size=12, space=6)
    writer.pdf.ln(2)
    writer.paragraph("Lecture attendance is not required.")
    document = load_pdf(writer.save(tmp_path / "teams.pdf"), "teams.pdf")

    assert _section_of(document, "Your lab") == ("Course policies", "Teams")
    assert _section_of(document, "Lecture attendance is") == (
        "Course policies",
        "Lecture attendance",
    )


def test_a_label_straight_under_a_table_heads_the_text_below_it(tmp_path: Path) -> None:
    """A grading chart set in tab stops, then "Exams:" with no space above: the end of the
    rows sets it apart."""
    writer = _Writer()
    writer.paragraph("Taxation 371, Spring 2023")
    writer.heading("TEXTBOOK:", size=11)
    writer.paragraph(BODY)
    writer.heading("GRADING:", size=11)
    writer.paragraph("Your grade is weighted as follows:")
    writer.pdf.set_font("helvetica", "", 11)
    for item, weight in (("Exam 1", "15%"), ("Exam 2", "15%"), ("Homework", "10%")):
        writer.pdf.cell(60, 6, item)
        writer.pdf.cell(30, 6, weight, new_x="LMARGIN", new_y="NEXT")
    writer.pdf.cell(0, 6, "Exams:", new_x="LMARGIN", new_y="NEXT")
    writer.pdf.multi_cell(0, 6, "The exams will be open book. " * 4, new_x="LMARGIN")
    document = load_pdf(writer.save(tmp_path / "chart.pdf"), "chart.pdf")

    assert _section_of(document, "The exams") == ("GRADING", "Exams")


def test_a_larger_question_straight_under_a_paragraph_is_a_heading(tmp_path: Path) -> None:
    writer = _Writer()
    writer.heading("Class Sessions")
    writer.paragraph(BODY * 3)
    writer.pdf.set_font("helvetica", "", 11)
    writer.pdf.multi_cell(0, 5, BODY * 2, new_x="LMARGIN", new_y="NEXT")  # no space under
    writer.line("What about lab?", size=16, space=0)
    writer.pdf.ln(3)
    writer.paragraph("This course has a laboratory component that meets separately.")
    document = load_pdf(writer.save(tmp_path / "question.pdf"), "question.pdf")

    assert _section_of(document, "This course") == ("What about lab?",)


def test_a_short_label_in_the_body_type_heads_a_section(tmp_path: Path) -> None:
    writer = _Writer()
    writer.heading("Grading:", size=11, style="")
    writer.paragraph(BODY)
    writer.heading("Academic honesty:", size=11, style="")
    writer.paragraph("Since students are expected to be familiar with this policy.")
    writer.heading("For example:", size=11, style="")  # opens a list: no label
    writer.paragraph("A copied answer.")
    document = load_pdf(writer.save(tmp_path / "label.pdf"), "label.pdf")

    assert _section_of(document, "Since") == ("Academic honesty",)
    assert _section_of(document, "A copied") == ("Academic honesty",)


def test_a_bold_heading_in_the_top_margin_of_a_later_page_is_read(tmp_path: Path) -> None:
    writer = _Writer()
    writer.heading("LEARNING OUTCOMES", size=11)
    writer.paragraph(BODY * 3)
    writer.pdf.add_page()
    writer.pdf.set_y(12)  # in the top 8% of the page
    writer.pdf.set_font("helvetica", "B", 11)
    writer.pdf.cell(0, 5, "COURSE TOPICS", new_x="LMARGIN", new_y="NEXT")
    writer.pdf.ln(4)
    writer.paragraph("1. Separable first order equations")
    document = load_pdf(writer.save(tmp_path / "margin.pdf"), "margin.pdf")

    assert _section_of(document, "1. Separable") == ("COURSE TOPICS",)


def test_an_italic_line_standing_apart_heads_a_section(tmp_path: Path) -> None:
    writer = _Writer()
    writer.paragraph("Statistics 568, Fall 2022")
    writer.heading("GRADES", size=11)
    writer.paragraph(BODY * 3)
    writer.line("Converting group grades to individual grades", style="I")
    writer.pdf.ln(1)
    writer.paragraph("Group homework grades are closely tied to individual grades. " * 3)
    document = load_pdf(writer.save(tmp_path / "italic.pdf"), "italic.pdf")

    assert _section_of(document, "Group homework")[-1] == (
        "Converting group grades to individual grades"
    )


def test_a_centred_heading_and_a_left_one_under_it_are_two_headings(tmp_path: Path) -> None:
    """A bold line on the next line is a wrapped heading only when it lines up with it."""
    writer = _Writer()
    writer.paragraph(BODY)
    writer.line("Mapping Between Outcomes and Activities", style="B")
    writer.pdf.ln(2)
    writer.paragraph(BODY)
    writer.line("Course Policies", style="B", align="C")
    writer.line("Attendance Policy", style="B", space=0)
    writer.pdf.ln(2)
    writer.paragraph("You can miss one class meeting with no penalty.")
    document = load_pdf(writer.save(tmp_path / "centred.pdf"), "centred.pdf")

    assert _section_of(document, "Course Policies") == ("Course Policies",)
    assert _section_of(document, "You can") == ("Attendance Policy",)


def test_lines_a_point_larger_set_one_under_the_other_are_a_cell_not_headings(
    tmp_path: Path,
) -> None:
    """A schedule's cells set a size up from the body: "These Cells / Intentionally Left
    Blank" under a bold cell, "TIME TBD / LOCATION TBD" under a paragraph. A line set apart
    only a little heads a section alone, never with more of its type straight under it."""
    writer = _Writer()
    writer.heading("Course Schedule")
    writer.paragraph(BODY)
    writer.line("Lab Practical Exam", size=13, style="B")
    writer.line("These Cells", size=13, space=4)
    writer.line("Intentionally Left Blank", size=13, space=0)
    writer.pdf.ln(3)
    writer.paragraph("Complete the first four labs before the practical.")
    writer.line("TIME TBD", size=13, space=3)
    writer.line("LOCATION TBD", size=13, space=0)
    writer.pdf.ln(3)
    writer.paragraph("Upload your final poster by 5pm on poster conference day.")
    document = load_pdf(writer.save(tmp_path / "schedule.pdf"), "schedule.pdf")

    for text in ("These Cells", "Complete the first", "TIME TBD", "Upload your final"):
        assert _section_of(document, text)[-1] == "Lab Practical Exam", text


def test_italic_lines_one_under_the_other_are_a_note_not_headings(tmp_path: Path) -> None:
    writer = _Writer()
    writer.paragraph("Statistics 568, Fall 2022")
    writer.heading("GRADES", size=11)
    writer.paragraph(BODY * 2)
    writer.line("Grades are posted weekly", style="I")
    writer.line("Scores are final after review", style="I", space=0)
    writer.pdf.ln(2)
    writer.paragraph(GRADED)
    document = load_pdf(writer.save(tmp_path / "note.pdf"), "note.pdf")

    assert _section_of(document, "Grades are posted") == ("GRADES",)
    assert _section_of(document, "Each assignment") == ("GRADES",)


def test_a_faint_sub_heading_straight_under_a_bold_one_still_heads_its_section(
    tmp_path: Path,
) -> None:
    """An italic "Health and Wellness" with no space under a bold "Campus Resources:"."""
    writer = _Writer()
    writer.paragraph(BODY)
    writer.line("Campus Resources:", style="B")
    writer.line("Health and Wellness", style="I", space=0)
    writer.pdf.ln(2)
    writer.paragraph("If you or a friend is in distress, please contact the wellness team.")
    document = load_pdf(writer.save(tmp_path / "resources.pdf"), "resources.pdf")

    assert _section_of(document, "If you or")[-1] == "Health and Wellness"
