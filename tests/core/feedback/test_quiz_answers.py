"""The quiz-answer log on SQLite and PostgreSQL: one answer per person per question (a copy
of an answer, as a repeated outbox flush hands over, adds nothing), read per course, and the
digest's accuracy per topic."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from support.databases import BACKENDS, migrated_database

from core.database import create_engine
from core.feedback.quiz_answers import QuizAnswer, QuizAnswerLog, accuracy_by_topic

AT = datetime(2026, 12, 5, 9, 0, tzinfo=UTC)
ANSWER = QuizAnswer(
    course_id="calc101", platform="telegram", student_id="telegram:1", quiz_id=7, number=1,
    topic="Limits", question="What is lim x->0 of sin x / x?", correct=True, answered_at=AT,
)  # fmt: skip


@pytest.fixture(params=BACKENDS)
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    return migrated_database(request, tmp_path, "quiz-answers")


@pytest.fixture
async def log(database_url: str) -> AsyncIterator[QuizAnswerLog]:
    engine = create_engine(database_url)
    yield QuizAnswerLog(engine)
    await engine.dispose()


async def test_an_answer_counts_once_per_person_and_question(log: QuizAnswerLog) -> None:
    assert await log.record(ANSWER)
    assert not await log.record(ANSWER)
    # The same question answered again, otherwise: still the first answer.
    assert not await log.record(replace(ANSWER, correct=False))
    assert await log.record(replace(ANSWER, student_id="telegram:2", correct=False))
    assert await log.record(replace(ANSWER, number=2, correct=False))
    found = await log.since("calc101", AT - timedelta(days=7))
    assert [(a.student_id, a.number, a.correct) for a in found] == [
        ("telegram:1", 1, True), ("telegram:2", 1, False), ("telegram:1", 2, False),
    ]  # fmt: skip
    assert found[0].answered_at == AT
    mine = await log.since("calc101", AT - timedelta(days=7), "telegram:2")
    assert [a.student_id for a in mine] == ["telegram:2"]


async def test_answers_are_read_for_their_course_and_period_only(log: QuizAnswerLog) -> None:
    await log.record(ANSWER)
    await log.record(replace(ANSWER, course_id="physics"))
    await log.record(replace(ANSWER, quiz_id=8, answered_at=AT - timedelta(days=10)))
    found = await log.since("calc101", AT - timedelta(days=7))
    assert [(a.course_id, a.quiz_id) for a in found] == [("calc101", 7)]


def test_accuracy_is_per_topic_whatever_its_case_least_right_first() -> None:
    answers = [
        ANSWER,
        replace(ANSWER, topic="limits ", correct=False),
        replace(ANSWER, topic="LIMITS", correct=True),
        replace(ANSWER, topic="derivatives", correct=False),
        replace(ANSWER, topic="derivatives", correct=True),
        replace(ANSWER, topic="integrals", correct=True),
    ]
    found = [(t.topic, t.answers, t.correct, t.percent) for t in accuracy_by_topic(answers)]
    assert found == [("derivatives", 2, 1, 50), ("Limits", 3, 2, 67), ("integrals", 1, 1, 100)]
