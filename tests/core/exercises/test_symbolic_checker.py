"""Expressions are checked in worker processes with a hard time limit: a runaway check is
stopped, its process killed and replaced, and grading gives the same verdicts as in process."""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import AsyncIterator

import pytest

from core.exercises import (
    Grader,
    NumericAnswer,
    Step,
    SymbolicAnswer,
    SymbolicChecker,
    grade_answer,
)

# Valid (powers of 30 are allowed) but expanding it takes minutes.
RUNAWAY = SymbolicAnswer(kind="symbolic", expression="(a+b+c+d+f+g+h)^30")
RUNAWAY_TEXT = "(2a+2b+2c+2d+2f+2g+2h)^30/2^30"


def symbolic(expression: str) -> SymbolicAnswer:
    return SymbolicAnswer(kind="symbolic", expression=expression)


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


async def gone(pid: int, within_s: float = 10.0) -> bool:
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        if not alive(pid):
            return True
        await asyncio.sleep(0.05)
    return False


@pytest.fixture
async def checker() -> AsyncIterator[SymbolicChecker]:
    async with SymbolicChecker(timeout_s=1.0, workers=1) as started:
        yield started


@pytest.mark.parametrize(
    ("answer", "text"),
    [
        (symbolic("2x+2"), "2(x+1)"),
        (symbolic("2x+2"), "2x+3"),
        (symbolic("2x+2"), "2t+2"),
        (symbolic("x^2"), "sqrt(x^4)"),
        (symbolic("2x"), "2x +"),
        (NumericAnswer(kind="numeric", value=0.7071, tolerance=0.001), "sqrt(2)/2"),
        (NumericAnswer(kind="numeric", value=1.5), "3/2"),
        (NumericAnswer(kind="numeric", value=1.5), "1.5"),
    ],
)
async def test_worker_verdicts_match_in_process_grading(
    checker: SymbolicChecker, answer: SymbolicAnswer | NumericAnswer, text: str
) -> None:
    assert await checker.check(answer, text) == grade_answer(answer, text)


async def test_a_runaway_check_is_stopped_and_its_worker_killed(
    checker: SymbolicChecker,
) -> None:
    await checker.check(symbolic("2x"), "x + x")  # a worker is running
    [pid] = checker.pool.pids
    started = time.monotonic()
    result = await checker.check(RUNAWAY, RUNAWAY_TEXT)
    assert time.monotonic() - started < 5
    assert not result.correct
    assert "in time" in result.detail
    assert checker.pool.busy == 0
    assert checker.pool.pids == ()
    assert await gone(pid), "the runaway worker is still alive"
    # A fresh worker takes over.
    assert (await checker.check(symbolic("2x"), "x + x")).correct
    assert checker.pool.pids and checker.pool.pids != (pid,)


async def test_a_tower_of_functions_is_refused_without_a_worker() -> None:
    checker = SymbolicChecker(timeout_s=1.0, workers=1)  # workers start with the first job
    try:
        result = await checker.check(symbolic("2x"), "exp(exp(exp(exp(exp(exp(x))))))")
        assert "too large" in result.detail and not result.correct
        unreadable = "2x + $"  # refused before sympy too: worded in process
        assert (await checker.check(symbolic("2x"), unreadable)) == grade_answer(
            symbolic("2x"), unreadable
        )
        assert checker.pool.pids == ()
    finally:
        await checker.close()


async def test_a_cancelled_check_kills_its_worker(checker: SymbolicChecker) -> None:
    await checker.check(symbolic("2x"), "x + x")
    [pid] = checker.pool.pids
    task = asyncio.create_task(checker.check(RUNAWAY, RUNAWAY_TEXT))
    await asyncio.sleep(0.2)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert checker.pool.busy == 0
    assert await gone(pid)


async def test_closing_stops_every_worker() -> None:
    checker = SymbolicChecker(timeout_s=5.0, workers=2)
    await asyncio.gather(
        checker.check(symbolic("2x"), "x + x"), checker.check(symbolic("2x"), "2*x")
    )
    pids = checker.pool.pids
    assert len(pids) == 2
    await checker.close()
    assert all([await gone(pid) for pid in pids])
    with pytest.raises(RuntimeError):
        await checker.check(symbolic("2x"), "x + x")


async def test_grader_uses_the_checker_it_is_given(checker: SymbolicChecker) -> None:
    step = Step(prompt="d/dx x^2?", skill="power", hints=("Power rule.",), answer=symbolic("2x"))
    grader = Grader(symbolic=checker)
    assert (await grader.grade(step, "x + x")).correct
    assert checker.pool.pids
    await grader.close()  # not its checker: still running
    assert checker.pool.pids
