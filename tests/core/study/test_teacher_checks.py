"""What a teacher would strike, each rule pinned by a failure found on real courses
(issue: quizzes from a syllabus were trivia): keys that are sentence fragments or ids,
section names as options, stems about the course's running on a subject, sources that are
no teaching material or another course's, the same few options on every question, and an
option a platform cannot show on one line."""

from __future__ import annotations

from core.index import ChunkRecord
from core.study.checks import (
    CourseScope,
    Rule,
    course_problems,
    item_problems,
    key_problems,
    repeated_options,
)
from core.study.models import QuizItem, Source

TEACHING = ChunkRecord(
    id="t1",
    course_id="c",
    document_id="c/lecture.md",
    file_name="lecture.md",
    text="A stack is a collection where the last element pushed is the first popped.",
    page=None,
    section="Data structures > Stacks",
    kind="notes",
    visibility="public",
    owner_id=None,
    chunk_index=0,
)
SYLLABUS = ChunkRecord(
    id="s1",
    course_id="c",
    document_id="c/syllabus.md",
    file_name="syllabus.md",
    text="| Session | Topic | LO |\n| 4 | Stacks | LO2 |\n| 5 | Queues | LO2 |",
    page=None,
    section="Weekly Schedule",
    kind="syllabus",
    visibility="public",
    owner_id=None,
    chunk_index=0,
)
SCOPE = CourseScope.of([TEACHING, SYLLABUS])
FROM_TEACHING = Source.from_chunk(TEACHING)


def found(question: str, options: list[str], correct: int, source: Source | None) -> set[Rule]:
    return {p.rule for p in course_problems(question, options, correct, source, SCOPE)}


def test_a_key_cut_from_a_sentence_is_a_fragment() -> None:
    # "the first two words of a sentence" were keys on fpt-bit-ai.
    for key in ("Students will", "The derivative of", "and then the limit", "max(0", "(x + 1"):
        assert Rule.FRAGMENT in {p.rule for p in key_problems(key)}, key
    for key in ("Product rule", "20%", "f'g + fg'", "stochastic gradient descent", "O(n log n)"):
        assert key_problems(key) == [], key


def test_an_id_is_no_key() -> None:
    # "CLO Details for CLO Name 1 -> CLO1": 15 of 15 cards on "stack and queue".
    for key in ("CLO1", "PLO12", "LO2", "DBI202", "CQ1_HCM"):
        assert Rule.ID_KEY in {p.rule for p in key_problems(key)}, key


def test_a_section_name_is_no_option() -> None:
    # Distractors were section names ("Weekly Schedule").
    rules = found(
        "Which structure removes the last element pushed first?",
        ["Stack", "Queue", "Weekly Schedule", "Heap"],
        0,
        FROM_TEACHING,
    )
    assert Rule.SECTION_NAME in rules


def test_on_a_subject_a_question_about_sessions_or_office_hours_is_struck() -> None:
    # "what is the session no for 116?"
    rules = found(
        "Sessions: what is the session no for 116?", ["32", "33", "34", "35"], 1, FROM_TEACHING
    )
    assert Rule.LOGISTICS in rules
    office = found(
        "Course Information: what is listed for Office hours?",
        ["Tuesday 14:00-15:30, Room B214", "Friday 09:00", "Monday 10:00", "Hall A"],
        0,
        FROM_TEACHING,
    )
    assert Rule.LOGISTICS in office


def test_on_a_subject_the_source_must_teach_and_be_the_courses_own() -> None:
    from_syllabus = Source.from_chunk(SYLLABUS)
    stem = "Which structure removes the last element pushed first?"
    options = ["Stack", "Queue", "Heap", "Tree"]
    assert Rule.NOT_TEACHING in found(stem, options, 0, from_syllabus)
    elsewhere = Source(file="other.md", chunk_id="t9", document_id="other/other.md")
    assert Rule.FOREIGN_SOURCE in found(stem, options, 0, elsewhere)
    assert found(stem, options, 0, FROM_TEACHING) == set()
    # A quiz about the course itself may cite the syllabus.
    about_course = CourseScope.of([TEACHING, SYLLABUS], subject=False)
    assert course_problems(stem, options, 0, from_syllabus, about_course) == []


def test_the_same_options_on_every_question_are_a_set_problem() -> None:
    # On lecture notes in PDF the same four generic options recurred across a whole quiz.
    options = ("Introduction", "Overview", "Summary", "Definition")
    items = [
        QuizItem(question=f"Question {n} about stacks?", options=options, correct=n % 4)
        for n in range(6)
    ]
    assert Rule.REPEATED_OPTION in {p.rule for p in repeated_options(items)}


def test_an_option_on_several_lines_cannot_be_shown_whole() -> None:
    # Two questions were printed with only three options.
    rules = {
        p.rule
        for p in item_problems(
            "Which structure is LIFO?", ["Stack", "Queue\nHeap", "Tree", "Graph"], 0
        )
    }
    assert Rule.UNRENDERABLE in rules
