"""Quiz answers for the digest: each student's first answer to each quiz question, however
it came (`/pick` on the console or Telegram, a Discord quiz button, a native quiz poll),
with the course, the quiz's topic, the question and whether it was right.

`StudyDesk` decides an answer counts (once per person per question, under compare-and-set)
and appends it to this outbox in that same atomic step; the outbox writes it to the database,
which ignores a second copy (a flush repeated after a crash). The digest reads accuracy per
topic from here and names no student."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Row, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncEngine

from core.feedback.models import QuizAnswerRow
from core.outages import Outages
from core.outbox import Outbox
from core.sessions import SessionStore

MAX_TEXT_CHARS = 2000
_KEYS = ("course_id", "quiz_id", "number", "student_id")


@dataclass(frozen=True, slots=True)
class QuizAnswer:
    """One answer: question `number` (from 1) of quiz `quiz_id`, right or not."""

    course_id: str
    platform: str
    student_id: str
    quiz_id: int
    number: int
    topic: str
    question: str
    correct: bool
    answered_at: datetime


@dataclass(frozen=True, slots=True)
class TopicAccuracy:
    topic: str
    answers: int
    correct: int

    @property
    def percent(self) -> int:
        return round(100 * self.correct / self.answers) if self.answers else 0


class QuizAnswerLog:
    def __init__(self, engine: AsyncEngine) -> None:
        self._engine = engine

    async def record(self, answer: QuizAnswer) -> bool:
        """Keep `answer`; False when that person's answer to that question is kept already."""
        values = {
            "course_id": answer.course_id,
            "platform": answer.platform,
            "student_id": answer.student_id,
            "quiz_id": answer.quiz_id,
            "number": answer.number,
            "topic": answer.topic[:MAX_TEXT_CHARS],
            "question": answer.question[:MAX_TEXT_CHARS],
            "correct": answer.correct,
            "answered_at": answer.answered_at,
        }
        dialect = postgresql if self._engine.dialect.name == "postgresql" else sqlite
        statement = (
            dialect.insert(QuizAnswerRow)
            .values(values)
            .on_conflict_do_nothing(index_elements=list(_KEYS))
            .returning(QuizAnswerRow.id)
        )
        try:
            async with self._engine.begin() as connection:
                inserted = (await connection.execute(statement)).scalar_one_or_none()
        except IntegrityError:  # a racing copy of the same answer
            return False
        return inserted is not None

    async def since(
        self, course_id: str, since: datetime, student: str | None = None
    ) -> list[QuizAnswer]:
        where = [QuizAnswerRow.course_id == course_id, QuizAnswerRow.answered_at >= since]
        if student is not None:
            where.append(QuizAnswerRow.student_id == student)
        statement = select(QuizAnswerRow).where(*where).order_by(QuizAnswerRow.id)
        async with self._engine.connect() as connection:
            rows = (await connection.execute(statement)).all()
        return [_answer(row) for row in rows]


class QuizAnswerOutbox(Outbox[QuizAnswer]):
    def __init__(
        self, store: SessionStore, prefix: str, log: QuizAnswerLog, outages: Outages
    ) -> None:
        super().__init__(store, prefix, "quiz-answers", QuizAnswer, log.record, outages)


def accuracy_by_topic(answers: list[QuizAnswer]) -> list[TopicAccuracy]:
    """Answers and right answers per topic (topics compared without case or extra spaces),
    the least accurate first, then the most answered."""
    totals: dict[str, list[int]] = {}
    names: dict[str, str] = {}
    for answer in answers:
        key = " ".join(answer.topic.casefold().split())
        names.setdefault(key, " ".join(answer.topic.split()))
        counts = totals.setdefault(key, [0, 0])
        counts[0] += 1
        counts[1] += int(answer.correct)
    found = [TopicAccuracy(names[key], total, right) for key, (total, right) in totals.items()]
    return sorted(found, key=lambda t: (t.correct / t.answers, -t.answers, t.topic))


def _answer(row: Row[Any]) -> QuizAnswer:
    at = row.answered_at
    return QuizAnswer(
        course_id=row.course_id,
        platform=row.platform,
        student_id=row.student_id,
        quiz_id=row.quiz_id,
        number=row.number,
        topic=row.topic,
        question=row.question,
        correct=bool(row.correct),
        answered_at=at.replace(tzinfo=UTC) if at.tzinfo is None else at,
    )
