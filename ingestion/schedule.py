"""Schedules run: APScheduler fires each course's schedules (`core/schedules`) from job
stores in the project database, so they outlive a restart, and exactly one replica does each
run.

- **Job stores.** One SQLAlchemy job store per lane, in the project database
  (`coursebot_jobs_ingest`, `coursebot_jobs_telegram`, …): ingestion may run in any process
  (`watch`, `worker`, either bot), a quiz poll or a reminder only in the bot of its platform,
  which can post it. Each process opens the lanes it serves.
- **Reconciling.** A schedule made anywhere (a chat on another replica, `coursebot schedule
  add`) is a row in `schedules`; every `poll` seconds each scheduler adds the job of a row
  its lanes lack, removes the job of a row that is gone, and looks at the stores again, so
  it also fires jobs another replica added.
- **Exactly once.** Two replicas may both see a run due (each reads the store before the
  other has moved the job on). The run is claimed by inserting (schedule, due time) into
  `schedule_runs`, unique: one insert wins, the other replica skips. A lock would only keep
  the two runs from overlapping; the claim keeps the second from happening at all.
- **Misfires.** Runs missed while no replica was up are coalesced into one. An ingestion
  missed by less than its interval (a day at most) runs when a replica is back; a quiz or a
  reminder more than an hour late is not posted (a Monday 9:00 quiz at 15:00 helps nobody)
  and is kept as `missed`.
- **Outcomes.** Every run's outcome (done, unchanged, failed with its one-line reason,
  missed) is kept in `schedule_runs` and shown by `/schedules`."""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
from collections.abc import Awaitable, Callable, Collection, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import structlog
from apscheduler.events import EVENT_JOB_EXECUTED, JobExecutionEvent
from apscheduler.executors.asyncio import AsyncIOExecutor
from apscheduler.job import Job
from apscheduler.jobstores.base import ConflictingIdError, JobLookupError
from apscheduler.jobstores.memory import MemoryJobStore
from apscheduler.jobstores.sqlalchemy import SQLAlchemyJobStore
from apscheduler.schedulers.asyncio import AsyncIOScheduler
from apscheduler.triggers.base import BaseTrigger
from apscheduler.triggers.cron import CronTrigger
from apscheduler.triggers.interval import IntervalTrigger
from sqlalchemy import create_engine
from sqlalchemy.engine import Engine
from sqlalchemy.exc import SQLAlchemyError

from core.commands import ParsedCommand
from core.context import Audience, Member
from core.course_bot import CourseBot
from core.errors import UserFacingError
from core.material import FileStatus, IngestReport
from core.metrics import Metrics
from core.replies import ErrorReply
from core.requests import Place, Request, Response
from core.schedules import (
    Outcome,
    Schedule,
    ScheduleKind,
    ScheduleStore,
    is_url,
)
from core.schedules.spec import DAILY
from core.uploads import upload_folder
from ingestion.pipeline import discover
from ingestion.url_source import UrlLimits, Validators, fetch

log = structlog.get_logger(__name__)

POST_GRACE = timedelta(hours=1)
SCHEDULED_QUESTIONS = 5
MAX_INGEST_GRACE = timedelta(days=1)
_LOCAL = "local"


# How a platform's bot posts a scheduled response in its chat (`request` is the one the
# response answers: the adapter may remember the quiz polls it sends).
Post = Callable[[Schedule, Request, Response], Awaitable[None]]


@dataclass(frozen=True, slots=True)
class RunnerOptions:
    timezone: str = "UTC"
    poll_s: float = 30.0
    # APScheduler reads its job stores on the event loop, blocking: every wait is bounded.
    timeout_s: float = 5.0
    # How long a stopping process lets runs under way finish (within the shell's drain).
    drain_s: float = 5.0
    spool: Path | None = None
    url_limits: UrlLimits = field(default_factory=lambda: UrlLimits(max_bytes=50 * 1024 * 1024))


def job_id(schedule_id: int) -> str:
    return f"schedule-{schedule_id}"


def _fire_elsewhere(schedule_id: int) -> None:
    """What a stored job names: the runs are `ScheduleRunner.fire`'s, through its
    executor, with the services of the process that runs them (a job store keeps only
    names, not live objects)."""
    raise RuntimeError(f"schedule {schedule_id} runs only through ScheduleRunner")


