"""Background jobs: heavy work (ingesting uploads and folders, lessons, model-backed
generation) handed to a queue and awaited, its progress passed on as it comes.

One interface, two engines: `InProcessJobs` runs a job in this process (the embedded
default: `make demo` needs nothing more), `ArqJobs` (core/jobs/arq_queue.py) puts it on
Redis, where any `coursebot worker` takes it; a worker that dies mid-job leaves it to be
run again. So a job's effects must be idempotent: re-ingesting a file replaces its chunks
(unchanged files are skipped), and what a job saves (a study set, a lesson or its edit, a
written exercise) carries the job's id, one per job: a run after one that saved finds that
set and answers with it (`core.generation.MaterialStore.saved_by`), so a set is saved once
whichever run saved it. A job's id is its key when it has one (the request's), else one
never used before: an id that came back after a restart would find another job's set."""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

import structlog

from core.errors import BadInputError
from core.metrics import Metrics

log = structlog.get_logger(__name__)

Progress = Callable[[dict[str, Any]], Awaitable[None]]


@dataclass(frozen=True, slots=True)
class JobRun:
    """One run of a job as its handler sees it: which try this is, and where to report
    progress (a JSON-able mapping, passed to whoever waits for the job)."""

    job_id: str
    attempt: int
    report: Progress


@dataclass(frozen=True, slots=True)
class Refused:
    """A job refused what it was asked (a user-facing error, said in one line): carried
    back as a value, since exceptions do not all survive the trip through the queue."""

    message: str


JobHandler = Callable[[Mapping[str, Any], JobRun], Awaitable[Any]]


class JobQueue(Protocol):
    async def run(
        self,
        kind: str,
        args: Mapping[str, Any],
        *,
        key: str | None = None,
        on_progress: Progress | None = None,
    ) -> Any:
        """Run a `kind` job with `args` and return its result; `key` makes it unique (the
        same key while it runs or its result is kept joins that job, it is not run twice).
        A `Refused` result is raised as a BadInputError."""

    async def depth(self) -> int:
        """Jobs waiting to be taken."""

    async def close(self) -> None: ...


def unwrap(result: Any) -> Any:
    if isinstance(result, Refused):
        raise BadInputError(result.message)
    return result


async def run_handler(
    handlers: Mapping[str, JobHandler],
    kind: str,
    args: Mapping[str, Any],
    run: JobRun,
    metrics: Metrics,
) -> Any:
    """Run one job's handler, counted by outcome (done, refused, failed, retried: a run
    cancelled by a stopping worker is run again)."""
    from core.errors import UserFacingError

    handler = handlers.get(kind)
    if handler is None:
        raise ValueError(f"no handler for job kind {kind!r}")
    started = time.perf_counter()
    outcome = "failed"
    with structlog.contextvars.bound_contextvars(job_id=run.job_id, job=kind, attempt=run.attempt):
        try:
            result = await handler(args, run)
            outcome = "done"
            return result
        except UserFacingError as error:
            outcome = "refused"
            return Refused(str(error))
        except asyncio.CancelledError:
            outcome = "retried"
            raise
        finally:
            metrics.stage_seconds.labels(f"job:{kind}").observe(time.perf_counter() - started)
            metrics.jobs.labels(kind, outcome).inc()
            log.info("job ended", outcome=outcome, seconds=round(time.perf_counter() - started, 3))


class InProcessJobs:
    """Jobs run in this process, as tasks: the same handlers, the same interface. A job with
    a key already running is joined, not started again."""

    def __init__(self, handlers: Mapping[str, JobHandler], metrics: Metrics) -> None:
        self._handlers = handlers
        self._metrics = metrics
        self._running: dict[str, asyncio.Task[Any]] = {}
        self._listeners: dict[str, list[Progress]] = {}

    async def run(
        self,
        kind: str,
        args: Mapping[str, Any],
        *,
        key: str | None = None,
        on_progress: Progress | None = None,
    ) -> Any:
        job_id = key or f"local-{uuid.uuid4().hex}"
        listeners = self._listeners.setdefault(job_id, [])
        if on_progress is not None:
            listeners.append(on_progress)
        task = self._running.get(job_id)
        if task is None:

            async def report(progress: dict[str, Any]) -> None:
                for listener in list(self._listeners.get(job_id, ())):
                    await listener(progress)

            run = JobRun(job_id, 1, report)
            task = asyncio.create_task(run_handler(self._handlers, kind, args, run, self._metrics))
            self._running[job_id] = task
            task.add_done_callback(lambda _: self._forget(job_id))
        # Shielded: a waiter that goes away (its request cancelled) does not stop the job.
        return unwrap(await asyncio.shield(task))

    def _forget(self, job_id: str) -> None:
        self._running.pop(job_id, None)
        self._listeners.pop(job_id, None)

    async def depth(self) -> int:
        return 0  # nothing waits: every job starts when it is asked for

    async def close(self) -> None:
        """Cancel what still runs (the process is stopping; nothing would carry it on)."""
        tasks = list(self._running.values())
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
