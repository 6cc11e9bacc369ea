"""The schedules of every course and their runs, in the project database."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from sqlalchemy import delete, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncEngine

from core.schedules.models import ScheduleRow, ScheduleRunRow
from core.schedules.spec import ScheduleKind, ScheduleSpec

# Which processes run a schedule: any of them for ingestion, the platform's bot for a post.
INGEST_LANE = "ingest"


class Outcome:
    RUNNING = "running"
    DONE = "done"
    SKIPPED = "unchanged"
    FAILED = "failed"
    MISSED = "missed"


@dataclass(frozen=True, slots=True)
class Schedule:
    schedule_id: int
    course_id: str
    spec: ScheduleSpec
    lane: str
    platform: str
    chat_id: str | None
    place_keys: tuple[str, ...]
    created_by: str
    created_at: datetime
    etag: str | None = None
    last_modified: str | None = None


@dataclass(frozen=True, slots=True)
class ScheduleRun:
    schedule_id: int
    due_at: datetime
    started_at: datetime
    finished_at: datetime | None
    outcome: str
    detail: str


@dataclass(frozen=True, slots=True)
class NewSchedule:
    course_id: str
    spec: ScheduleSpec
    platform: str
    created_by: str
    chat_id: str | None = None
    place_keys: tuple[str, ...] = ()

    @property
    def lane(self) -> str:
        return INGEST_LANE if self.spec.kind is ScheduleKind.INGEST else self.platform


def _schedule(row: ScheduleRow) -> Schedule:
    every = timedelta(seconds=row.every_s) if row.every_s is not None else None
    spec = ScheduleSpec(ScheduleKind(row.kind), row.target, every, row.weekday, row.at)
    return Schedule(
        row.schedule_id, row.course_id, spec, row.lane, row.platform, row.chat_id,
        tuple(json.loads(row.place_keys or "[]")), row.created_by, row.created_at, row.etag,
        row.last_modified,
    )  # fmt: skip


class ScheduleStore:
    def __init__(self, engine: AsyncEngine) -> None:
        self._engine = engine

    async def add(self, new: NewSchedule) -> Schedule:
        spec = new.spec
        row = ScheduleRow(
            course_id=new.course_id,
            kind=spec.kind.value,
            target=spec.target,
            every_s=int(spec.every.total_seconds()) if spec.every is not None else None,
            weekday=spec.weekday,
            at=spec.at,
            lane=new.lane,
            platform=new.platform,
            chat_id=new.chat_id,
            place_keys=json.dumps(list(new.place_keys)),
            created_by=new.created_by,
            created_at=datetime.now(UTC),
        )
        async with self._engine.begin() as connection:
            result = await connection.execute(
                ScheduleRow.__table__.insert().returning(ScheduleRow.schedule_id),  # type: ignore[attr-defined]
                [_values(row)],
            )
            schedule_id = result.scalar_one()
        found = await self.get(schedule_id)
        if found is None:  # inserted in the transaction above
            raise LookupError(schedule_id)
        return found

    async def get(self, schedule_id: int) -> Schedule | None:
        query = select(ScheduleRow).where(ScheduleRow.schedule_id == schedule_id)
        async with self._engine.connect() as connection:
            row = (await connection.execute(query)).one_or_none()
        return _schedule(row) if row else None  # type: ignore[arg-type]

    async def of_course(self, course_id: str) -> list[Schedule]:
        query = (
            select(ScheduleRow)
            .where(ScheduleRow.course_id == course_id)
            .order_by(ScheduleRow.schedule_id)
        )
        async with self._engine.connect() as connection:
            rows = (await connection.execute(query)).all()
        return [_schedule(row) for row in rows]  # type: ignore[arg-type]

    async def in_lanes(self, lanes: Sequence[str]) -> list[Schedule]:
        query = select(ScheduleRow).where(ScheduleRow.lane.in_(list(lanes)))
        async with self._engine.connect() as connection:
            rows = (await connection.execute(query)).all()
        return [_schedule(row) for row in rows]  # type: ignore[arg-type]

    async def remove(self, course_id: str, schedule_id: int) -> bool:
        """Remove a schedule of `course_id` (never another course's) with its runs."""
        async with self._engine.begin() as connection:
            result = await connection.execute(
                delete(ScheduleRow).where(
                    ScheduleRow.schedule_id == schedule_id, ScheduleRow.course_id == course_id
                )
            )
            if not result.rowcount:
                return False
            await connection.execute(
                delete(ScheduleRunRow).where(ScheduleRunRow.schedule_id == schedule_id)
            )
        return True

    async def remember_validators(
        self, schedule_id: int, etag: str | None, last_modified: str | None
    ) -> None:
        async with self._engine.begin() as connection:
            await connection.execute(
                update(ScheduleRow)
                .where(ScheduleRow.schedule_id == schedule_id)
                .values(etag=etag, last_modified=last_modified)
            )

    # Runs -------------------------------------------------------------------------------

    async def claim(
        self, schedule_id: int, due_at: datetime, runner: str, outcome: str = Outcome.RUNNING
    ) -> bool:
        """Record that `runner` does the run of `schedule_id` due at `due_at`; False when
        another replica claimed it first (or the schedule is gone)."""
        now = datetime.now(UTC)
        async with self._engine.begin() as connection:
            exists = await connection.execute(
                select(ScheduleRow.schedule_id).where(ScheduleRow.schedule_id == schedule_id)
            )
            if exists.one_or_none() is None:
                return False
            try:
                await connection.execute(
                    ScheduleRunRow.__table__.insert(),  # type: ignore[attr-defined]
                    [
                        {
                            "schedule_id": schedule_id,
                            "due_at": due_at,
                            "started_at": now,
                            "finished_at": None if outcome == Outcome.RUNNING else now,
                            "outcome": outcome,
                            "detail": "",
                            "runner": runner,
                        }
                    ],
                )
            except IntegrityError:
                return False
        return True

    async def finish(self, schedule_id: int, due_at: datetime, outcome: str, detail: str) -> None:
        async with self._engine.begin() as connection:
            await connection.execute(
                update(ScheduleRunRow)
                .where(ScheduleRunRow.schedule_id == schedule_id, ScheduleRunRow.due_at == due_at)
                .values(outcome=outcome, detail=detail[:500], finished_at=datetime.now(UTC))
            )

    async def runs(self, schedule_id: int, last: int = 3) -> list[ScheduleRun]:
        query = (
            select(ScheduleRunRow)
            .where(ScheduleRunRow.schedule_id == schedule_id)
            .order_by(ScheduleRunRow.due_at.desc())
            .limit(last)
        )
        async with self._engine.connect() as connection:
            rows = (await connection.execute(query)).all()
        return [
            ScheduleRun(r.schedule_id, r.due_at, r.started_at, r.finished_at, r.outcome, r.detail)
            for r in rows
        ]


def _values(row: ScheduleRow) -> dict[str, object]:
    return {
        column.key: getattr(row, column.key)
        for column in ScheduleRow.__table__.columns
        if column.key != "schedule_id"
    }
