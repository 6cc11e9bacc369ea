"""Which follow-ups are elided (they name a course and leave the asking to the question
before them), and what they then ask."""

from __future__ import annotations

import pytest

from core.catalog.intent import (
    LAST_SEMESTER,
    Asked,
    asks_catalog,
    carried_over,
    elided,
    named_semesters,
)


@pytest.mark.parametrize(
    "question",
    [
        "and for DAT301m?",
        "What about MAE101?",
        "CSI106?",
        "also AIL303m",
        "and MAE?",
        "Còn MAE101?",
        "same for MAR301?",  # "same" compares nothing here
    ],
)
def test_short_follow_ups_that_ask_nothing_are_elided(question: str) -> None:
    assert elided(question)


@pytest.mark.parametrize(
    "question",
    [
        "When is the final exam?",  # a question of its own
        "and how many credits is DAT301m?",  # asks the catalog itself
        "and for DAT301m, is there a lab every week of the term?",  # too long to be elided
    ],
)
def test_questions_of_their_own_are_not(question: str) -> None:
    assert not elided(question)


def test_an_elided_follow_up_asks_what_the_last_question_of_its_own_asked() -> None:
    earlier = ["What are the prerequisites of CPV301?", "and for DAT301m?"]
    assert carried_over("what about MAE101?", earlier) == {Asked.PREREQUISITES}
    assert carried_over("what about MAE101?", [*earlier, "When is the exam?"]) == frozenset()
    assert carried_over("what about MAE101?", []) == frozenset()
    assert carried_over("How many credits?", earlier) == frozenset()  # not elided


@pytest.mark.parametrize(
    ("question", "asked"),
    [
        # The course needs: its prerequisites.
        ("what does MAS291 require?", {Asked.PREREQUISITES}),
        ("what are the prerequisites of DAT301m?", {Asked.PREREQUISITES}),
        # Others need the course: the reverse, what it unlocks.
        ("which courses require MAS291?", {Asked.UNLOCKS}),
        ("What subjects need MAE101?", {Asked.UNLOCKS}),
        ("what is MAS291 a prerequisite for?", {Asked.UNLOCKS}),
        ("what does MAE101 unlock?", {Asked.UNLOCKS}),
        # Taking a course, not sitting its exam.
        ("can I take DAT301m?", {Asked.CAN_TAKE}),
        ("am I allowed to take DAT301m", {Asked.CAN_TAKE}),
        ("am I allowed to take the AIG202c final", set()),
        ("can I sit the final exam of NLP301c without the certificate?", set()),
        ("I failed CSD203, which courses can't I take?", {Asked.BLOCKED}),
        (
            "how many credits is MAE101 and which semester is it in?",
            {Asked.CREDITS, Asked.SEMESTER},
        ),
        # Failing a course blocks: "mess up" says so as well as "can't take".
        ("failed EXE101 in sem 7... what does that mess up for sem 8?", {Asked.BLOCKED}),
        # Taking a course early.
        ("whats the earliest semester i could take AID301c if i study ahead?", {Asked.AHEAD}),
        ("can i take DWP301c in sem 4 instead of sem 5?", {Asked.AHEAD}),
        # A semester's courses; naming the semester alone asks for its list.
        (
            "what r the subjects in kì 7 and how many credits",
            {Asked.SEMESTER_COURSES, Asked.CREDITS},
        ),
        ("is semester 0 just orientation??", {Asked.SEMESTER, Asked.SEMESTER_COURSES}),
        ("How many credits do I need to graduate?", {Asked.CREDITS, Asked.GRADUATION}),
        ("what GPA do i need to graduate with honours?", set()),
        # Combos: which fits, which exist, whether a course is one; not what one covers.
        ("which combo fits if i want to do AI for biology?", {Asked.GROUPS}),
        ("is DBM302m one of the combo options?", {Asked.GROUPS}),
        ("what does the Big Data course in the data science combo cover?", set()),
        # Outcomes.
        ("what does PLO13 mean?", {Asked.OUTCOMES}),
        ("Which PLOs contribute to PO4?", {Asked.OUTCOMES}),
        ("which program learning outcomes does ITE303c serve?", {Asked.OUTCOMES}),
        # The student's next courses.
        ("what can I take next?", {Asked.TAKE_NEXT, Asked.CAN_TAKE}),
        # Grading, from the assessment table; sitting an exam or its delivery is not in it.
        ("are DPL302m and DAT301m graded the same way?", {Asked.GRADING}),
        ("whats the grading breakdown for MAS? progress tests vs the final", {Asked.GRADING}),
        ("is PMG201c fully online? what is the final exam like", set()),
        # Versions: a course with a word of change and an intake or "curriculum".
        ("What replaced SSL101c in K20-K21?", {Asked.VERSIONS}),
        ("in K18 when was SSG104? is it the same in K20?", {Asked.VERSIONS}),
        ("is it CSI105 or CSI106? my friend in K18 says 105", {Asked.VERSIONS}),
        # Comparing courses (the made-up programme's): side by side, unless what is compared
        # is asked already or no table holds it.
        ("whats the difference between MAR301 and BRD301?", {Asked.COMPARE}),
        ("Marine Mammals vs Bird Watching", {Asked.COMPARE}),
        ("do MAR301 and BRD301 use the same textbook?", set()),
        ("are MAR301 and BRD301 graded the same way?", {Asked.GRADING}),
    ],
)
def test_each_intent_rule(question: str, asked: set[Asked]) -> None:
    assert asks_catalog(question) == frozenset(asked)


@pytest.mark.parametrize(
    ("question", "semesters"),
    [
        ("what does failing it block in semester 9?", [9]),
        ("anything I need in sem 5 to 8?", [5, 6, 7, 8]),
        ("what r the subjects in kì 7", [7]),
        ("failed it in sem 7, what about sem 8 and after?", [7, *range(8, LAST_SEMESTER + 1)]),
    ],
)
def test_the_semesters_a_question_names(question: str, semesters: list[int]) -> None:
    assert named_semesters(question) == semesters
