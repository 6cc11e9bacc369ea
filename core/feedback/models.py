"""The instructor loop's tables: every answer the bot gave (with its question's vector), the
votes on them, and the groups of questions the material failed, with the staff's answers."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Boolean, Index, Integer, LargeBinary, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from core.database.base import Base, UTCDateTime


class AskedQuestion(Base):
    """A question and the answer shown for it: what a vote rates and the staff review."""

    __tablename__ = "asked_questions"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    course_id: Mapped[str] = mapped_column(String, nullable=False)
    platform: Mapped[str] = mapped_column(String, nullable=False)
    asker_id: Mapped[str] = mapped_column(String, nullable=False)
    chat_id: Mapped[str | None] = mapped_column(String, nullable=True)
    # Who read the answer: a vote on one given where the asker alone read it is theirs alone.
    audience: Mapped[str] = mapped_column(String, nullable=False)
    question: Mapped[str] = mapped_column(Text, nullable=False)
    answer: Mapped[str] = mapped_column(Text, nullable=False)
    # The citations shown, one label a line.
    sources: Mapped[str] = mapped_column(Text, nullable=False, default="")
    grounded: Mapped[bool] = mapped_column(Boolean, nullable=False)
    # The question's unit-length float32 vector, to group it with others like it.
    vector: Mapped[bytes | None] = mapped_column(LargeBinary, nullable=True)
    group_id: Mapped[int | None] = mapped_column(Integer, nullable=True)
    # The asker has been told the staff's answer to its group.
    told: Mapped[bool] = mapped_column(Boolean, nullable=False, default=False)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, nullable=False)

    __table_args__ = (
        Index(None, "course_id", "created_at"),
        Index(None, "course_id", "asker_id", "id"),
        Index(None, "group_id"),
    )


class AnswerVote(Base):
    """One person's 👍 or 👎 on one answer (changeable: the row is updated)."""

    __tablename__ = "answer_votes"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    question_id: Mapped[int] = mapped_column(Integer, nullable=False)
    course_id: Mapped[str] = mapped_column(String, nullable=False)
    voter_id: Mapped[str] = mapped_column(String, nullable=False)
    helpful: Mapped[bool] = mapped_column(Boolean, nullable=False)
    reason: Mapped[str] = mapped_column(Text, nullable=False, default="")
    voted_at: Mapped[datetime] = mapped_column(UTCDateTime, nullable=False)

    __table_args__ = (
        UniqueConstraint("question_id", "voter_id"),
        Index(None, "course_id", "voted_at"),
    )


class QuestionGroup(Base):
    """Questions of one course alike enough to be one for the staff; open until answered."""

    __tablename__ = "question_groups"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    course_id: Mapped[str] = mapped_column(String, nullable=False)
    centroid: Mapped[bytes] = mapped_column(LargeBinary, nullable=False)
    answer: Mapped[str] = mapped_column(Text, nullable=False, default="")
    answered_by: Mapped[str] = mapped_column(String, nullable=False, default="")
    answered_at: Mapped[datetime | None] = mapped_column(UTCDateTime, nullable=True)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, nullable=False)

    __table_args__ = (Index(None, "course_id", "answered_at"),)


class QuizAnswerRow(Base):
    """One student's first answer to one question of a quiz, for the digest's accuracy per
    topic: the course, the quiz's topic, the question, right or not, who and when."""

    __tablename__ = "quiz_answers"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    course_id: Mapped[str] = mapped_column(String, nullable=False)
    platform: Mapped[str] = mapped_column(String, nullable=False)
    student_id: Mapped[str] = mapped_column(String, nullable=False)
    quiz_id: Mapped[int] = mapped_column(Integer, nullable=False)
    number: Mapped[int] = mapped_column(Integer, nullable=False)
    topic: Mapped[str] = mapped_column(Text, nullable=False)
    question: Mapped[str] = mapped_column(Text, nullable=False)
    correct: Mapped[bool] = mapped_column(Boolean, nullable=False)
    answered_at: Mapped[datetime] = mapped_column(UTCDateTime, nullable=False)

    __table_args__ = (
        # One answer per person per question: a replayed update or a second tap adds nothing.
        UniqueConstraint("course_id", "quiz_id", "number", "student_id"),
        Index(None, "course_id", "answered_at"),
    )
