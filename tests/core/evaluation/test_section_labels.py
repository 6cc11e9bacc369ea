"""section_label_accuracy's rules: how headings compare, which levels of a label may name
one, which passage holds a span, and why a miss happened."""

from __future__ import annotations

from dataclasses import dataclass

from core.evaluation.section_labels import (
    MissCause,
    SectionLabelCase,
    SectionLabelResult,
    block_label_accuracy,
    heading_key,
    holder,
    judge,
    label_names,
    section_label_accuracy,
)


@dataclass(frozen=True, slots=True)
class Piece:
    text: str
    page: int | None


def case(heading: str, page: int = 1, parent: str | None = None) -> SectionLabelCase:
    return SectionLabelCase("q", 0, "syllabus.pdf", page, heading, parent)


def test_heading_key_ignores_case_punctuation_and_numbering() -> None:
    assert heading_key("Section 10: Grading Policy") == "grading policy"
    assert heading_key("10. GRADING POLICY:") == "grading policy"
    assert heading_key("II. Quizzes") == "quizzes"
    assert heading_key("4) Technology") == "technology"
    assert heading_key("1.2  Readings") == "readings"


def test_heading_key_keeps_words_that_only_look_like_numbering() -> None:
    assert heading_key("I have a question") == "i have a question"
    assert heading_key("Q: What if class is cancelled?") == "q what if class is cancelled"
    assert heading_key("2023") == "2023"


def test_a_label_names_the_heading_at_its_last_or_second_to_last_level() -> None:
    assert label_names("Course Policies > Attendance", "Attendance")
    assert label_names("Course Policies > Attendance", "COURSE POLICIES:")
    assert label_names("Syllabus > Grading > Exams", "Section 3: Grading")
    assert not label_names("Syllabus > Grading > Exams", "Syllabus")
    assert not label_names("Grading Scheme", "Grading")
    assert not label_names("", "Grading")


def test_holder_prefers_the_span_page_and_the_passage_where_the_span_starts() -> None:
    span = "Late work loses ten percent a day unless you ask before the deadline"
    passages = [
        Piece(span, 1),  # the same words on another page
        Piece("Grading. " + span, 2),
        Piece("ten percent a day unless you ask before the deadline", 2),
    ]
    assert holder(span, passages, 2) == 1
    assert holder(span, passages, None) == 0


def test_holder_takes_the_passage_holding_the_start_of_a_span_that_straddles_two() -> None:
    span = "Exams are open book and open notes but phones stay in your bag all the time"
    passages = [
        Piece("Introduction to the course", 1),
        Piece("Exams are open book and open notes", 1),
        Piece("but phones stay in your bag all the time", 1),
    ]
    assert holder(span, passages, 1) == 1
    assert holder("words nowhere to be seen", passages, 1) is None


SPAN = "Homework is due every Thursday before class"


def test_judge_hits_when_the_chunk_label_names_the_heading() -> None:
    chunks = [Piece("Homework policies " + SPAN, 1)]
    result = judge(case("Homework policies"), SPAN, chunks, ["Homework policies"], [], [])
    assert result == SectionLabelResult(case("Homework policies"), "Homework policies", True)


def test_judge_tells_a_chunk_labelled_by_its_page_from_an_undetected_heading() -> None:
    chunks = [Piece("Course Goals text " + SPAN, 1)]
    blocks = [Piece("Course Goals text", 1), Piece(SPAN, 1)]
    chunk_labels = ["Course Goals"]
    by_page = judge(
        case("Homework"), SPAN, chunks, chunk_labels, blocks, ["Course Goals", "Homework"]
    )
    undetected = judge(
        case("Homework"), SPAN, chunks, chunk_labels, blocks, ["Course Goals", "Course Goals"]
    )
    elsewhere = judge(
        case("Homework"), SPAN, chunks, chunk_labels, blocks, ["Homework", "Course Goals"]
    )
    assert by_page.cause is MissCause.CHUNK_LABEL
    assert undetected.cause is MissCause.NOT_DETECTED
    assert elsewhere.cause is MissCause.OTHER_SECTION


def test_judge_reports_a_missing_span_an_empty_label_and_a_parent_only_label() -> None:
    chunks = [Piece(SPAN, 1)]
    assert judge(case("Homework", page=1), "absent words here", chunks, ["X"], [], []).cause is (
        MissCause.SPAN_NOT_FOUND
    )
    assert judge(case("Homework"), SPAN, chunks, [""], [], []).cause is MissCause.NO_LABEL
    parent = judge(case("Homework", parent="Grading"), SPAN, chunks, ["Grading"], [], [])
    assert parent.cause is MissCause.PARENT_ONLY
    assert not parent.hit


def test_judge_tells_a_heading_joined_to_its_neighbour_from_one_cut_in_half() -> None:
    chunks = [Piece(SPAN, 1)]
    blocks = [Piece(SPAN, 1)]
    merged = judge(
        case("Attendance Policy"),
        SPAN,
        chunks,
        ["Course Policies Attendance Policy"],
        blocks,
        ["Course Policies Attendance Policy"],
    )
    cut = judge(
        case("Week 10: How the Turtle Got Its Shell"),
        SPAN,
        chunks,
        ["Schedule > Its Shell"],
        blocks,
        ["Schedule > Its Shell"],
    )
    assert merged.cause is MissCause.MERGED
    assert cut.cause is MissCause.PARTIAL


def test_judge_records_what_the_span_block_is_labelled_before_chunking() -> None:
    chunks = [Piece("Course Goals text " + SPAN, 1)]
    blocks = [Piece("Course Goals text", 1), Piece(SPAN, 1)]
    result = judge(case("Homework"), SPAN, chunks, ["Course Goals"], blocks, ["Goals", "Homework"])
    assert (result.block_label, result.block_hit, result.hit) == ("Homework", True, False)


def test_accuracy_is_the_share_of_hits_and_none_without_cases() -> None:
    hit = SectionLabelResult(case("A"), "A", True, None, "A", True)
    miss = SectionLabelResult(case("B"), "A", False, MissCause.CHUNK_LABEL, "B", True)
    lost = SectionLabelResult(case("B"), "A", False, MissCause.OTHER_SECTION, "A", False)
    assert section_label_accuracy([hit, miss, lost, hit]) == 0.5
    assert block_label_accuracy([hit, miss, lost, hit]) == 0.75
    assert section_label_accuracy([]) is None
    assert block_label_accuracy([]) is None
