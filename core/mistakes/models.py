"""The mistake log's table: one row per wrong answer in a guided exercise."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Index, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from core.database.base import Base, UTCDateTime


class Mistake(Base):
    """A wrong answer to one step of a guided exercise, as the grader judged it."""

    __tablename__ = "mistakes"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    course_id: Mapped[str] = mapped_column(String, nullable=False)
    student_id: Mapped[str] = mapped_column(String, nullable=False)
    exercise_id: Mapped[str] = mapped_column(String, nullable=False)
    step_index: Mapped[int] = mapped_column(Integer, nullable=False)
    skill: Mapped[str] = mapped_column(String, nullable=False)
    answer: Mapped[str] = mapped_column(Text, nullable=False)
    detail: Mapped[str] = mapped_column(Text, nullable=False, default="")
    platform: Mapped[str] = mapped_column(String, nullable=False, default="")
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, nullable=False)
    # The message that produced the mistake; a replayed message carries the same key.
    idempotency_key: Mapped[str | None] = mapped_column(String, nullable=True, unique=True)

    __table_args__ = (
        Index(None, "course_id", "skill", "created_at"),
        Index(None, "course_id", "exercise_id", "step_index"),
        Index(None, "course_id", "student_id", "created_at"),
        Index(None, "course_id", "created_at"),
    )
