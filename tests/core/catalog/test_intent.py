"""Which follow-ups are elided (they name a course and leave the asking to the question
before them), and what they then ask."""

from __future__ import annotations

import pytest

from core.catalog.intent import Asked, carried_over, elided


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