class _ScheduleExecutor(AsyncIOExecutor):
    """Runs a stored job by handing its schedule id and due time to `fire`, or, past its
    grace time, to `missed`."""

    def __init__(
        self,
        fire: Callable[[int, datetime], Awaitable[None]],
        missed: Callable[[int, datetime], Awaitable[None]],
    ) -> None:
        super().__init__()
        self._fire = fire
        self._missed = missed

    def _do_submit_job(self, job: Job, run_times: list[datetime]) -> None:
        async def run() -> list[JobExecutionEvent]:
            events = []
            for due in run_times:
                late = datetime.now(UTC) - due
                grace = job.misfire_grace_time
                if grace is not None and late > timedelta(seconds=grace):
                    await self._missed(job.args[0], due)
                    continue
                await self._fire(job.args[0], due)
                events.append(
                    JobExecutionEvent(EVENT_JOB_EXECUTED, job.id, job._jobstore_alias, due)
                )
            return events

        def done(task: asyncio.Task[list[JobExecutionEvent]]) -> None:
            self._pending_futures.discard(task)
            if task.cancelled():
                return
            error = task.exception()
            if error is not None:
                self._run_job_error(job.id, error, error.__traceback__)
            else:
                self._run_job_success(job.id, task.result())

        task = self._eventloop.create_task(run())
        task.add_done_callback(done)
        self._pending_futures.add(task)

    def running(self) -> set[asyncio.Task[list[JobExecutionEvent]]]:
        return {task for task in self._pending_futures if not task.done()}


