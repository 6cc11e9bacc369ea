"""Quiz answers: right or wrong by index; a wrong answer to a grounded question becomes a
mistake-log entry with the question's skill; fallback questions never do."""

from __future__ import annotations

import pytest

from core.context import Context
from core.errors import BadInputError
from core.study import feeds_mistake_log, grade_quiz_answer, quiz_mistake
from core.study.models import Quiz, QuizItem, Source

ITEM = QuizItem(
    question="What is the weight of the final exam?",
    options=("10%", "20%", "30%", "40%"),
    correct=3,
    source=Source(file="syllabus.md", section="Grading Policy", chunk_id="c1"),
    skill="grading-policy",
)
QUIZ = Quiz(topic="grading", items=(ITEM,))
FALLBACK = Quiz(
    topic="photosynthesis", items=(ITEM.model_copy(update={"source": None}),), grounded=False
)
CTX = Context(platform="telegram", course_id="math101", user_id="telegram:42")


def test_the_chosen_index_is_graded() -> None:
    assert grade_quiz_answer(QUIZ, 3)
    assert not grade_quiz_answer(QUIZ, 0)
    assert grade_quiz_answer(ITEM, 3)


@pytest.mark.parametrize("chosen", [-1, 4])
def test_an_index_naming_no_option_is_the_users_error(chosen: int) -> None:
    with pytest.raises(BadInputError, match="options 1 to 4"):
        grade_quiz_answer(QUIZ, chosen)


def test_a_question_the_quiz_does_not_have_is_the_users_error() -> None:
    with pytest.raises(BadInputError, match="no question 2"):
        grade_quiz_answer(QUIZ, 0, item=1)


def test_only_grounded_questions_feed_the_mistake_log() -> None:
    assert feeds_mistake_log(QUIZ) and feeds_mistake_log(ITEM)
    assert not feeds_mistake_log(FALLBACK)
    assert not feeds_mistake_log(FALLBACK.items[0])


def test_a_wrong_answer_becomes_a_mistake_with_the_skill() -> None:
    entry = quiz_mistake(CTX, QUIZ, material_id=7, item=0, chosen_index=1, idempotency_key="k1")
    assert entry is not None
    assert (entry.exercise_id, entry.step_index, entry.skill) == ("quiz-7", 0, "grading-policy")
    assert entry.answer == "20%" and entry.student_id == "telegram:42"
    assert entry.idempotency_key == "k1" and entry.platform == "telegram"


def test_a_right_answer_or_a_fallback_question_makes_no_mistake() -> None:
    assert quiz_mistake(CTX, QUIZ, material_id=7, item=0, chosen_index=3) is None
    assert quiz_mistake(CTX, FALLBACK, material_id=8, item=0, chosen_index=1) is None
