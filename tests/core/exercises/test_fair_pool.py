"""The expression workers shared fairly: one job per person at a time (the next ones wait,
a fourth is refused), people whose answers
ran into the time limit wait behind everyone else and never hold every worker, and nobody
holds a worker past the contended limit while someone of the same standing waits. The
workers are driven by hand (`GatedWorkers`): what is checked is the order, never a time."""

from __future__ import annotations

import asyncio

import pytest
from support.gated_workers import GatedWorkers

from core.exercises.fair_pool import Fairness, FairPool, GradingBusyError
from core.exercises.process_pool import JobTimeoutError

FULL_S = 60.0
NO_PREEMPTION = Fairness(contended_timeout_s=FULL_S)


def label(name: str) -> str:
    return name


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def start(pool: FairPool, person: str, text: str | None = None) -> asyncio.Task[str]:
    return asyncio.create_task(pool.run(FULL_S, label, text or person, owner=person))


async def strike(pool: FairPool, workers: GatedWorkers, *people: str) -> None:
    """Each of `people` has one job that ran into its limit."""
    for person in people:
        job = start(pool, person)
        await workers.reached(len(workers.calls) + 1)
        workers.calls[-1].time_out()
        with pytest.raises(JobTimeoutError):
            await job
    assert all(pool.strikes(p) == 1 for p in people)


async def test_a_persons_second_job_waits_for_her_first_and_a_fourth_is_refused() -> None:
    workers = GatedWorkers(2)
    pool = FairPool(workers, NO_PREEMPTION)  # type: ignore[arg-type]
    first = start(pool, "ann", "first")
    await workers.reached(1)
    behind = [start(pool, "ann", "second"), start(pool, "ann", "third")]
    await asyncio.sleep(0.01)
    assert [c.text for c in workers.calls] == ["first"]  # a worker is free, yet they wait
    with pytest.raises(GradingBusyError, match="still checking your previous answer"):
        await pool.run(FULL_S, label, "fourth", owner="ann")
    others = start(pool, "bob")  # nobody else waits behind her
    await workers.reached(2)
    workers.calls[-1].finish()
    assert await others == "bob"
    for n, job in enumerate([first, *behind]):
        await workers.reached(n + 2)
        workers.running[0].finish()
        await job
    assert [c.text for c in workers.calls] == ["first", "bob", "second", "third"]
    assert await _finish(workers, start(pool, "ann", "later")) == "later"


async def test_the_victims_job_starts_before_the_queued_jobs_of_people_who_timed_out() -> None:
    workers = GatedWorkers(1)
    pool = FairPool(workers, NO_PREEMPTION)  # type: ignore[arg-type]
    attackers = [f"attacker-{n}" for n in range(4)]
    await strike(pool, workers, *attackers)
    queued = [start(pool, name) for name in attackers]  # one runs, three wait
    await workers.reached(len(attackers) + 1)
    victim = start(pool, "victim")
    await asyncio.sleep(0)
    workers.calls[-1].finish()  # the running attacker's job ends
    await workers.reached(len(attackers) + 2)
    assert workers.calls[-1].text == "victim"  # ahead of the three that came before her
    workers.calls[-1].finish()
    assert await victim == "victim"
    for n in range(3):  # then the three others, one at a time
        await workers.reached(len(attackers) + 3 + n)
        workers.running[0].finish()
    assert sorted(await asyncio.gather(*queued)) == attackers


async def test_people_with_strikes_never_hold_every_worker() -> None:
    workers = GatedWorkers(2)
    pool = FairPool(workers, NO_PREEMPTION)  # type: ignore[arg-type]
    await strike(pool, workers, "mallory", "trudy")
    jobs = [start(pool, "mallory"), start(pool, "trudy")]
    await workers.reached(3)
    await asyncio.sleep(0.01)
    assert [c.text for c in workers.running] == ["mallory"]  # trudy waits, a worker is free
    victim = start(pool, "victim")
    await workers.reached(4)
    assert {c.text for c in workers.running} == {"mallory", "victim"}
    workers.calls[-1].finish()
    assert await victim == "victim"
    # Their limit is the contended one, not the full one.
    assert workers.limits[-2] == min(FULL_S, NO_PREEMPTION.contended_timeout_s)
    for call in workers.running:
        call.finish()
    await workers.reached(5)
    workers.running[0].finish()
    assert sorted(await asyncio.gather(*jobs)) == ["mallory", "trudy"]


