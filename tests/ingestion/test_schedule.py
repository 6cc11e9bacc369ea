"""Schedules run by two replicas on one database: a schedule made from the chat fires once
per due time, and goes on firing after both replicas restart (its job is kept in the job
store, not made again)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web
from sqlalchemy import create_engine, text
from support.databases import BACKENDS, migrated_database

from bot.composition import open_core
from bot.scheduling import running_schedules
from config import Settings
from core.commands import ParsedCommand
from core.context import Audience, Member
from core.course_bot import CourseBot
from core.database import create_engine as create_async_engine
from core.database import database_url_for, job_store_url
from core.replies import Notice
from core.requests import Place, Request
from core.schedules import Outcome, ScheduleRun, ScheduleStore

TEACHER = Member(platform="telegram", user_id="telegram:42")


@pytest.fixture(params=BACKENDS)
def server_url(request: pytest.FixtureRequest, tmp_path: Path) -> str | None:
    """A PostgreSQL database; None for the embedded default (SQLite under the data dir)."""
    return None if request.param == "sqlite" else migrated_database(request, tmp_path, "s")


@pytest.fixture
def course_folders(tmp_path: Path) -> Path:
    root = tmp_path / "courses"
    (root / "week1").mkdir(parents=True)
    (root / "week1" / "notes.md").write_text("# Limits\n\nA limit is approached.\n")
    return root


@pytest.fixture
def schedule_settings(tmp_path: Path, server_url: str | None, course_folders: Path) -> Settings:
    return Settings(  # type: ignore[call-arg]
        _env_file=None,
        data_dir=tmp_path / "data",
        database_url=server_url,
        course_roles={"sample": {"instructor": ["telegram:42"]}},
        schedule_folders=course_folders,
        schedule_min_interval_s=1,
        # The URL test's server listens on 127.0.0.1.
        fetch_private_hosts=True,
    )


@pytest.fixture
def database_url(schedule_settings: Settings) -> str:
    return database_url_for(schedule_settings)


@pytest.fixture
async def core(schedule_settings: Settings, bundled_model: None) -> AsyncIterator[CourseBot]:
    async with open_core(schedule_settings) as opened:
        yield opened


def said(line: str, number: int = 1) -> Request:
    return Request(
        member=TEACHER,
        place=Place(Audience.PRIVATE, chat_id="42"),
        message_id=f"telegram:42:{number}",
        command=ParsedCommand("schedule", line),
        course="sample",
    )


async def runs_of(database_url: str, schedule_id: int) -> list[ScheduleRun]:
    engine = create_async_engine(database_url)
    try:
        return await ScheduleStore(engine).runs(schedule_id, last=1000)
    finally:
        await engine.dispose()


async def wait_for_runs(database_url: str, schedule_id: int, count: int) -> list[ScheduleRun]:
    for _ in range(300):
        runs = await runs_of(database_url, schedule_id)
        if len([r for r in runs if r.finished_at is not None]) >= count:
            return runs
        await asyncio.sleep(0.1)
    raise AssertionError(f"fewer than {count} runs: {runs}")


def stored_jobs(database_url: str) -> int:
    engine = create_engine(job_store_url(database_url))
    try:
        with engine.connect() as connection:
            return int(
                connection.execute(text("SELECT count(*) FROM coursebot_jobs_ingest")).scalar_one()
            )
    finally:
        engine.dispose()


async def test_a_chat_schedule_survives_a_restart_of_two_replicas_and_fires_once_per_run(
    core: CourseBot, schedule_settings: Settings, database_url: str, monkeypatch: Any
) -> None:
    ingested: list[str] = []
    real_ingest = core.ingest_files

    async def counting(course: str, *args: Any, **kwargs: Any) -> Any:
        ingested.append(course)
        return await real_ingest(course, *args, **kwargs)

    monkeypatch.setattr(core, "ingest_files", counting)
    response = await core.handle(said("ingest week1 every 1s"))
    [made] = response.replies
    assert isinstance(made, Notice) and made.text.startswith("Schedule #1: ingest"), made

    async def two_replicas(until: int) -> list[ScheduleRun]:
        async with (
            running_schedules(schedule_settings, core, poll_s=0.2),
            running_schedules(schedule_settings, core, poll_s=0.2),
        ):
            return await wait_for_runs(database_url, 1, until)

    first = await two_replicas(until=3)
    # Both replicas are gone; the job is still in the job store.
    assert stored_jobs(database_url) == 1
    after = await two_replicas(until=len(first) + 3)
    await asyncio.sleep(0.5)  # a run a stopping replica had begun has finished
    runs = await runs_of(database_url, 1)

    # One execution per recorded run: of two replicas seeing a run due, one did it. A run a
    # busy machine reached past its one-second grace is kept as missed and not executed.
    executed = [run for run in runs if run.outcome != Outcome.MISSED]
    assert len(ingested) == len(executed) >= len(after) - 1
    assert len({run.due_at for run in runs}) == len(runs) >= len(after)
    assert {run.outcome for run in executed} <= {Outcome.DONE, Outcome.SKIPPED}
    # The first run added the notes; the later ones found them unchanged.
    assert executed[-1].outcome == Outcome.DONE and executed[0].outcome == Outcome.SKIPPED
    # The restarted replicas went on with the one stored job, not a second one.
    assert stored_jobs(database_url) == 1


async def test_a_removed_schedule_stops_firing_on_every_replica(
    core: CourseBot, schedule_settings: Settings, database_url: str
) -> None:
    await core.handle(said("ingest week1 every 1s"))
    async with (
        running_schedules(schedule_settings, core, poll_s=0.2) as one,
        running_schedules(schedule_settings, core, poll_s=0.2) as two,
    ):
        await wait_for_runs(database_url, 1, 1)
        removed = await core.handle(
            Request(TEACHER, Place(Audience.PRIVATE, chat_id="42"), "telegram:42:9",
                    command=ParsedCommand("unschedule", "1"), course="sample")
        )  # fmt: skip
        assert removed.replies == (Notice("Schedule #1 removed."),)
        await one.synced()
        await two.synced()
        assert stored_jobs(database_url) == 0
    assert await runs_of(database_url, 1) == []


async def test_two_replicas_firing_the_same_due_run_together_do_it_once(
    core: CourseBot, schedule_settings: Settings, database_url: str, monkeypatch: Any
) -> None:
    # Each replica's scheduler may read the job before the other has moved it on: both
    # then fire the same due run. The claim lets one of them do it.
    ingested: list[str] = []
    real_ingest = core.ingest_files

    async def counting(course: str, *args: Any, **kwargs: Any) -> Any:
        ingested.append(course)
        return await real_ingest(course, *args, **kwargs)

    monkeypatch.setattr(core, "ingest_files", counting)
    await core.handle(said("ingest week1 every 1d"))
    async with (
        running_schedules(schedule_settings, core, poll_s=60) as one,
        running_schedules(schedule_settings, core, poll_s=60) as two,
    ):
        await wait_for_runs(database_url, 1, 1)  # the first run, at once
        due = datetime(2030, 1, 1, 9, 0, tzinfo=UTC)
        await asyncio.gather(*(runner.fire(1, due) for runner in (one, two, one, two)))
    runs = await runs_of(database_url, 1)
    assert runs[0].due_at == due
    assert len(ingested) == len(runs) == 2


async def test_a_student_and_another_chats_admin_are_refused_in_the_core(core: CourseBot) -> None:
    for who in (
        Member(platform="telegram", user_id="telegram:501"),
        Member(platform="telegram", user_id="telegram:900", chat_admin=True),
    ):
        response = await core.handle(
            Request(who, Place(Audience.PRIVATE, chat_id=who.user_id), f"{who.user_id}:1",
                    command=ParsedCommand("schedule", "ingest week1 every 1d"), course="sample")
        )  # fmt: skip
        assert [r.text for r in response.replies] == [  # type: ignore[attr-defined]
            "Sorry, only a course instructor can schedule ingestion, quizzes and reminders."
        ]


async def test_a_scheduled_url_is_ingested_then_skipped_while_the_server_says_unchanged(
    core: CourseBot, schedule_settings: Settings, database_url: str
) -> None:
    answered: list[int] = []

    async def syllabus(request: web.Request) -> web.StreamResponse:
        if request.headers.get("If-None-Match") == '"v1"':
            answered.append(304)
            return web.Response(status=304)
        answered.append(200)
        body = "# Calculus syllabus\n\nThe final exam is on 2026-12-14 in Hall A.\n"
        return web.Response(text=body, content_type="text/markdown", headers={"ETag": '"v1"'})

    app = web.Application()
    app.router.add_get("/syllabus.md", syllabus)
    server = web.AppRunner(app)
    await server.setup()
    site = web.TCPSite(server, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    try:
        made = await core.handle(said(f"ingest http://127.0.0.1:{port}/syllabus.md every 1d"))
        assert made.replies[0].text.startswith("Schedule #1: ingest http://")  # type: ignore[union-attr]
        async with running_schedules(schedule_settings, core, poll_s=60) as runner:
            await wait_for_runs(database_url, 1, 1)
            await runner.fire(1, datetime(2030, 1, 2, tzinfo=UTC))
    finally:
        await server.cleanup()
    runs = await runs_of(database_url, 1)
    assert [(r.outcome, r.detail) for r in runs] == [
        (Outcome.SKIPPED, "not modified (the server said so)"),
        (Outcome.DONE, "1 added"),
    ]
    assert answered == [200, 304]


async def test_a_run_cut_short_by_a_stopping_replica_is_kept_as_failed(
    core: CourseBot, schedule_settings: Settings, database_url: str, monkeypatch: Any
) -> None:
    started = asyncio.Event()

    async def never_ends(*_args: Any, **_kwargs: Any) -> Any:
        started.set()
        await asyncio.Event().wait()

    monkeypatch.setattr(core, "ingest_job", never_ends)
    await core.handle(said("ingest week1 every 1d"))
    async with running_schedules(schedule_settings, core, poll_s=0.2):
        await asyncio.wait_for(started.wait(), timeout=30)
    # The stop gave it its drain time, then cut it short: the run says so.
    [run] = await runs_of(database_url, 1)
    assert (run.outcome, run.detail) == (Outcome.FAILED, "stopped before it finished")
    assert run.finished_at is not None


async def test_a_weekly_digest_is_scheduled_in_a_direct_message_and_sent_there(
    core: CourseBot, schedule_settings: Settings
) -> None:
    group = Request(
        member=TEACHER,
        place=Place(Audience.SHARED, chat_id="-100", lookup=("telegram:chat:-100",)),
        message_id="telegram:-100:1",
        command=ParsedCommand("schedule", "digest mon 09:00"),
        course="sample",
    )
    [refused] = (await core.handle(group)).replies
    assert "direct message" in refused.text  # type: ignore[union-attr]
    [made] = (await core.handle(said("digest mon 09:00"))).replies
    assert isinstance(made, Notice) and "the week's digest, mon 09:00" in made.text
    posted: list[tuple[str | None, list[Any]]] = []

    async def post(schedule: Any, request: Request, response: Any) -> None:
        posted.append((schedule.chat_id, list(response.replies)))

    async with running_schedules(
        schedule_settings, core, posters={"telegram": post}, poll_s=0.1
    ) as runner:
        await runner.fire(1, datetime(2030, 1, 7, 9, tzinfo=UTC))
    [(chat, replies)] = posted
    assert chat == "42"
    assert "Digest for sample, the last week" in replies[0].text
    assert {r.file_name for r in replies[1:]} == {"digest.png", "digest.csv"}
