"""Which follow-ups are elided (they name a course and leave the asking to the question
before them), and what they then ask."""

from __future__ import annotations

import pytest

from core.catalog.intent import Asked, asks_catalog, carried_over, elided


@pytest.mark.parametrize(
    "question",
    [
        "and for DAT301m?",
        "What about MAE101?",
        "CSI106?",
        "also AIL303m",
        "and MAE?",
        "Còn MAE101?",
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
    ],
)
def test_each_intent_rule(question: str, asked: set[Asked]) -> None:
    assert asks_catalog(question) == frozenset(asked)
