"""Worker processes a test drives by hand: each job waits, in process, until the test lets
it finish or run out of time, so the order in which jobs reach the workers is observable
without timing anything."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from core.exercises.process_pool import JobTimeoutError


@dataclass(eq=False)
class Call:
    args: tuple[Any, ...]
    outcome: asyncio.Future[bool] = field(default_factory=asyncio.Future)
    stopped: bool = False  # its worker was killed (cancelled) before an outcome

    @property
    def text(self) -> Any:
        return self.args[-1]

    def finish(self) -> None:
        self.outcome.set_result(True)

    def time_out(self) -> None:
        self.outcome.set_result(False)


class GatedWorkers:
    """Stands in for `KillableProcessPool`: `calls` lists the jobs in the order they reached
    a worker, `running` those still on one."""

    def __init__(self, workers: int) -> None:
        self.workers = workers
        self.calls: list[Call] = []
        self.limits: list[float] = []

    @property
    def running(self) -> list[Call]:
        return [c for c in self.calls if not c.outcome.done() and not c.stopped]

    async def run(self, timeout_s: float, job: Callable[..., Any], *args: Any) -> Any:
        assert len(self.running) < self.workers, "more jobs than workers"
        call = Call(args)
        self.calls.append(call)
        self.limits.append(timeout_s)
        try:
            finished = await call.outcome
        except asyncio.CancelledError:
            call.stopped = True
            raise
        if not finished:
            raise JobTimeoutError(f"the job ran longer than {timeout_s} s")
        return job(*args)

    async def reached(self, count: int) -> None:
        """Until `count` jobs have reached a worker (a guard against hanging, not a measure)."""
        for _ in range(2000):
            if len(self.calls) >= count:
                return
            await asyncio.sleep(0.005)
        raise AssertionError(f"{len(self.calls)} jobs reached a worker, not {count}")

    def warm_up(self) -> None:
        pass

    async def close(self) -> None:
        for call in self.running:
            call.time_out()
