"""The expression workers shared fairly among people: one slow answer must not hold up the
class. Ten accounts answering with expressions that each ran to the 5 s limit made a cheap
answer of someone else's wait 16-19 s on two workers.

The rules, for jobs that name their owner (a person):

- one job per person at a time: a second one waits until the first is done (answers sent
  together are graded in turn), and beyond three a person's next one is refused
  (`GradingBusyError`, one line for the person);
- waiting jobs start by their owner's standing, then in order of arrival: a person whose
  recent jobs ran into their time limit (a strike each, for `strike_window_s`) waits behind
  everyone with fewer strikes;
- people with strikes hold at most all workers but one, get `contended_timeout_s` instead
  of the full limit, and are stopped first;
- while someone of the same or better standing waits, a job that has run for
  `contended_timeout_s` is stopped (its worker killed) and counts as a strike: nobody holds a
  worker long while others wait, yet an answer alone gets the full limit.

Only the order and the limits are decided here; the workers are a `KillableProcessPool`."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import time
from collections import deque
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import Any, TypeVar

import structlog

from core.errors import BadInputError
from core.exercises.process_pool import JobTimeoutError, KillableProcessPool

log = structlog.get_logger(__name__)

T = TypeVar("T")

# A person's jobs at once: one checked, two waiting behind it; a fourth is refused.
MAX_JOBS_PER_PERSON = 3


class GradingBusyError(BadInputError):
    """The person already has as many jobs waiting or running as one may."""

    def __init__(self) -> None:
        super().__init__(
            "I am still checking your previous answers: send this one again once they are graded."
        )


@dataclass(frozen=True, slots=True)
class Fairness:
    """How the workers are shared (COURSEBOT_GRADING_CONTENDED_TIMEOUT_S and
    COURSEBOT_GRADING_STRIKE_WINDOW_S)."""

    contended_timeout_s: float = 1.0
    strike_window_s: float = 600.0


@dataclass(eq=False, slots=True)
class _Job:
    owner: Hashable
    strikes: int
    arrival: int
    admitted: asyncio.Future[None]
    started: float = 0.0

    @property
    def rank(self) -> tuple[int, int]:
        return (self.strikes, self.arrival)


@dataclass(slots=True)
class _Turns:
    """A person's jobs take turns: `lock` is held by the one in the queue or on a worker."""

    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    jobs: int = 0


@dataclass(slots=True)
class _Standing:
    timeouts: deque[float] = field(default_factory=deque)


class FairPool:
    """`run(timeout_s, job, *args, owner=...)` like `KillableProcessPool.run`, with the rules
    above for jobs that name an owner (one without is nobody's: it only waits its turn in the
    queue)."""

    def __init__(
        self,
        pool: KillableProcessPool,
        fairness: Fairness | None = None,
        *,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.pool = pool
        self.fairness = fairness or Fairness()
        self.clock = clock
        self._arrivals = itertools.count()
        self._waiting: list[_Job] = []
        self._running: list[_Job] = []
        self._turns: dict[Hashable, _Turns] = {}
        self._standing: dict[Hashable, _Standing] = {}
        self._arrived = asyncio.Event()

    @property
    def workers(self) -> int:
        return self.pool.workers

    @property
    def waiting(self) -> int:
        """Jobs waiting for a worker."""
        return len(self._waiting)

    def strikes(self, owner: Hashable) -> int:
        """How many of `owner`'s jobs ran into their limit within the strike window."""
        standing = self._standing.get(owner)
        if standing is None:
            return 0
        horizon = self.clock() - self.fairness.strike_window_s
        while standing.timeouts and standing.timeouts[0] < horizon:
            standing.timeouts.popleft()
        if not standing.timeouts:
            del self._standing[owner]
            return 0
        return len(standing.timeouts)

    async def run(
        self, timeout_s: float, job: Callable[..., T], *args: Any, owner: str | None = None
    ) -> T:
        key: Hashable = owner if owner is not None else object()
        turns = self._turns.setdefault(key, _Turns())
        if turns.jobs >= MAX_JOBS_PER_PERSON:
            raise GradingBusyError
        turns.jobs += 1
        try:
            async with turns.lock:
                return await self._queued(key, timeout_s, job, args)
        finally:
            turns.jobs -= 1
            if not turns.jobs:
                del self._turns[key]

    async def _queued(
        self, key: Hashable, timeout_s: float, job: Callable[..., T], args: tuple[Any, ...]
    ) -> T:
        admitted = asyncio.get_running_loop().create_future()
        entry = _Job(key, self.strikes(key), next(self._arrivals), admitted)
        try:
            self._waiting.append(entry)
            self._dispatch()
            self._announce()
            await entry.admitted
            return await self._supervise(entry, timeout_s, job, args)
        finally:
            if entry in self._waiting:  # cancelled while waiting
                self._waiting.remove(entry)
            if entry in self._running:
                self._running.remove(entry)
            self._dispatch()

    async def _supervise(
        self, entry: _Job, timeout_s: float, job: Callable[..., T], args: tuple[Any, ...]
    ) -> T:
        short = self.fairness.contended_timeout_s
        limit = min(timeout_s, short) if entry.strikes else timeout_s
        entry.started = self.clock()
        running = asyncio.ensure_future(self.pool.run(limit, job, *args))
        try:
            while True:
                left = entry.started + short - self.clock()
                if left <= 0 and self._outranked(entry):
                    running.cancel()  # the pool kills its worker
                    await asyncio.wait({running})
                    log.info("grading job stopped for others waiting", strikes=entry.strikes)
                    raise JobTimeoutError(f"the job ran longer than {short} s while others waited")
                arrival = asyncio.ensure_future(self._arrived.wait())
                try:
                    done, _ = await asyncio.wait(
                        {running, arrival},
                        timeout=left if left > 0 else None,
                        return_when=asyncio.FIRST_COMPLETED,
                    )
                finally:
                    arrival.cancel()
                if running in done:
                    return running.result()
        except JobTimeoutError:
            self._strike(entry.owner)
            raise
        finally:
            if not running.done():  # the caller was cancelled
                running.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await asyncio.wait({running})

    def _outranked(self, entry: _Job) -> bool:
        """Someone of the same or better standing waits for a worker."""
        return any(other.strikes <= entry.strikes for other in self._waiting)

    def _dispatch(self) -> None:
        """Start waiting jobs on free workers, best standing first; people with strikes never
        hold every worker."""
        struck_share = max(1, self.workers - 1)
        for entry in sorted(self._waiting, key=lambda job: job.rank):
            if len(self._running) >= self.workers:
                break
            struck = sum(1 for job in self._running if job.strikes)
            if entry.strikes and struck >= struck_share:
                continue
            self._waiting.remove(entry)
            self._running.append(entry)
            if not entry.admitted.done():
                entry.admitted.set_result(None)

    def _announce(self) -> None:
        """Wake the running jobs to see whether the newcomer outranks them."""
        self._arrived.set()
        self._arrived = asyncio.Event()

    def _strike(self, owner: Hashable) -> None:
        if not isinstance(owner, str):  # nobody's jobs have no standing to lose
            return
        for someone in list(self._standing):  # forget strikes past the window
            self.strikes(someone)
        self._standing.setdefault(owner, _Standing()).timeouts.append(self.clock())
