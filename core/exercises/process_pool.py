"""A small pool of worker processes whose jobs have a hard time limit: a job that runs past it
has its process killed and replaced, so nothing keeps running in the background.

`concurrent.futures.ProcessPoolExecutor` cannot cancel a running job, so each worker is its
own single-process executor: killing one never disturbs the jobs of the others. Workers start
from a fork server (a clean process with `preload` already imported: a replacement is ready
in milliseconds) where the platform has one, else they are spawned; never forked from this
process, which has threads. Starting a worker blocks, so it happens in a thread.

Each worker watches the process that made the pool and exits when it is gone, however it
died: a `kill -9` runs no cleanup, and a worker left behind would wait forever for its next
job (it holds its own job queue open) and keep the fork server alive with it (every worker
holds the pipe whose end tells the fork server its owner is gone)."""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import multiprocessing
import os
import select
import signal
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from multiprocessing.context import BaseContext
from typing import Any, TypeVar

import structlog

log = structlog.get_logger(__name__)

T = TypeVar("T")

_KILL = getattr(signal, "SIGKILL", signal.SIGTERM)


class JobTimeoutError(TimeoutError):
    """A job ran past its time limit; its worker process was killed."""


def _ready(modules: tuple[str, ...], owner: int) -> int:
    """Runs in a new worker: start watching `owner` (the pool's process), import what its jobs
    need, then say who it is."""
    threading.Thread(target=_exit_with, args=(owner,), name="owner-watch", daemon=True).start()
    for name in modules:
        importlib.import_module(name)
    return os.getpid()


def _exit_with(owner: int) -> None:
    """Returns never: exits this process once `owner` has exited. The worker's parent is the
    fork server, not the owner, so a parent-death signal (PR_SET_PDEATHSIG) would fire only
    when the fork server goes, which itself waits for the workers. A pidfd is readable once
    its process exits (Linux 5.3); elsewhere the owner is polled."""
    try:
        handle = os.pidfd_open(owner)
    except ProcessLookupError:
        os._exit(1)
    except (AttributeError, OSError):  # no pidfds here: poll
        while _alive(owner):
            time.sleep(1.0)
    else:
        select.select([handle], [], [])
    os._exit(1)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # alive, someone else's
    return True


def default_context(preload: Sequence[str] = ()) -> BaseContext:
    if "forkserver" in multiprocessing.get_all_start_methods():
        context = multiprocessing.get_context("forkserver")
        # Process-wide, but only read when the fork server starts (with the first worker).
        # `__main__` is the default preload; kept (Python 3.11 skips it, later ones honour it).
        context.set_forkserver_preload(["__main__", *preload])
        return context
    return multiprocessing.get_context("spawn")


class _Worker:
    def __init__(self, context: BaseContext, preload: tuple[str, ...], start_timeout_s: float):
        self.executor = ProcessPoolExecutor(max_workers=1, mp_context=context)
        try:
            self.pid = self.executor.submit(_ready, preload, os.getpid()).result(
                timeout=start_timeout_s
            )
        except BaseException:
            self.executor.shutdown(wait=False, cancel_futures=True)
            raise

    def kill(self) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.kill(self.pid, _KILL)
        # The executor notices its dead process, fails nothing else and reaps it.
        self.executor.shutdown(wait=False, cancel_futures=True)


def _finished_cleanly(future: Future[Any] | None) -> bool:
    """The job ended (with a result or its own exception) and its process is fine."""
    if future is None or not future.done() or future.cancelled():
        return False
    return not isinstance(future.exception(), BrokenProcessPool)


class KillableProcessPool:
    """Up to `workers` processes, started on first use. `run` waits for a free worker, then
    gives the job `timeout_s` seconds. `close` (or `async with`) stops every worker."""

    def __init__(
        self,
        workers: int = 2,
        *,
        preload: Sequence[str] = (),
        context: BaseContext | None = None,
        start_timeout_s: float = 120.0,
    ) -> None:
        if workers < 1:
            raise ValueError("a pool needs at least one worker")
        self.workers = workers
        self.preload = tuple(preload)
        self.context = context or default_context(self.preload)
        self.start_timeout_s = start_timeout_s
        self._slots = asyncio.Semaphore(workers)
        self._idle: list[_Worker] = []
        self._busy: set[_Worker] = set()
        self._warming: list[asyncio.Task[None]] = []
        self._starting = 0
        self._closed = False

    @property
    def pids(self) -> tuple[int, ...]:
        """The worker processes alive now (idle or busy)."""
        return tuple(w.pid for w in (*self._idle, *self._busy))

    @property
    def busy(self) -> int:
        return len(self._busy)

    async def run(self, timeout_s: float, job: Callable[..., T], *args: Any) -> T:
        """`job(*args)` in a worker process; JobTimeoutError when it takes longer than
        `timeout_s` (its worker is killed). A cancelled caller kills its worker too."""
        async with self._slots:
            if self._closed:
                raise RuntimeError("the process pool is closed")
            worker = self._idle.pop() if self._idle else await self._start()
            self._busy.add(worker)
            submitted: Future[T] | None = None
            try:
                submitted = worker.executor.submit(job, *args)
                return await asyncio.wait_for(asyncio.wrap_future(submitted), timeout_s)
            except TimeoutError:
                raise JobTimeoutError(f"the job ran longer than {timeout_s} s") from None
            finally:
                self._busy.discard(worker)
                if _finished_cleanly(submitted) and not self._closed:
                    self._idle.append(worker)
                else:  # timed out, cancelled, or its process died: it may still be running
                    log.info("worker process stopped", pid=worker.pid, closed=self._closed)
                    worker.kill()

    def warm_up(self) -> None:
        """Starts the workers in the background, so the first job does not wait for them."""
        self._warming = [asyncio.create_task(self._warm_one()) for _ in range(self.workers)]

    async def _warm_one(self) -> None:
        async with self._slots:
            # Counting the ones starting too: a job's own start must not make a third of two.
            alive = len(self._idle) + len(self._busy) + self._starting
            if not self._closed and alive < self.workers:
                self._idle.append(await self._start())

    async def _start(self) -> _Worker:
        self._starting += 1
        try:
            return await asyncio.to_thread(
                _Worker, self.context, self.preload, self.start_timeout_s
            )
        finally:
            self._starting -= 1

    async def close(self) -> None:
        """Stops idle workers and kills busy ones; waits until they have exited."""
        self._closed = True
        await asyncio.gather(*self._warming, return_exceptions=True)
        for worker in list(self._busy):
            worker.kill()
        idle, self._idle = self._idle, []
        for worker in idle:
            await asyncio.to_thread(worker.executor.shutdown, wait=True, cancel_futures=True)

    async def __aenter__(self) -> KillableProcessPool:
        self.warm_up()
        return self

    async def __aexit__(self, *_: object) -> None:
        await self.close()
