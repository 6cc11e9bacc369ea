"""The table of generated material: exercises, flashcards, quizzes, mind maps and lessons a
model wrote for one course and one owner, cached under a key so a set is found again."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, Boolean, Integer, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from core.database.base import Base, UTCDateTime


class GeneratedMaterialRow(Base):
    """One generated set. The cache key is (course, owner, kind, normalised topic,
    visibility, hash of the parameters): at most one set per key, which `--new` replaces.
    `visibility` ("public" or "private", `core.visibility.Visibility`) is who the set is for:
    the course, or its owner alone; the store filters on it, nothing reads it from JSON.
    `job_id` is the background job that saved it (None outside jobs): one set per job, so a
    job run again after it saved finds its set instead of saving another."""

    __tablename__ = "generated_material"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    course_id: Mapped[str] = mapped_column(String, nullable=False)
    owner_id: Mapped[str] = mapped_column(String, nullable=False)
    kind: Mapped[str] = mapped_column(String, nullable=False)
    topic: Mapped[str] = mapped_column(String, nullable=False)
    visibility: Mapped[str] = mapped_column(String, nullable=False)
    parameters: Mapped[dict[str, Any]] = mapped_column(JSON, nullable=False)
    parameters_hash: Mapped[str] = mapped_column(String, nullable=False)
    # What the set was generated with, to reproduce it; not part of the cache key.
    seed: Mapped[int | None] = mapped_column(Integer, nullable=True)
    content: Mapped[Any] = mapped_column(JSON, nullable=False)
    source_chunks: Mapped[list[Any]] = mapped_column(JSON, nullable=False)
    model: Mapped[str] = mapped_column(String, nullable=False)
    grounded: Mapped[bool] = mapped_column(Boolean, nullable=False)
    created_at: Mapped[datetime] = mapped_column(UTCDateTime, nullable=False)
    job_id: Mapped[str | None] = mapped_column(String, nullable=True)

    __table_args__ = (
        # Named by hand: the convention's name would pass PostgreSQL's 63 characters.
        UniqueConstraint(
            "course_id", "owner_id", "kind", "topic", "visibility", "parameters_hash",
            name="uq_generated_material_cache_key",
        ),
        UniqueConstraint("job_id", name="uq_generated_material_job_id"),
        # SQLite: never reuse an id, so a replaced set's old id finds nothing.
        {"sqlite_autoincrement": True},
    )  # fmt: skip