class ScheduleRunner:
    """One process's scheduler over the lanes it serves. `posters` post in the chats of a
    platform (a bot passes its own); ingestion needs none."""

    def __init__(
        self,
        *,
        core: CourseBot,
        store: ScheduleStore,
        database_url: str,
        lanes: Collection[str],
        posters: Mapping[str, Post] | None = None,
        options: RunnerOptions | None = None,
        metrics: Metrics | None = None,
    ) -> None:
        self._core = core
        self._metrics = metrics
        self._store = store
        self._lanes = tuple(sorted(lanes))
        self._posters = dict(posters or {})
        self._options = options or RunnerOptions()
        self._zone = ZoneInfo(self._options.timezone)
        self._engine: Engine = _job_store_engine(database_url, self._options.timeout_s)
        self._name = f"{socket.gethostname()}:{os.getpid()}:{id(self):x}"
        self._scheduler = AsyncIOScheduler(timezone=UTC)
        self._synced = asyncio.Event()
        self._executor = _ScheduleExecutor(self.fire, self.missed)

    async def start(self) -> None:
        for lane in self._lanes:
            jobs = SQLAlchemyJobStore(engine=self._engine, tablename=f"coursebot_jobs_{lane}")
            await asyncio.to_thread(_create_table, jobs, self._engine)
            self._scheduler.add_jobstore(jobs, lane)
        self._scheduler.add_jobstore(MemoryJobStore(), _LOCAL)
        self._scheduler.add_executor(self._executor, "schedules")
        self._scheduler.start()
        # Reconciling also wakes the scheduler, which reads the job stores again.
        self._scheduler.add_job(
            self.sync,
            IntervalTrigger(seconds=self._options.poll_s),
            id="coursebot-sync",
            jobstore=_LOCAL,
            next_run_time=datetime.now(UTC),
            max_instances=1,
            coalesce=True,
        )
        log.info("schedules running", lanes=list(self._lanes), runner=self._name)

    async def stop(self) -> None:
        """No new runs; runs under way get `drain_s` to finish, then are cancelled (and
        kept as failed: "stopped before it finished")."""
        if self._scheduler.running:
            self._scheduler.pause()
            running = set(self._executor.running())
            if running:
                await asyncio.wait(running, timeout=self._options.drain_s)
            self._scheduler.shutdown(wait=False)
            if running:
                await asyncio.wait(running)
        await asyncio.to_thread(self._engine.dispose)

    async def sync(self) -> None:
        """Add the jobs of schedules this process's lanes lack; remove those of schedules
        that are gone."""
        try:
            schedules = await self._store.in_lanes(self._lanes)
            wanted = {job_id(s.schedule_id): s for s in schedules}
            for lane in self._lanes:
                held = await asyncio.to_thread(self._scheduler.get_jobs, lane)
                for job in held:
                    if job.id not in wanted:
                        await asyncio.to_thread(self._remove, job.id, lane)
                present = {job.id for job in held}
                for key, schedule in wanted.items():
                    if schedule.lane == lane and key not in present:
                        await asyncio.to_thread(self._add, schedule)
        except (SQLAlchemyError, OSError) as error:
            log.warning("schedules not synced", error=type(error).__name__)
        self._synced.set()

    async def synced(self) -> None:
        """Wait for a reconciliation (tests)."""
        self._synced.clear()
        self._scheduler.wakeup()
        await self._synced.wait()

    def _add(self, schedule: Schedule) -> None:
        trigger, grace, first = self._trigger(schedule)
        # ConflictingIdError: another replica added it first.
        with contextlib.suppress(ConflictingIdError):
            self._scheduler.add_job(
                "ingestion.schedule:_fire_elsewhere",
                trigger,
                args=[schedule.schedule_id],
                id=job_id(schedule.schedule_id),
                name=f"{schedule.course_id}: {schedule.spec.describe()}",
                jobstore=schedule.lane,
                executor="schedules",
                coalesce=True,
                max_instances=1,
                misfire_grace_time=int(grace.total_seconds()),
                **({"next_run_time": first} if first is not None else {}),
            )

    def _remove(self, key: str, lane: str) -> None:
        with contextlib.suppress(JobLookupError):  # another replica removed it first
            self._scheduler.remove_job(key, lane)

    def _trigger(self, schedule: Schedule) -> tuple[BaseTrigger, timedelta, datetime | None]:
        """The trigger, the misfire grace time, and the first run (None: the trigger's)."""
        spec = schedule.spec
        if spec.every is not None:
            # A new ingestion schedule runs at once: the instructor sees it work.
            grace = min(spec.every, MAX_INGEST_GRACE)
            return IntervalTrigger(seconds=spec.every.total_seconds()), grace, datetime.now(UTC)
        hour, minute = (spec.at or "08:00").split(":")
        day = "*" if spec.weekday in (None, DAILY) else spec.weekday
        trigger = CronTrigger(
            day_of_week=day, hour=int(hour), minute=int(minute), timezone=self._zone
        )
        return trigger, POST_GRACE, None

    # Runs -----------------------------------------------------------------------------

    async def missed(self, schedule_id: int, due: datetime) -> None:
        if await self._store.claim(schedule_id, due, self._name, Outcome.MISSED):
            log.warning("schedule run missed", schedule=schedule_id, due=due.isoformat())
            if self._metrics is not None:
                self._metrics.schedule_runs.labels("any", Outcome.MISSED).inc()

    async def fire(self, schedule_id: int, due: datetime) -> None:
        """Do the run of `schedule_id` due at `due`, unless another replica claimed it."""
        if not await self._store.claim(schedule_id, due, self._name):
            return
        schedule = await self._store.get(schedule_id)
        if schedule is None:  # removed a moment ago
            return
        log.info("schedule run", schedule=schedule_id, course=schedule.course_id)
        try:
            outcome, detail = await self._run(schedule, due)
        except asyncio.CancelledError:
            stopped = self._store.finish(
                schedule_id, due, Outcome.FAILED, "stopped before it finished"
            )
            await asyncio.shield(stopped)
            raise
        except UserFacingError as error:
            outcome, detail = Outcome.FAILED, str(error)
        except Exception:
            log.exception("schedule run failed", schedule=schedule_id)
            outcome, detail = Outcome.FAILED, "an internal error (see the log)"
        await self._store.finish(schedule_id, due, outcome, detail)
        if self._metrics is not None:
            self._metrics.schedule_runs.labels(schedule.spec.kind.value, outcome).inc()

    async def _run(self, schedule: Schedule, due: datetime) -> tuple[str, str]:
        kind = schedule.spec.kind
        if kind is ScheduleKind.INGEST:
            with self._metrics.stage("ingest") if self._metrics else contextlib.nullcontext():
                if is_url(schedule.spec.target):
                    return await self._ingest_url(schedule)
                return await self._ingest_folder(schedule)
        post = self._posters.get(schedule.platform)
        if post is None:  # this process serves the lane, so it has the platform's bot
            return Outcome.FAILED, f"no {schedule.platform} bot here to post it"
        request = self._request(schedule, due)
        if kind in (ScheduleKind.QUIZ, ScheduleKind.DIGEST):
            response = await self._core.handle(request)
            refused = [r.text for r in response.replies if isinstance(r, ErrorReply)]
            if refused:
                return Outcome.FAILED, " ".join(refused)
            await post(schedule, request, response)
            if kind is ScheduleKind.DIGEST:
                return Outcome.DONE, "the week's digest sent"
            return Outcome.DONE, f"quiz on {schedule.spec.target} posted"
        today = due.astimezone(self._zone).date()
        notice = await self._core.exam_reminders(schedule.course_id, today)
        if notice is None:
            return Outcome.DONE, "no exam in 7 days or tomorrow"
        await post(schedule, request, Response.of(notice))
        return Outcome.DONE, notice.text.splitlines()[0]

    def _request(self, schedule: Schedule, due: datetime) -> Request:
        """The scheduled command as its instructor's, in the place they scheduled it in:
        the core checks their role and the place's course again at every run."""
        keys = schedule.place_keys
        # A new set each time, short enough for a group's feed; a digest, the week's.
        command = (
            ParsedCommand("digest", "week")
            if schedule.spec.kind is ScheduleKind.DIGEST
            else ParsedCommand("quiz", f"{schedule.spec.target} {SCHEDULED_QUESTIONS} --new")
        )
        return Request(
            member=Member(platform=schedule.platform, user_id=schedule.created_by),
            place=Place(
                # A direct chat (no binding keys) is read by its person alone.
                Audience.SHARED if keys else Audience.PRIVATE,
                chat_id=schedule.chat_id,
                lookup=keys,
                bind_key=keys[0] if keys else None,
            ),
            message_id=f"schedule:{schedule.schedule_id}:{due:%Y%m%dT%H%M%S}",
            command=command,
            # A digest is of the course it was scheduled for, whichever course the person's
            # direct messages are about now (their roles there are checked again).
            course=schedule.course_id if schedule.spec.kind is ScheduleKind.DIGEST else None,
        )

    async def _ingest_folder(self, schedule: Schedule) -> tuple[str, str]:
        sources, missing = discover([Path(schedule.spec.target)])
        if not sources and missing:
            return Outcome.FAILED, missing[0].error or "the folder is not there"
        # A job: a worker's with COURSEBOT_JOBS=redis (the folder mounted there too).
        report = await self._core.ingest_job(
            schedule.course_id, sources, by=f"schedule:{schedule.schedule_id}"
        )
        return _outcome(report)

    async def _ingest_url(self, schedule: Schedule) -> tuple[str, str]:
        have = Validators(schedule.etag, schedule.last_modified)
        # Under the spool, which workers share: the ingestion is a job, maybe a worker's.
        with upload_folder(self._options.spool) as folder:
            limits = self._options.url_limits
            fetched = await fetch(schedule.spec.target, folder, have, limits)
            if fetched is None:
                return Outcome.SKIPPED, "not modified (the server said so)"
            sources, _ = discover([fetched.path])
            report = await self._core.ingest_job(
                schedule.course_id, sources, by=f"schedule:{schedule.schedule_id}"
            )
        if not report.failed:
            await self._store.remember_validators(
                schedule.schedule_id, fetched.validators.etag, fetched.validators.last_modified
            )
        return _outcome(report)


