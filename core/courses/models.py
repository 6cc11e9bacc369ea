"""Tables of courses: the course itself, who staffs it, and who belongs to it."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Boolean, Index, String
from sqlalchemy.orm import Mapped, mapped_column

from core.database.base import Base, UTCDateTime


class CourseRow(Base):
    """A course. Its creator became its first instructor; `open` courses take anyone."""

    __tablename__ = "courses"

    course_id: Mapped[str] = mapped_column(String, primary_key=True)
    title: Mapped[str] = mapped_column(String, nullable=False, default="")
    created_by: Mapped[str] = mapped_column(String, nullable=False)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, nullable=False)
    open: Mapped[bool] = mapped_column(Boolean, nullable=False, default=False)
    invite_code: Mapped[str | None] = mapped_column(String, nullable=True, unique=True)


class CourseStaff(Base):
    """A role on one course, granted to a principal (`telegram:42`, `discord:role:123…`)."""

    __tablename__ = "course_staff"

    course_id: Mapped[str] = mapped_column(String, primary_key=True)
    principal: Mapped[str] = mapped_column(String, primary_key=True)
    role: Mapped[str] = mapped_column(String, primary_key=True)
    granted_by: Mapped[str] = mapped_column(String, nullable=False)
    granted_at: Mapped[datetime] = mapped_column(UTCDateTime, nullable=False)


class CourseMember(Base):
    """A student of a course: they wrote in a chat bound to it, or joined by invite code."""

    __tablename__ = "course_members"

    course_id: Mapped[str] = mapped_column(String, primary_key=True)
    user_id: Mapped[str] = mapped_column(String, primary_key=True)
    via: Mapped[str] = mapped_column(String, nullable=False)
    joined_at: Mapped[datetime] = mapped_column(UTCDateTime, nullable=False)

    __table_args__ = (Index(None, "user_id"),)
