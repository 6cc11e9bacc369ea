"""Background jobs (core/jobs): the same job tests pass in the process (the embedded default)
and on `coursebot worker` processes over the real Redis; a worker SIGKILLed in the middle of
an ingestion, and another started, leave the course's index complete: every document once,
with all its chunks, in one generation."""

from __future__ import annotations

import asyncio
import shutil
import signal
import subprocess
import uuid
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest
from qdrant_client import models
from support.paths import REDIS_URL, SAMPLE_COURSE
from support.processes import coursebot_env, free_port, sigterm_and_wait, start, wait_for

from bot.composition import open_assembly
from config import Settings
from core.context import Audience, Context, Member, Role
from core.index import fields as f
from core.index.tenant import course_filter
from core.jobs import JobRun
from core.jobs.arq_queue import ArqJobs, open_pool
from core.material import FileStatus, IngestReport
from core.requests import Place, Request

COURSE = "jobs101"
Submit = Callable[..., Awaitable[Any]]


def sample_files(folder: Path, copies: int = 1) -> list[list[str]]:
    """The sample course's files (`copies` of each, under their own names), as a job's
    `files` argument."""
    folder.mkdir(parents=True, exist_ok=True)
    files = []
    for source in sorted(SAMPLE_COURSE.rglob("*")):
        if not source.is_file() or source.name.startswith("."):
            continue
        # An exercise's id is its own: copies of the lectures and notes only.
        for copy in range(1 if source.name.endswith(".yaml") else copies):
            name = f"{source.stem}-{copy}{source.suffix}" if copy else source.name
            shutil.copy(source, folder / name)
            files.append([str(folder / name), name])
    return files


def study_set(replies: Any) -> Any:
    """The study set among a command's replies."""
    [found] = [reply for reply in replies if hasattr(reply, "set_id")]
    return found


def ingest_args(files: list[list[str]]) -> dict[str, Any]:
    return {"course": COURSE, "owner": None, "by": "test", "files": files}


def flashcards_args(user: str, topic: str) -> dict[str, Any]:
    member = Member(platform="test", user_id=user)
    place = Place(Audience.PRIVATE, chat_id=f"test:{user}")
    request = Request(member, place, f"test:{uuid.uuid4()}", course=COURSE)
    ctx = Context(
        platform="test", course_id=COURSE, user_id=user, roles=frozenset({Role.STUDENT}),
        chat_id=place.chat_id, audience=Audience.PRIVATE,
    )  # fmt: skip
    return {"name": "flashcards", "request": request, "ctx": ctx, "values": {"topic": topic}}


def job_settings(tmp_path: Path, prefix: str, jobs: str) -> Settings:
    return Settings(  # type: ignore[call-arg]
        _env_file=None,
        data_dir=tmp_path / "data",
        redis_url=REDIS_URL,
        redis_prefix=prefix,
        jobs=jobs,
    )


@asynccontextmanager
async def inprocess(tmp_path: Path, prefix: str) -> AsyncIterator[Submit]:
    async with open_assembly(job_settings(tmp_path, prefix, "inprocess")) as assembly:
        yield assembly.bot.jobs.run


@asynccontextmanager
async def worker_process(
    tmp_path: Path, prefix: str, **extra: str
) -> AsyncIterator[tuple[subprocess.Popen[str], str]]:
    port = free_port()
    env = coursebot_env(
        tmp_path / "data", port, COURSEBOT_REDIS_URL=REDIS_URL, COURSEBOT_REDIS_PREFIX=prefix,
        COURSEBOT_JOBS="redis", **extra,
    )  # fmt: skip
    process = start(["worker", "--jobs", "1"], env, tmp_path)
    try:
        await asyncio.to_thread(wait_for, f"http://127.0.0.1:{port}/readyz", process)
        yield process, f"http://127.0.0.1:{port}"
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()


