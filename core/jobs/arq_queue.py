"""Jobs on Redis with arq: enqueued by the bots, run by `coursebot worker` processes (as many
as you like; each job is taken by one). Chosen over Celery because it is asyncio like the
rest of the bot: a job awaits the same core a bot does, with no thread or event loop of its
own.

A job is `run_job(kind, args)`; arq keeps it in the queue until it is finished, and marks the
one running it with a key that expires `job_timeout_s` + 10 s after it started: a worker that
dies (SIGKILL, a lost machine) leaves the job to be taken again once that key expires; one
that is stopped (SIGTERM) hands it back at once. A job runs at most `tries` times. Progress
goes into a short-lived key the waiting bot polls."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping
from typing import Any

import structlog
from arq import func
from arq.connections import ArqRedis, RedisSettings, create_pool
from arq.jobs import Job, JobStatus
from arq.worker import Worker

from core.jobs import JobHandler, JobRun, Progress, run_handler, unwrap
from core.metrics import Metrics

log = structlog.get_logger(__name__)

# How often a waiting bot looks at a job's progress and state: a progress message is edited
# at most every two seconds anyway (bot/common/progress.py).
POLL_S = 0.2
PROGRESS_TTL_S = 3600
# Results are kept for a redelivered message, or a waiter that reconnects, to find.
KEEP_RESULT_S = 3600


def queue_name(prefix: str) -> str:
    return f"{prefix}:jobs"


def _progress_key(prefix: str, job_id: str) -> str:
    return f"{prefix}:job-progress:{job_id}"


async def open_pool(url: str, prefix: str) -> ArqRedis:
    settings = RedisSettings.from_dsn(url)
    settings.conn_timeout = 3
    return await create_pool(settings, default_queue_name=queue_name(prefix))


class ArqJobs:
    """The queue as the bots use it: enqueue, then wait for the result."""

    def __init__(self, pool: ArqRedis, prefix: str) -> None:
        self._pool = pool
        self._prefix = prefix
        self._queue = queue_name(prefix)

    async def run(
        self,
        kind: str,
        args: Mapping[str, Any],
        *,
        key: str | None = None,
        on_progress: Progress | None = None,
    ) -> Any:
        # arq keeps jobs and results under the job's id alone, whatever the queue: the
        # deployment's prefix keeps another deployment's job of the same key apart.
        job_id = f"{self._prefix}:{key}" if key is not None else None
        job = await self._pool.enqueue_job(
            "run_job", kind, dict(args), _job_id=job_id, _queue_name=self._queue
        )
        if job is None:  # a job with this key exists (running, or its result kept): join it
            job = Job(job_id or "", self._pool, _queue_name=self._queue)
        log.info("job queued", job_id=job.job_id, job=kind)
        return unwrap(await self._wait(job, on_progress))

    async def _wait(self, job: Job, on_progress: Progress | None) -> Any:
        key = _progress_key(self._prefix, job.job_id)
        shown: bytes | None = None
        while True:
            # The state first, then the progress: a job's last report ("ready") is written
            # before it completes, so a finished job's last report is never missed.
            status = await job.status()
            if on_progress is not None:
                raw = await self._pool.get(key)
                if raw is not None and raw != shown:
                    shown = raw
                    await on_progress(json.loads(raw))
            if status in (JobStatus.complete, JobStatus.not_found):
                return await job.result(timeout=0, poll_delay=POLL_S)
            await asyncio.sleep(POLL_S)

    async def depth(self) -> int:
        return int(await self._pool.zcard(self._queue))

    async def close(self) -> None:
        await self._pool.aclose()


def worker(
    pool: ArqRedis,
    prefix: str,
    handlers: Mapping[str, JobHandler],
    metrics: Metrics,
    *,
    job_timeout_s: float,
    tries: int,
    concurrency: int,
) -> Worker:
    """An arq worker running `handlers` from the queue of `prefix`; signals are left to the
    runtime shell (which calls `close`: running jobs are handed back to the queue)."""

    async def run_job(ctx: dict[str, Any], kind: str, args: dict[str, Any]) -> Any:
        job_id = str(ctx["job_id"])
        progress = _progress_key(prefix, job_id)

        async def report(payload: dict[str, Any]) -> None:
            await pool.set(progress, json.dumps(payload), ex=PROGRESS_TTL_S)

        run = JobRun(job_id, int(ctx["job_try"]), report)
        return await run_handler(handlers, kind, args, run, metrics)

    return Worker(
        functions=[func(run_job, name="run_job", max_tries=tries)],
        redis_pool=pool,
        queue_name=queue_name(prefix),
        handle_signals=False,
        max_jobs=concurrency,
        job_timeout=job_timeout_s,
        max_tries=tries,
        keep_result=KEEP_RESULT_S,
        poll_delay=POLL_S,
    )
