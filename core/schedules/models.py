"""Tables of schedules: what an instructor asked to happen on a timetable, and each run's
outcome. When each schedule is next due is APScheduler's, in its own job store tables
(`ingestion/schedule.py`); these rows are what the chat lists and what a run reads."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Index, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from core.database.base import Base, UTCDateTime


class ScheduleRow(Base):
    """One schedule of a course. `lane` says which processes may run it: `ingest` any of
    them, a platform's name only that platform's bot (it posts to `chat_id` there, as
    `created_by`, in the place whose binding keys are `place_keys`)."""

    __tablename__ = "schedules"

    schedule_id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    course_id: Mapped[str] = mapped_column(String, nullable=False)
    kind: Mapped[str] = mapped_column(String, nullable=False)
    target: Mapped[str] = mapped_column(Text, nullable=False, default="")
    every_s: Mapped[int | None] = mapped_column(Integer, nullable=True)
    weekday: Mapped[str | None] = mapped_column(String, nullable=True)
    at: Mapped[str | None] = mapped_column(String, nullable=True)
    lane: Mapped[str] = mapped_column(String, nullable=False)
    platform: Mapped[str] = mapped_column(String, nullable=False)
    chat_id: Mapped[str | None] = mapped_column(String, nullable=True)
    place_keys: Mapped[str] = mapped_column(Text, nullable=False, default="")
    created_by: Mapped[str] = mapped_column(String, nullable=False)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, nullable=False)
    # A URL source's validators, sent back so an unchanged page is not downloaded again.
    etag: Mapped[str | None] = mapped_column(String, nullable=True)
    last_modified: Mapped[str | None] = mapped_column(String, nullable=True)

    __table_args__ = (Index(None, "course_id"),)


class ScheduleRunRow(Base):
    """One run of a schedule, claimed by the replica that does it: (schedule, due time) is
    unique, so of two replicas firing the same due run only one gets to do it."""

    __tablename__ = "schedule_runs"

    run_id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    schedule_id: Mapped[int] = mapped_column(Integer, nullable=False)
    due_at: Mapped[datetime] = mapped_column(UTCDateTime, nullable=False)
    started_at: Mapped[datetime] = mapped_column(UTCDateTime, nullable=False)
    finished_at: Mapped[datetime | None] = mapped_column(UTCDateTime, nullable=True)
    outcome: Mapped[str] = mapped_column(String, nullable=False)
    detail: Mapped[str] = mapped_column(Text, nullable=False, default="")
    runner: Mapped[str] = mapped_column(String, nullable=False, default="")

    __table_args__ = (UniqueConstraint("schedule_id", "due_at"),)
