"""Answers to quiz questions: whether a choice is right, and whether a wrong one may go to
the mistake log. Only grounded items count: a fallback question (not from the course's
material) is never graded into the log."""

from __future__ import annotations

from core.context import Context
from core.errors import BadInputError
from core.mistakes.log import MistakeEntry
from core.study.models import OPTIONS_PER_QUESTION, Quiz, QuizItem

# Quiz mistakes share the log with exercise mistakes; `quiz-{material id}` keeps them apart
# from exercise ids and names the set they came from.
QUIZ_EXERCISE_PREFIX = "quiz-"


def _item(target: Quiz | QuizItem, item: int) -> QuizItem:
    if isinstance(target, QuizItem):
        return target
    if not 0 <= item < len(target.items):
        raise BadInputError(f"That quiz has no question {item + 1}.")
    return target.items[item]


def grade_quiz_answer(target: Quiz | QuizItem, chosen_index: int, *, item: int = 0) -> bool:
    """Whether option `chosen_index` (0-based) is the right answer to the question (`item`
    of a quiz, 0-based). An index that names no option is the user's error."""
    question = _item(target, item)
    if not 0 <= chosen_index < OPTIONS_PER_QUESTION:
        raise BadInputError(f"Choose one of the options 1 to {OPTIONS_PER_QUESTION}.")
    return chosen_index == question.correct


def feeds_mistake_log(target: Quiz | QuizItem, *, item: int = 0) -> bool:
    """Whether a wrong answer to this question may be logged: the quiz is grounded and the
    question cites the material."""
    if isinstance(target, Quiz) and not target.grounded:
        return False
    return _item(target, item).grounded


def quiz_mistake(
    ctx: Context,
    quiz: Quiz,
    *,
    material_id: int,
    item: int,
    chosen_index: int,
    idempotency_key: str | None = None,
) -> MistakeEntry | None:
    """The mistake-log entry for a wrong answer, or None when the answer is right or the
    question may not feed the log. `idempotency_key` names the answer's update or
    interaction, so a replay is logged once."""
    if grade_quiz_answer(quiz, chosen_index, item=item) or not feeds_mistake_log(quiz, item=item):
        return None
    question = quiz.items[item]
    return MistakeEntry(
        course_id=ctx.course_id,
        student_id=ctx.user_id,
        exercise_id=f"{QUIZ_EXERCISE_PREFIX}{material_id}",
        step_index=item,
        skill=question.skill or quiz.topic,
        answer=question.options[chosen_index],
        detail=f"quiz on '{quiz.topic}': {question.question} (right: {question.answer})",
        platform=ctx.platform,
        idempotency_key=idempotency_key,
    )