def _outcome(report: IngestReport) -> tuple[str, str]:
    counts: dict[FileStatus, int] = {}
    for result in report.results:
        counts[result.status] = counts.get(result.status, 0) + 1
    detail = ", ".join(f"{n} {status.value}" for status, n in counts.items()) or "no files"
    if report.failed:
        first = report.failed[0]
        return Outcome.FAILED, f"{detail} ({first.file_name}: {first.error})"
    changed = counts.get(FileStatus.ADDED, 0) + counts.get(FileStatus.REPLACED, 0)
    return (Outcome.DONE if changed else Outcome.SKIPPED), detail


def _job_store_engine(database_url: str, timeout_s: float) -> Engine:
    """A blocking engine for the job stores whose every wait is bounded: APScheduler queries
    them on the event loop, so a stalled database must fail the query, not hold the bot."""
    if database_url.startswith("postgresql"):
        milliseconds = int(timeout_s * 1000)
        return create_engine(
            database_url,
            pool_timeout=timeout_s,
            connect_args={
                "connect_timeout": max(1, int(timeout_s)),
                "options": f"-c statement_timeout={milliseconds} -c lock_timeout={milliseconds}",
            },
        )
    # Each job-store statement commits on its own: two replicas' deferred transactions that
    # both read, then both write, deadlock in SQLite ("database is locked" at once, whatever
    # the busy timeout), which stalled both schedulers until the next wake-up.
    return create_engine(
        database_url, connect_args={"timeout": timeout_s}, isolation_level="AUTOCOMMIT"
    )


def _create_table(store: SQLAlchemyJobStore, engine: Engine) -> None:
    """The job store's table, made before two replicas starting together both try."""
    try:
        store.jobs_t.create(engine, checkfirst=True)
    except SQLAlchemyError:
        # The other replica created it between the check and the create.
        store.jobs_t.create(engine, checkfirst=True)
