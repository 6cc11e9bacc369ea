"""Passages cut into quotable units: table rows with their headers, whole list items, whole
sentences with PDF line wraps joined, headings never a unit of their own."""

from __future__ import annotations

from core.answering.quote_units import MAX_UNIT_CHARS, UnitKind, join_wrapped, passage_units


def shown(text: str) -> list[str]:
    return [unit.shown for unit in passage_units(0, text)]


def test_a_table_row_is_quoted_with_its_column_headers() -> None:
    table = (
        "| Component | Weight | Details |\n"
        "| --- | --- | --- |\n"
        "| Homework | 20% | 10 weekly sets |\n"
        "| Final exam | 40% | Monday 2026-12-14, Hall A |"
    )
    units = passage_units(0, table)
    assert [unit.kind for unit in units] == [UnitKind.ROW, UnitKind.ROW]
    assert units[1].shown == (
        "Component: Final exam; Weight: 40%; Details: Monday 2026-12-14, Hall A"
    )


def test_a_list_item_wrapped_over_lines_is_one_unit_with_all_its_sentences() -> None:
    items = (
        "- Late homework loses 10% of its score per day (each started\n"
        "24-hour period counts as a day). Weekends count too.\n"
        "- Homework is accepted at most 3 days late."
    )
    assert shown(items) == [
        "Late homework loses 10% of its score per day (each started 24-hour period counts "
        "as a day). Weekends count too.",
        "Homework is accepted at most 3 days late.",
    ]


def test_a_sentence_wrapped_at_pdf_line_breaks_is_joined_before_splitting() -> None:
    paragraph = (
        "The final exam is cumulative and will be held on December 14 in\n"
        "Hall A from 9 to 12. Bring a photo ID and a calculator; phones are\n"
        "not allowed."
    )
    assert shown(paragraph) == [
        "The final exam is cumulative and will be held on December 14 in Hall A from 9 to 12.",
        "Bring a photo ID and a calculator; phones are not allowed.",
    ]


def test_short_lines_that_end_there_stay_apart() -> None:
    rows = ["Homework 20%", "Quizzes 10%", "Final exam 40%"]
    assert join_wrapped(rows) == rows


def test_a_heading_is_never_a_unit_but_is_shown_with_what_follows_it() -> None:
    text = "Section 4: Office Hours\n\nTuesday and Thursday, 14:00-15:30, Room B214."
    [unit] = passage_units(0, text)
    assert unit.text == "Tuesday and Thursday, 14:00-15:30, Room B214."
    assert unit.shown == "Section 4: Office Hours: Tuesday and Thursday, 14:00-15:30, Room B214."


def test_a_heading_with_nothing_under_it_is_left_out() -> None:
    assert shown("The course has two exams.\n\n## Office Hours") == ["The course has two exams."]


def test_a_run_of_text_without_end_marks_is_capped_at_a_word() -> None:
    [unit] = passage_units(0, " ".join(["word"] * 400))
    assert len(unit.text) <= MAX_UNIT_CHARS + 2
    assert unit.text.endswith("word …")


def test_inline_code_marks_are_not_quoted_but_the_source_keeps_them() -> None:
    [unit] = passage_units(0, "Chain rule: `f'(x) = 3x/sqrt(3x^2 + 4)` at every x.")
    assert unit.text == "Chain rule: f'(x) = 3x/sqrt(3x^2 + 4) at every x."
    assert unit.source == "Chain rule: `f'(x) = 3x/sqrt(3x^2 + 4)` at every x."


def test_a_key_value_table_reads_as_its_pairs_its_first_row_too() -> None:
    """Markdown makes a key/value table's first pair its header ("| Syllabus ID: | 13339 |"):
    quoted with it, every row read "Syllabus ID:: Pre-Requisite:; 13339: AIL303m"."""
    table = (
        "|  Syllabus ID: | 13339 |   |\n"
        "|--------------:|-------|---|\n"
        "|  Syllabus English: |  |   |\n"
        "| Pre-Requisite: | AIL303m |   |"
    )
    units = passage_units(0, table, "General information")
    assert [(u.kind, u.text) for u in units] == [
        (UnitKind.ROW, "Syllabus ID: 13339"),
        (UnitKind.ROW, "Pre-Requisite: AIL303m"),  # a label without a value says nothing
    ]
    assert units[1].source == "| Pre-Requisite: | AIL303m |   |"


def test_key_value_and_database_style_rows_read_as_words() -> None:
    text = (
        "| Key | Value |\n|---|---|\n| Semester | 5 |\n\n"
        "| Subject Code: | DBI202 |\n|---|---|\n| NoCredit: | 3 |\n\n"
        "| Category | Weight | MinAvgMarkToPass |\n|---|---|---|\n| Final exam | 30.0% | 4 |"
    )

    shown = [unit.shown for unit in passage_units(0, text)]

    assert shown == [
        "Semester: 5",
        "Subject Code: DBI202",
        "No Credit: 3",
        "Category: Final exam; Weight: 30%; Min Avg Mark To Pass: 4",
    ]


def test_a_table_with_an_empty_header_row_quotes_its_first_row_as_a_row() -> None:
    """A headerless table (a PDF grade scale) is rendered under a row of empty cells: that
    row is its header, not a Markdown rule, so "A | 93%" is not taken for column names."""
    assert shown("|  |\n| A grade | 93% |\n| B grade | 83% |") == ["A grade; 93%", "B grade; 83%"]
    assert shown("| Grade | Cut-off |\n|:--|--:|\n| A | 93% |") == ["Grade: A; Cut-off: 93%"]
