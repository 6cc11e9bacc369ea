"""The mistake log: guided exercises record wrong answers; moderators see where a class
struggles (by skill, by exercise step, by student), the latest mistakes, and a CSV export."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import ColumnElement, Insert, Row, func, insert, select
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncEngine

from config import Settings
from core.database import open_database
from core.mistakes.models import Mistake
from core.spreadsheet_csv import SpreadsheetCsv

# Longer answers and grader details are cut: the log is for spotting patterns, not archiving.
MAX_TEXT_CHARS = 2000
EXAMPLES_PER_SKILL = 3
MAX_LATEST = 500

CSV_COLUMNS = (
    "created_at",
    "course_id",
    "student_id",
    "exercise_id",
    "step_index",
    "skill",
    "answer",
    "detail",
    "platform",
)
_UPSERT_DIALECTS = ("postgresql", "sqlite")


@dataclass(frozen=True, slots=True)
class MistakeEntry:
    """One wrong answer to one step of a guided exercise. `idempotency_key` names the message
    that produced it (unique across the log: include platform and chat in it); `id` is set
    on entries read back from the log."""

    course_id: str
    student_id: str
    exercise_id: str
    step_index: int
    skill: str
    answer: str
    detail: str = ""
    platform: str = ""
    idempotency_key: str | None = None
    created_at: datetime = field(default_factory=lambda: datetime.now(UTC))
    id: int | None = None

    def __post_init__(self) -> None:
        for name in ("course_id", "student_id", "exercise_id", "skill"):
            if not getattr(self, name):
                raise ValueError(f"a mistake needs a {name}")
        if self.step_index < 0:
            raise ValueError("step_index must not be negative")
        if self.created_at.tzinfo is None or self.created_at.utcoffset() is None:
            raise ValueError("created_at must be timezone-aware")


@dataclass(frozen=True, slots=True)
class SkillCount:
    """Mistakes on one skill, with the most recent ones (newest first) as examples."""

    skill: str
    count: int
    students: int
    last_at: datetime
    examples: tuple[MistakeEntry, ...] = ()


@dataclass(frozen=True, slots=True)
class StepCount:
    exercise_id: str
    step_index: int
    count: int
    students: int
    last_at: datetime


@dataclass(frozen=True, slots=True)
class StudentCount:
    student_id: str
    count: int
    skills: int
    last_at: datetime


class MistakeLog:
    """Mistakes in a SQL database (SQLite or PostgreSQL) reached through an async engine.

    `MistakeLog(engine)` leaves the engine to its owner; `await MistakeLog.open(settings)`
    migrates the schema, creates its own engine and disposes it in `close()`."""

    def __init__(self, engine: AsyncEngine, *, owns_engine: bool = False) -> None:
        self._engine = engine
        self._owns_engine = owns_engine

    @classmethod
    async def open(cls, settings: Settings, *, migrate_schema: bool = True) -> MistakeLog:
        engine = await open_database(settings, migrate_schema=migrate_schema)
        return cls(engine, owns_engine=True)

    async def close(self) -> None:
        if self._owns_engine:
            await self._engine.dispose()

    async def record(self, entry: MistakeEntry) -> bool:
        """Log a mistake; False when its idempotency key was already logged (nothing added)."""
        values = {
            "course_id": entry.course_id,
            "student_id": entry.student_id,
            "exercise_id": entry.exercise_id,
            "step_index": entry.step_index,
            "skill": entry.skill,
            "answer": entry.answer[:MAX_TEXT_CHARS],
            "detail": entry.detail[:MAX_TEXT_CHARS],
            "platform": entry.platform,
            "created_at": entry.created_at,
            "idempotency_key": entry.idempotency_key,
        }
        statement = self._insert_ignoring_replays(values).returning(Mistake.id)
        try:
            async with self._engine.begin() as connection:
                inserted = (await connection.execute(statement)).scalar_one_or_none()
        except IntegrityError:
            # Dialects without ON CONFLICT report a replay this way; it is not an error.
            if entry.idempotency_key is None or self._engine.dialect.name in _UPSERT_DIALECTS:
                raise
            return False
        return inserted is not None

    async def by_skill(
        self, course_id: str, student: str | None = None, exercise: str | None = None
    ) -> list[SkillCount]:
        """Mistakes per skill, most frequent first, each with its latest examples."""
        where = _filters(course_id, student=student, exercise=exercise)
        counts = (
            select(
                Mistake.skill,
                func.count().label("mistakes"),
                func.count(Mistake.student_id.distinct()).label("students"),
                func.max(Mistake.created_at).label("last_at"),
            )
            .where(*where)
            .group_by(Mistake.skill)
            .order_by(func.count().desc(), Mistake.skill)
        )
        rank = (
            func.row_number()
            .over(
                partition_by=Mistake.skill,
                order_by=(Mistake.created_at.desc(), Mistake.id.desc()),
            )
            .label("rank")
        )
        ranked = select(Mistake, rank).where(*where).subquery()
        recent = (
            select(ranked)
            .where(ranked.c.rank <= EXAMPLES_PER_SKILL)
            .order_by(ranked.c.skill, ranked.c.rank)
        )
        async with self._engine.connect() as connection:
            count_rows = (await connection.execute(counts)).all()
            example_rows = (await connection.execute(recent)).all()
        examples: dict[str, list[MistakeEntry]] = defaultdict(list)
        for row in example_rows:
            examples[row.skill].append(_entry(row))
        return [
            SkillCount(
                skill=row.skill,
                count=row.mistakes,
                students=row.students,
                last_at=_utc(row.last_at),
                examples=tuple(examples[row.skill]),
            )
            for row in count_rows
        ]

    async def by_exercise(
        self, course_id: str, exercise: str | None = None, skill: str | None = None
    ) -> list[StepCount]:
        """Mistakes per exercise step, most frequent first (then by exercise and step)."""
        statement = (
            select(
                Mistake.exercise_id,
                Mistake.step_index,
                func.count().label("mistakes"),
                func.count(Mistake.student_id.distinct()).label("students"),
                func.max(Mistake.created_at).label("last_at"),
            )
            .where(*_filters(course_id, skill=skill, exercise=exercise))
            .group_by(Mistake.exercise_id, Mistake.step_index)
            .order_by(func.count().desc(), Mistake.exercise_id, Mistake.step_index)
        )
        async with self._engine.connect() as connection:
            rows = (await connection.execute(statement)).all()
        return [
            StepCount(
                exercise_id=row.exercise_id,
                step_index=row.step_index,
                count=row.mistakes,
                students=row.students,
                last_at=_utc(row.last_at),
            )
            for row in rows
        ]

    async def by_student(
        self, course_id: str, skill: str | None = None, exercise: str | None = None
    ) -> list[StudentCount]:
        """Mistakes per student, most first; `skills` is how many different skills."""
        statement = (
            select(
                Mistake.student_id,
                func.count().label("mistakes"),
                func.count(Mistake.skill.distinct()).label("skills"),
                func.max(Mistake.created_at).label("last_at"),
            )
            .where(*_filters(course_id, skill=skill, exercise=exercise))
            .group_by(Mistake.student_id)
            .order_by(func.count().desc(), Mistake.student_id)
        )
        async with self._engine.connect() as connection:
            rows = (await connection.execute(statement)).all()
        return [
            StudentCount(
                student_id=row.student_id,
                count=row.mistakes,
                skills=row.skills,
                last_at=_utc(row.last_at),
            )
            for row in rows
        ]

    async def latest(
        self,
        course_id: str,
        skill: str | None = None,
        student: str | None = None,
        limit: int = 20,
        exercise: str | None = None,
    ) -> list[MistakeEntry]:
        """The most recent mistakes, newest first (at most MAX_LATEST)."""
        if limit < 1:
            raise ValueError("limit must be at least 1")
        statement = (
            select(Mistake)
            .where(*_filters(course_id, skill=skill, student=student, exercise=exercise))
            .order_by(Mistake.created_at.desc(), Mistake.id.desc())
            .limit(min(limit, MAX_LATEST))
        )
        async with self._engine.connect() as connection:
            rows = (await connection.execute(statement)).all()
        return [_entry(row) for row in rows]

    async def export_csv(
        self,
        course_id: str,
        skill: str | None = None,
        student: str | None = None,
        exercise: str | None = None,
    ) -> bytes:
        """Every matching mistake, oldest first, as UTF-8 CSV with a header row (cells a
        spreadsheet would run as formulas are made text: `core.spreadsheet_csv`)."""
        statement = (
            select(Mistake)
            .where(*_filters(course_id, skill=skill, student=student, exercise=exercise))
            .order_by(Mistake.created_at, Mistake.id)
        )
        table = SpreadsheetCsv(CSV_COLUMNS)
        async with self._engine.connect() as connection:
            result = await connection.stream(statement)
            async for row in result:
                entry = _entry(row)
                table.add(
                    (
                        entry.created_at.isoformat(),
                        entry.course_id,
                        entry.student_id,
                        entry.exercise_id,
                        str(entry.step_index),
                        entry.skill,
                        entry.answer,
                        entry.detail,
                        entry.platform,
                    )
                )
        return table.to_bytes()

    def _insert_ignoring_replays(self, values: dict[str, object]) -> Insert:
        dialect = self._engine.dialect.name
        if dialect == "postgresql":
            return (
                postgresql.insert(Mistake)
                .values(values)
                .on_conflict_do_nothing(index_elements=[Mistake.idempotency_key])
            )
        if dialect == "sqlite":
            return (
                sqlite.insert(Mistake)
                .values(values)
                .on_conflict_do_nothing(index_elements=[Mistake.idempotency_key])
            )
        return insert(Mistake).values(values)


def _filters(
    course_id: str,
    *,
    skill: str | None = None,
    student: str | None = None,
    exercise: str | None = None,
) -> Sequence[ColumnElement[bool]]:
    conditions = [Mistake.course_id == course_id]
    if skill is not None:
        conditions.append(Mistake.skill == skill)
    if student is not None:
        conditions.append(Mistake.student_id == student)
    if exercise is not None:
        conditions.append(Mistake.exercise_id == exercise)
    return conditions


def _entry(row: Row[Any]) -> MistakeEntry:
    return MistakeEntry(
        id=row.id,
        course_id=row.course_id,
        student_id=row.student_id,
        exercise_id=row.exercise_id,
        step_index=row.step_index,
        skill=row.skill,
        answer=row.answer,
        detail=row.detail,
        platform=row.platform,
        idempotency_key=row.idempotency_key,
        created_at=_utc(row.created_at),
    )


def _utc(value: datetime) -> datetime:
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)
