"""The words every surface shares: citation labels short enough never to be cut, one line
per ingested file plus a summary, and the progress line of an ingestion."""

from __future__ import annotations

import pytest

from bot.common.wording import (
    MAX_LABEL_CHARS,
    QUOTED_HEADING,
    answer_preface,
    citation_line,
    citation_lines,
    file_result_line,
    ingest_report_lines,
    ingest_summary,
    plural,
    progress_text,
    shown_name,
    source_line,
)
from core.replies import Answer, Citation, SourceEntry
from ingestion.pipeline import FileResult, FileStatus, IngestProgress, IngestReport


def test_citation_line_numbers_the_label() -> None:
    citation = Citation("lecture-02.pdf", page=3, section="Product rule")
    assert citation_line(2, citation) == "[2] lecture-02.pdf, p. 3, Product rule"
    notes = Citation("my-notes.md", private=True)
    assert citation_line(1, notes) == "[1] my-notes.md (your notes)"


@pytest.mark.parametrize("extra", [0, 1, 50, 5000])
def test_citation_label_is_capped_at_max_label_chars(extra: int) -> None:
    section = "S" * (MAX_LABEL_CHARS - len("a.pdf, ") + extra)
    citation = Citation("a.pdf", section=section)
    label = citation_line(1, citation).removeprefix("[1] ")

    assert len(label) == MAX_LABEL_CHARS
    if extra == 0:
        assert label == citation.label()
    else:
        assert label.endswith("S…")
        assert label[:-1] == citation.label()[: MAX_LABEL_CHARS - 1]


def test_citation_lines_are_numbered_from_one_in_order() -> None:
    answer = Answer("text", citations=(Citation("a.md"), Citation("b.pdf", page=1)))
    assert citation_lines(answer) == ["[1] a.md", "[2] b.pdf, p. 1"]
    assert citation_lines(Answer("no sources")) == []


def test_answer_preface_explains_a_note_and_quoted_material() -> None:
    assert answer_preface(Answer("x")) == []
    quoted = Answer("x", quoted=True, note="the model did not answer in time")
    assert answer_preface(quoted) == ["(the model did not answer in time)", QUOTED_HEADING]
    # Nothing is quoted from the material when it does not cover the question.
    assert answer_preface(Answer("x", quoted=True, grounded=False)) == []


@pytest.mark.parametrize(
    ("result", "line"),
    [
        (FileResult("a.pdf", FileStatus.ADDED, 12, 4), "✓ a.pdf: added, 12 chunks, 4 pages"),
        (FileResult("b.md", FileStatus.REPLACED, 3), "✓ b.md: replaced, 3 chunks"),
        (FileResult("c.md", FileStatus.UNCHANGED), "= c.md: unchanged"),
        (
            FileResult("d.exe", FileStatus.FAILED, error="'.exe' is not a supported type"),
            "✗ d.exe: '.exe' is not a supported type",
        ),
    ],
)
def test_file_result_line(result: FileResult, line: str) -> None:
    assert file_result_line(result) == line


def test_ingest_report_lists_each_file_then_the_summary() -> None:
    report = IngestReport(
        [
            FileResult("a.pdf", FileStatus.ADDED, 12, 4),
            FileResult("d.exe", FileStatus.FAILED, error="unsupported"),
            FileResult("c.md", FileStatus.UNCHANGED),
        ]
    )
    assert ingest_report_lines(report) == [
        "✓ a.pdf: added, 12 chunks, 4 pages",
        "✗ d.exe: unsupported",
        "= c.md: unchanged",
        "2 of 3 files ingested; 1 failed (the index is unchanged for them)",
    ]


def test_ingest_summary_without_failures_says_nothing_about_them() -> None:
    report = IngestReport([FileResult("a.md", FileStatus.ADDED, 1)])
    assert ingest_summary(report) == "1 of 1 file ingested"


def test_progress_text_names_the_file_being_worked_on() -> None:
    progress = IngestProgress(1, 3, pages=4, chunks=17, current="b.pdf", stage="embedding")
    assert progress_text(progress) == (
        "Ingesting file 2 of 3: b.pdf (embedding) — 4 pages, 17 chunks so far"
    )


def test_progress_text_never_counts_past_the_last_file() -> None:
    done = IngestProgress(3, 3, pages=9, chunks=40, current="c.pdf", stage="added")
    assert progress_text(done).startswith("Ingesting file 3 of 3: c.pdf (added)")
    bare = IngestProgress(0, 2, pages=0, chunks=0)
    assert progress_text(bare) == "Ingesting file 1 of 2 — 0 pages, 0 chunks so far"


def test_counts_agree_with_their_nouns() -> None:
    assert [plural(n, "chunk") for n in (0, 1, 2)] == ["0 chunks", "1 chunk", "2 chunks"]
    assert file_result_line(FileResult("a.pdf", FileStatus.ADDED, 1, 1)) == (
        "✓ a.pdf: added, 1 chunk, 1 page"
    )
    assert source_line(SourceEntry("d", "n.md", "notes", 1)) == "n.md (notes, 1 chunk)"
    one = IngestProgress(0, 1, pages=1, chunks=1, current="a.pdf")
    assert progress_text(one) == "Ingesting file 1 of 1: a.pdf — 1 page, 1 chunk so far"


def test_control_characters_in_file_names_are_escaped_and_the_rest_kept() -> None:
    assert shown_name("week\n1.md") == "week\\n1.md"
    assert shown_name("a\tb\x1b[31m\u2028c\u202egpj.exe") == "a\\tb\\x1b[31m\\u2028c\\u202egpj.exe"
    assert shown_name("Übung — 数学 🙂.pdf") == "Übung — 数学 🙂.pdf"


@pytest.mark.parametrize(
    "line",
    [
        source_line(SourceEntry("d", "evil\nname.md", "notes", 2)),
        file_result_line(FileResult("evil\nname.md", FileStatus.ADDED, 2)),
        file_result_line(FileResult("evil\nname.md", FileStatus.UNCHANGED, 2)),
        file_result_line(FileResult("evil\rname.md", FileStatus.FAILED, error="damaged")),
        progress_text(IngestProgress(0, 1, 0, 0, current="evil\nname.md")),
        citation_line(1, Citation(file_name="evil\nname.md", page=2)),
    ],
)
def test_a_file_name_with_a_newline_stays_on_one_line(line: str) -> None:
    assert "\n" not in line and "\r" not in line
    assert "evil\\" in line