@asynccontextmanager
async def on_worker(tmp_path: Path, prefix: str) -> AsyncIterator[Submit]:
    async with worker_process(tmp_path, prefix) as (process, base):
        jobs = ArqJobs(await open_pool(REDIS_URL, prefix), prefix)
        try:
            yield jobs.run
        finally:
            await jobs.close()
        ready = httpx.get(f"{base}/readyz").json()
        assert ready["checks"] == {"index": "ok", "database": "ok", "redis": "ok"}, ready
        metrics = httpx.get(f"{base}/metrics").text
        assert 'coursebot_jobs_total{kind="ingest",outcome="done"}' in metrics
        code, _out, err = await asyncio.to_thread(sigterm_and_wait, process)
        assert code == 0, err[-3000:]


ENGINES = {"inprocess": inprocess, "worker": on_worker}


@pytest.fixture
async def redis_keys(redis_prefix: str) -> AsyncIterator[str]:
    yield redis_prefix
    from redis.asyncio import Redis

    client = Redis.from_url(REDIS_URL)
    keys = [key async for key in client.scan_iter(f"{redis_prefix}:*")]
    if keys:
        await client.delete(*keys)
    await client.aclose()


@pytest.mark.parametrize("engine", sorted(ENGINES))
async def test_ingestion_and_generation_jobs_run_alike_in_process_and_on_a_worker(
    engine: str, tmp_path: Path, redis_keys: str
) -> None:
    files = sample_files(tmp_path / "upload")
    async with ENGINES[engine](tmp_path, redis_keys) as submit:
        seen: list[dict[str, Any]] = []

        async def progress(state: dict[str, Any]) -> None:
            seen.append(state)

        report = await submit("ingest", ingest_args(files), on_progress=progress)
        assert isinstance(report, IngestReport)
        assert {r.status for r in report.results} == {FileStatus.ADDED}, report.results
        assert len(report.results) == len(files)
        assert seen, "no progress was reported"
        assert seen[-1]["files_done"] == seen[-1]["files_total"] == len(files)
        # Idempotent: the same files again change nothing.
        again = await submit("ingest", ingest_args(files))
        assert {r.status for r in again.results} == {FileStatus.UNCHANGED}

        cards = study_set(await submit("command", flashcards_args("alice", "derivatives")))
        assert cards.set_id and cards.cards, cards
        # The same key joins the job instead of running it twice.
        args = flashcards_args("bob", "limits")
        first, second = await asyncio.gather(
            submit("command", args, key=f"{redis_keys}-same"),
            submit("command", args, key=f"{redis_keys}-same"),
        )
        assert study_set(first).set_id == study_set(second).set_id


async def test_a_retried_generation_serves_the_set_its_first_run_saved(
    tmp_path: Path, redis_keys: str
) -> None:
    async with open_assembly(job_settings(tmp_path, redis_keys, "inprocess")) as assembly:
        await assembly.bot.jobs.run("ingest", ingest_args(sample_files(tmp_path / "upload")))
        handlers = assembly.bot.job_handlers()

        async def ignore(_progress: dict[str, Any]) -> None:
            return None

        args = flashcards_args("alice", "derivatives")
        args["values"] = {"topic": "derivatives", "new": True}
        first = study_set(await handlers["command"](args, JobRun("j1", 1, ignore)))
        # The first run saved its set and died before answering: the retry finds the set
        # its job saved (even under --new), so the set is saved once.
        retried = study_set(await handlers["command"](args, JobRun("j1", 2, ignore)))
        assert retried.set_id == first.set_id
        # A first run of a new request with --new does make a new one.
        fresh = study_set(await handlers["command"](args, JobRun("j2", 1, ignore)))
        assert fresh.set_id != first.set_id


