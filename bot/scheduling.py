"""The schedules' runner in a long-running command (`telegram`, `discord`, `watch`): which
lanes it serves and how its platform posts, wired from the settings."""

from __future__ import annotations

from collections.abc import AsyncIterator, Collection, Mapping
from contextlib import asynccontextmanager

from config import Settings
from core.course_bot import CourseBot
from core.database import create_engine, database_url_for, job_store_url
from core.metrics import Metrics
from core.schedules import INGEST_LANE, ScheduleStore
from ingestion.schedule import Post, RunnerOptions, ScheduleRunner
from ingestion.url_source import UrlLimits


def runner_options(settings: Settings, poll_s: float = 30.0) -> RunnerOptions:
    return RunnerOptions(
        timezone=settings.schedule_timezone,
        poll_s=poll_s,
        timeout_s=settings.service_timeout_s,
        spool=settings.data_dir / "spool",
        url_limits=UrlLimits(
            max_bytes=settings.max_upload_bytes, allow_private=settings.fetch_private_hosts
        ),
    )


@asynccontextmanager
async def running_schedules(
    settings: Settings,
    core: CourseBot,
    *,
    posters: Mapping[str, Post] | None = None,
    lanes: Collection[str] = (INGEST_LANE,),
    poll_s: float = 30.0,
    metrics: Metrics | None = None,
) -> AsyncIterator[ScheduleRunner]:
    """The schedules of `lanes` (and of the posters' platforms) run for the block."""
    url = database_url_for(settings)
    engine = create_engine(url, settings.service_timeout_s)
    runner = ScheduleRunner(
        core=core,
        store=ScheduleStore(engine),
        database_url=job_store_url(url),
        lanes={*lanes, *(posters or {})},
        posters=posters,
        options=runner_options(settings, poll_s),
        metrics=metrics,
    )
    try:
        await runner.start()
        yield runner
    finally:
        await runner.stop()
        await engine.dispose()