async def test_a_struck_persons_limit_is_the_short_one() -> None:
    workers = GatedWorkers(1)
    pool = FairPool(workers, Fairness(contended_timeout_s=2.0))  # type: ignore[arg-type]
    assert await _finish(workers, start(pool, "ann")) == "ann"
    await strike(pool, workers, "mallory")
    await _finish(workers, start(pool, "mallory"))
    assert workers.limits == [FULL_S, FULL_S, 2.0]


async def test_a_job_running_past_the_contended_limit_is_stopped_for_someone_waiting() -> None:
    workers = GatedWorkers(1)
    pool = FairPool(workers, Fairness(contended_timeout_s=0.05))  # type: ignore[arg-type]
    runaway = start(pool, "mallory")
    await workers.reached(1)
    victim = start(pool, "victim")
    await workers.reached(2)  # mallory's worker was taken from her for the victim
    assert workers.calls[0].stopped
    with pytest.raises(JobTimeoutError):
        await runaway
    assert pool.strikes("mallory") == 1 and pool.strikes("victim") == 0
    workers.calls[1].finish()
    assert await victim == "victim"


async def test_alone_a_job_keeps_its_worker_past_the_contended_limit() -> None:
    workers = GatedWorkers(1)
    pool = FairPool(workers, Fairness(contended_timeout_s=0.01))  # type: ignore[arg-type]
    slow = start(pool, "ann")
    await workers.reached(1)
    await asyncio.sleep(0.1)  # ten times the contended limit, with nobody waiting
    assert not workers.calls[0].stopped
    workers.calls[0].finish()
    assert await slow == "ann"
    assert pool.strikes("ann") == 0


async def test_a_job_of_better_standing_is_not_stopped_for_a_struck_person() -> None:
    workers = GatedWorkers(1)
    pool = FairPool(workers, Fairness(contended_timeout_s=0.01))  # type: ignore[arg-type]
    await strike(pool, workers, "mallory")
    slow = start(pool, "ann")
    await workers.reached(2)
    waiting = start(pool, "mallory")
    await asyncio.sleep(0.1)
    assert not workers.calls[1].stopped
    workers.calls[1].finish()
    assert await slow == "ann"
    assert await _finish(workers, waiting) == "mallory"


async def test_strikes_are_forgotten_after_the_window() -> None:
    clock = Clock()
    workers = GatedWorkers(1)
    pool = FairPool(
        workers,  # type: ignore[arg-type]
        Fairness(contended_timeout_s=FULL_S, strike_window_s=600),
        clock=clock,
    )
    await strike(pool, workers, "mallory")
    clock.now += 599
    assert pool.strikes("mallory") == 1
    clock.now += 2
    assert pool.strikes("mallory") == 0


async def test_a_cancelled_waiting_job_leaves_the_queue() -> None:
    workers = GatedWorkers(1)
    pool = FairPool(workers, NO_PREEMPTION)  # type: ignore[arg-type]
    running = start(pool, "bob")
    await workers.reached(1)
    waiting = start(pool, "ann")
    await asyncio.sleep(0)
    waiting.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiting
    workers.calls[0].finish()
    assert await running == "bob"
    assert await _finish(workers, start(pool, "ann")) == "ann"  # free to answer again
    assert [c.text for c in workers.calls] == ["bob", "ann"]


async def _finish(workers: GatedWorkers, job: asyncio.Task[str]) -> str:
    count = len(workers.calls)
    await workers.reached(count + 1 if not workers.running else count)
    workers.running[-1].finish()
    return await job
