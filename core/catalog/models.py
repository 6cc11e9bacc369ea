"""The catalog's tables: course facts as each document's tables state them (one row per
source, replaced with the document), and each student's profile per course."""

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

    __table_args__ = (Index("ix_catalog_courses_course_id_code", "course_id", "code"),)


class StudentProfileRow(Base):
    __tablename__ = "student_profiles"

    course_id: Mapped[str] = mapped_column(String, primary_key=True)
    user_id: Mapped[str] = mapped_column(String, primary_key=True)
    semester: Mapped[int | None] = mapped_column(Integer, nullable=True)
    passed: Mapped[list[str]] = mapped_column(JSON, nullable=False)
    failed: Mapped[list[str]] = mapped_column(JSON, nullable=False)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime, nullable=False)
