"""Several accounts answering with expressions that cost the grading workers a lot, through
the practice service: the issue's tower is refused before it reaches a worker; a costly
answer that passes every bound runs, but people whose answers ran into the time limit wait
behind a classmate's cheap answer, and nobody has two answers checked at once (more are
checked in turn; a flood is refused). The workers
are driven by hand (`GatedWorkers`): the order is checked, never a time."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from datetime import timedelta
from pathlib import Path

import pytest
from support.gated_workers import GatedWorkers

from core.context import Context
from core.database import create_engine, migrate
from core.exercises import (
    ExerciseDefinition,
    Fairness,
    Grader,
    GradingBusyError,
    SymbolicChecker,
    parse_exercise,
)
from core.mistakes import MistakeLog
from core.mistakes.outbox import MistakeOutbox
from core.outages import Outages
from core.practice import PracticeService
from core.replies import Reply, StepPrompt
from core.sessions import MemorySessionStore

EXERCISE = """
id: square-derivative
title: The derivative of a square
topic: Derivatives
skills: [power-rule]
steps:
  - prompt: "What is d/dx x^2?"
    skill: power-rule
    hints: ["The power rule.", "Bring the exponent down.", "Lower it by one."]
    answer: {kind: symbolic, expression: "2x"}
    solution: "2x"
"""
TOWER = "exp(exp(exp(exp(exp(exp(x))))))"
# Equivalent to 2x, within every bound on its shape, and minutes of simplify().
COSTLY = "2x+(sin(x)^2+cos(x)^2-1)(sin(x)+cos(x)+x)^40"


class OneExercise:
    def __init__(self, definition: ExerciseDefinition) -> None:
        self.definition = definition

    async def find(self, _ctx: Context, _query: str, **_: object) -> ExerciseDefinition:
        return self.definition

    async def get(self, _ctx: Context, _exercise_id: str) -> ExerciseDefinition:
        return self.definition


class Class:
    def __init__(
        self, practice: PracticeService, workers: GatedWorkers, checker: SymbolicChecker
    ) -> None:
        self.practice = practice
        self.workers = workers
        self.checker = checker
        self.sent = 0

    async def waiting(self, count: int) -> None:
        """Until `count` answers wait for a worker (a guard against hanging, not a measure)."""
        for _ in range(2000):
            if self.checker.queue.waiting >= count:
                return
            await asyncio.sleep(0.005)
        raise AssertionError(f"{self.checker.queue.waiting} answers wait, not {count}")

    def ctx(self, person: str) -> Context:
        self.sent += 1
        return Context("test", "math101", person, chat_id="group-1", message_id=f"m{self.sent}")

    async def start(self, *people: str) -> None:
        for person in people:
            await self.practice.start(self.ctx(person), "square-derivative")

    def answer(self, person: str, text: str) -> asyncio.Task[list[Reply]]:
        return asyncio.create_task(self.practice.answer(self.ctx(person), text))


@pytest.fixture
async def world(tmp_path: Path) -> AsyncIterator[Class]:
    workers = GatedWorkers(1)
    url = f"sqlite+aiosqlite:///{tmp_path / 'mistakes.db'}"
    await migrate(url)
    mistakes = MistakeLog(create_engine(url))
    store = MemorySessionStore()
    checker = SymbolicChecker(
        pool=workers,  # type: ignore[arg-type]
        fairness=Fairness(contended_timeout_s=60.0),  # no job is stopped for others here
    )
    practice = PracticeService(
        store=store,
        catalog=OneExercise(parse_exercise(EXERCISE, "square.exercise.yaml")),  # type: ignore[arg-type]
        grader=Grader(symbolic=checker),
        outbox=MistakeOutbox(store, "test", mistakes, Outages()),
        prefix="test",
        ttl=timedelta(days=1),
    )
    yield Class(practice, workers, checker)
    await workers.close()
    await practice.outbox.settled()
    await mistakes.close()


def said(replies: list[Reply]) -> str:
    return " ".join(r.feedback if isinstance(r, StepPrompt) else r.text for r in replies)  # type: ignore[attr-defined]


async def test_the_tower_is_refused_without_reaching_a_worker(world: Class) -> None:
    attackers = [f"attacker-{n}" for n in range(10)]
    await world.start("victim", *attackers)
    replies = await asyncio.gather(*(world.answer(name, TOWER) for name in attackers))
    assert all("too large to check" in said(r) for r in replies)
    assert world.workers.calls == []
    victim = world.answer("victim", "0")
    await world.workers.reached(1)
    world.workers.calls[0].finish()
    assert "Not quite" in said(await victim)


async def test_a_classmates_answer_is_checked_before_those_of_people_who_timed_out(
    world: Class,
) -> None:
    attackers = [f"attacker-{n}" for n in range(4)]
    await world.start("victim", *attackers)
    for n, name in enumerate(attackers):  # each one's costly answer runs into the limit
        answer = world.answer(name, COSTLY)
        await world.workers.reached(n + 1)
        world.workers.calls[-1].time_out()
        assert "could not check that expression in time" in said(await answer)

    again = [world.answer(name, COSTLY) for name in attackers]  # one runs, three wait
    await world.workers.reached(len(attackers) + 1)
    victim = world.answer("victim", "0")
    await world.waiting(len(attackers))  # three attackers, then the victim
    world.workers.calls[-1].time_out()  # the running attacker's answer ends
    await world.workers.reached(len(attackers) + 2)
    assert world.workers.calls[-1].text == "0"  # the victim's, ahead of the three waiting
    world.workers.calls[-1].finish()
    assert "Not quite" in said(await victim)
    for n in range(3):
        await world.workers.reached(len(attackers) + 3 + n)
        world.workers.running[0].time_out()
    await asyncio.gather(*again)


async def test_answers_sent_together_are_checked_in_turn_and_a_flood_is_refused(
    world: Class,
) -> None:
    await world.start("ann")
    together = [world.answer("ann", text) for text in ("x^2", "x^3", "2x + 1")]
    await world.workers.reached(1)
    await asyncio.sleep(0.01)
    with pytest.raises(GradingBusyError, match="still checking your previous answer"):
        await world.practice.answer(world.ctx("ann"), "3x")
    # One at a time (an answer whose state moved on meanwhile is checked again).
    for _ in range(200):
        if all(answer.done() for answer in together):
            break
        await world.workers.reached(len(world.workers.calls) - len(world.workers.running) + 1)
        assert len(world.workers.running) == 1
        world.workers.running[0].finish()
        await asyncio.sleep(0.01)
    assert all("Not quite" in said(r) for r in await asyncio.gather(*together))
    assert "3x" not in [call.text for call in world.workers.calls]  # refused before a worker
