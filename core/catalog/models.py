"""The catalog's tables: course facts and learning outcomes as each document's tables state
them (one row per source, replaced with the document), each student's profile per course,
and the academic rules a course's instructor sets that its documents do not state."""

from __future__ import annotations

from datetime import date, datetime

from sqlalchemy import JSON, Boolean, Date, Float, Index, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from core.database.base import Base, UTCDateTime


class CatalogCourseRow(Base):
    __tablename__ = "catalog_courses"

    course_id: Mapped[str] = mapped_column(String, primary_key=True)
    document_id: Mapped[str] = mapped_column(String, primary_key=True)
    ordinal: Mapped[int] = mapped_column(Integer, primary_key=True)
    code: Mapped[str] = mapped_column(String, nullable=False)
    name: Mapped[str] = mapped_column(String, nullable=False)
    aliases: Mapped[list[str]] = mapped_column(JSON, nullable=False)
    credits: Mapped[float | None] = mapped_column(Float, nullable=True)
    semester: Mapped[int | None] = mapped_column(Integer, nullable=True)
    prerequisites: Mapped[str | None] = mapped_column(Text, nullable=True)
    in_plan: Mapped[bool] = mapped_column(Boolean, nullable=False)
    file_name: Mapped[str] = mapped_column(String, nullable=False)
    section: Mapped[str] = mapped_column(String, nullable=False)
    page: Mapped[int | None] = mapped_column(Integer, nullable=True)
    version_label: Mapped[str] = mapped_column(String, nullable=False)
    version_date: Mapped[date | None] = mapped_column(Date, nullable=True)
    version_intake: Mapped[int | None] = mapped_column(Integer, nullable=True)
    group_name: Mapped[str] = mapped_column(String, nullable=False, server_default="")
    description: Mapped[str] = mapped_column(Text, nullable=False, server_default="")

    __table_args__ = (Index("ix_catalog_courses_course_id_code", "course_id", "code"),)


class CatalogOutcomeRow(Base):
    __tablename__ = "catalog_outcomes"

    course_id: Mapped[str] = mapped_column(String, primary_key=True)
    document_id: Mapped[str] = mapped_column(String, primary_key=True)
    ordinal: Mapped[int] = mapped_column(Integer, primary_key=True)
    kind: Mapped[str] = mapped_column(String, nullable=False)
    code: Mapped[str] = mapped_column(String, nullable=False)
    text: Mapped[str] = mapped_column(Text, nullable=False)
    targets: Mapped[list[str]] = mapped_column(JSON, nullable=False)
    columns: Mapped[int] = mapped_column(Integer, nullable=False)
    subject: Mapped[str] = mapped_column(String, nullable=False)
    file_name: Mapped[str] = mapped_column(String, nullable=False)
    section: Mapped[str] = mapped_column(String, nullable=False)
    page: Mapped[int | None] = mapped_column(Integer, nullable=True)
    version_label: Mapped[str] = mapped_column(String, nullable=False)
    version_date: Mapped[date | None] = mapped_column(Date, nullable=True)
    version_intake: Mapped[int | None] = mapped_column(Integer, nullable=True)


class CatalogRulesRow(Base):
    """A course's own academic rules, set by its instructor (None: not set)."""

    __tablename__ = "catalog_rules"

    course_id: Mapped[str] = mapped_column(String, primary_key=True)
    ahead_limit: Mapped[int | None] = mapped_column(Integer, nullable=True)
    set_by: Mapped[str] = mapped_column(String, nullable=False)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime, nullable=False)


class StudentProfileRow(Base):
    __tablename__ = "student_profiles"

    course_id: Mapped[str] = mapped_column(String, primary_key=True)
    user_id: Mapped[str] = mapped_column(String, primary_key=True)
    semester: Mapped[int | None] = mapped_column(Integer, nullable=True)
    passed: Mapped[list[str]] = mapped_column(JSON, nullable=False)
    failed: Mapped[list[str]] = mapped_column(JSON, nullable=False)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime, nullable=False)


class CatalogAssessmentRow(Base):
    """A graded part of a course, as its syllabus's assessment table states it."""

    __tablename__ = "catalog_assessments"

    course_id: Mapped[str] = mapped_column(String, primary_key=True)
    document_id: Mapped[str] = mapped_column(String, primary_key=True)
    ordinal: Mapped[int] = mapped_column(Integer, primary_key=True)
    subject: Mapped[str] = mapped_column(String, nullable=False)
    category: Mapped[str] = mapped_column(String, nullable=False)
    weight: Mapped[str] = mapped_column(String, nullable=False)
    parts: Mapped[str] = mapped_column(String, nullable=False)
    duration: Mapped[str] = mapped_column(Text, nullable=False)
    criterion: Mapped[str] = mapped_column(String, nullable=False)
    file_name: Mapped[str] = mapped_column(String, nullable=False)
    section: Mapped[str] = mapped_column(String, nullable=False)
    page: Mapped[int | None] = mapped_column(Integer, nullable=True)
