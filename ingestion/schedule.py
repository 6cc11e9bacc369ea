"""Scheduled ingestion: re-read instructors' folders on an interval (APScheduler).

Ingestion is idempotent, so a run over unchanged folders only hashes files; changed or new
files are indexed and reported in the log."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

from apscheduler.schedulers.asyncio import AsyncIOScheduler

from ingestion.pipeline import IngestReport


@dataclass(frozen=True, slots=True)
class FolderWatch:
    course_id: str
    paths: tuple[Path, ...]
    every: timedelta


RunIngest = Callable[[FolderWatch], Awaitable[IngestReport]]


def build_scheduler(watches: list[FolderWatch], run: RunIngest) -> AsyncIOScheduler:
    """A scheduler with one job per watch, the first run at once. A run still going when the
    next is due is not doubled (max_instances=1, missed runs coalesced)."""
    scheduler = AsyncIOScheduler(timezone=UTC)
    for watch in watches:
        scheduler.add_job(
            run,
            "interval",
            args=[watch],
            seconds=watch.every.total_seconds(),
            next_run_time=datetime.now(UTC),
            max_instances=1,
            coalesce=True,
            id=f"ingest:{watch.course_id}",
        )
    return scheduler


def parse_interval(text: str) -> timedelta:
    """`90s`, `15m`, `2h`, `1d` -> timedelta; ValueError with a clear message otherwise."""
    units = {"s": 1, "m": 60, "h": 3600, "d": 86400}
    value, unit = text[:-1], text[-1:].lower()
    if unit not in units or not value.replace(".", "", 1).isdigit() or float(value) <= 0:
        raise ValueError(f"'{text}' is not an interval like 90s, 15m, 2h or 1d")
    return timedelta(seconds=float(value) * units[unit])