async def test_a_half_written_document_is_ingested_again_not_skipped(
    tmp_path: Path, redis_keys: str
) -> None:
    files = sample_files(tmp_path / "upload")
    async with open_assembly(job_settings(tmp_path, redis_keys, "inprocess")) as assembly:
        await assembly.bot.jobs.run("ingest", ingest_args(files))
        index = assembly.index
        # A writer killed mid-way: some of a document's chunks never reached the index.
        points, _ = await index.client.scroll(
            index.collection,
            scroll_filter=course_filter(
                COURSE,
                models.FieldCondition(
                    key=f.FILE_NAME, match=models.MatchValue(value="lecture-01-limits.pdf")
                ),
            ),
            limit=100,
        )
        assert len(points) > 2
        await index.delete_points([str(p.id) for p in points[: len(points) // 2]])
        report = await assembly.bot.jobs.run("ingest", ingest_args(files))
        statuses = {r.file_name: r.status for r in report.results}
        # Written again (its half is no earlier version: the file is "added" once more).
        assert statuses.pop("lecture-01-limits.pdf") is FileStatus.ADDED
        assert set(statuses.values()) == {FileStatus.UNCHANGED}
        assert await complete_documents(index) == {name for _, name in files}


async def complete_documents(index: Any) -> set[str]:
    """The course's documents, each checked to hold exactly its chunk count in one
    generation."""
    points: list[Any] = []
    offset = None
    while True:
        batch, offset = await index.client.scroll(
            index.collection, scroll_filter=course_filter(COURSE), limit=256, offset=offset,
            with_payload=models.PayloadSelectorInclude(
                include=[f.FILE_NAME, f.GENERATION, f.CHUNK_COUNT, f.CHUNK_INDEX]
            ),
        )  # fmt: skip
        points.extend(batch)
        if offset is None:
            break
    generations: dict[str, set[str]] = {}
    counts: Counter[str] = Counter()
    expected: dict[str, int] = {}
    for point in points:
        payload: Mapping[str, Any] = point.payload or {}
        name = payload[f.FILE_NAME]
        generations.setdefault(name, set()).add(payload[f.GENERATION])
        counts[name] += 1
        expected[name] = payload[f.CHUNK_COUNT]
    for name, seen in generations.items():
        assert len(seen) == 1, f"{name}: {len(seen)} generations"
        assert counts[name] == expected[name], f"{name}: {counts[name]} of {expected[name]}"
    return set(generations)


async def test_a_worker_killed_mid_ingestion_leaves_the_index_complete_after_a_restart(
    tmp_path: Path, redis_keys: str
) -> None:
    files = sample_files(tmp_path / "upload", copies=3)
    # A dead worker's job is taken again job_timeout + 10 s after it started.
    extra = {"COURSEBOT_JOB_TIMEOUT_S": "45"}
    jobs = ArqJobs(await open_pool(REDIS_URL, redis_keys), redis_keys)
    async with AsyncExitStack() as stack:
        first, _ = await stack.enter_async_context(worker_process(tmp_path, redis_keys, **extra))
        midway = asyncio.Event()
        done_at_kill: list[int] = []

        async def progress(state: dict[str, Any]) -> None:
            if 3 <= state["files_done"] < state["files_total"] and not midway.is_set():
                done_at_kill.append(state["files_done"])
                midway.set()

        waiting = asyncio.create_task(
            jobs.run("ingest", ingest_args(files), key=f"{redis_keys}-kill", on_progress=progress)
        )
        await asyncio.wait_for(midway.wait(), timeout=300)
        first.send_signal(signal.SIGKILL)
        await asyncio.to_thread(first.wait)
        assert not waiting.done()
        second, base = await stack.enter_async_context(
            worker_process(tmp_path, redis_keys, **extra)
        )
        report = await asyncio.wait_for(waiting, timeout=600)
        assert not report.failed, report.failed
        # The second run skipped what the first finished and did the rest.
        statuses = Counter(r.status for r in report.results)
        assert statuses[FileStatus.UNCHANGED] >= done_at_kill[0], statuses
        metrics = httpx.get(f"{base}/metrics").text
        assert 'coursebot_jobs_total{kind="ingest",outcome="done"} 1.0' in metrics
        code, _out, err = await asyncio.to_thread(sigterm_and_wait, second)
        assert code == 0, err[-3000:]
    await jobs.close()
    async with open_assembly(job_settings(tmp_path, redis_keys, "inprocess")) as assembly:
        assert await complete_documents(assembly.index) == {name for _, name in files}
