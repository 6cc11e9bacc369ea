"""Grading under abuse: how long one student waits for a cheap answer while other accounts
keep the expression workers busy.

A victim steps through a one-step symbolic exercise ("d/dx x^2"), answering `0` and waiting
for each reply; N attacking accounts, each within the per-person rate limit (5 messages in
10 s, sent without waiting for replies, as a script does), answer with an expression that
costs the workers a lot. Everything goes through `PracticeService.answer` with the default
`SymbolicChecker` (two workers, a 5 s limit), the state in memory. Two attacks:

- `tower`: exp(exp(exp(exp(exp(exp(x)))))), the one reported (runs into the 5 s limit);
- `allowed`: an answer equivalent to the expected one that passes every bound on its shape
  and still takes the workers past the limit (an identity times a 40th power).

Prints the victim's p50/p95/max latency and sample count per attack and number of
attackers, and how the attackers' answers ended (graded, timed out, refused).

Run: python bench/grader_abuse.py [--seconds 30] [--attackers 0,4,10] [--attacks tower,allowed]
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import math
import statistics
import sys
import tempfile
import time
from collections import Counter
from datetime import timedelta

import structlog

from core.context import Context
from core.database import create_engine, migrate
from core.errors import UserFacingError
from core.exercises import ExerciseDefinition, Grader, SymbolicChecker, parse_exercise
from core.mistakes import MistakeLog
from core.mistakes.outbox import MistakeOutbox
from core.outages import Outages
from core.practice import PracticeService
from core.replies import Reply
from core.sessions import MemorySessionStore

EXERCISE = """
id: square-derivative
title: The derivative of a square
topic: Derivatives
skills: [power-rule]
steps:
  - prompt: "What is d/dx x^2?"
    skill: power-rule
    hints: ["The power rule: bring the exponent down."]
    answer: {kind: symbolic, expression: "2x"}
    solution: "2x"
"""
ATTACKS = {
    "tower": "exp(exp(exp(exp(exp(exp(x))))))",
    "allowed": "2x+(sin(x)^2+cos(x)^2-1)(sin(x)+cos(x)+x)^40",
}
VICTIM_ANSWER = "0"
# The per-person rate limit (COURSEBOT_RATE_LIMIT "5 per 10 seconds"): one message every 2 s.
ATTACK_EVERY_S = 2.0
VICTIM_PAUSE_S = 0.3


class MemoryCatalog:
    def __init__(self, definition: ExerciseDefinition) -> None:
        self.definition = definition

    async def find(self, _ctx: Context, _query: str, **_: object) -> ExerciseDefinition:
        return self.definition

    async def get(self, _ctx: Context, _exercise_id: str) -> ExerciseDefinition:
        return self.definition

    async def all(self, _ctx: Context) -> list[ExerciseDefinition]:
        return [self.definition]


def words(replies: list[Reply]) -> str:
    return " ".join(str(getattr(r, "feedback", "") or getattr(r, "text", "")) for r in replies)


class Member:
    def __init__(self, practice: PracticeService, name: str) -> None:
        self.practice = practice
        self.name = name
        self.sent = 0

    def ctx(self) -> Context:
        self.sent += 1
        return Context("bench", "math101", self.name, chat_id=self.name, message_id=f"{self.sent}")

    async def answer(self, text: str) -> str:
        """One answer, starting the exercise again first when the last one ended."""
        if not await self.practice.in_progress(self.ctx()):
            await self.practice.start(self.ctx(), "square-derivative")
        try:
            return words(await self.practice.answer(self.ctx(), text))
        except UserFacingError as refused:
            return f"refused: {refused}"


def outcome(reply: str) -> str:
    if reply.startswith("refused"):
        return "refused"
    if "in time" in reply:
        return "timed out"
    if "too large" in reply or "too deep" in reply:
        return "refused as too large"
    return "graded"


async def attacker(member: Member, text: str, outcomes: Counter[str]) -> None:
    async def one() -> None:
        outcomes[outcome(await member.answer(text))] += 1

    pending: set[asyncio.Task[None]] = set()
    try:
        while True:
            task = asyncio.create_task(one())
            pending.add(task)
            task.add_done_callback(pending.discard)
            await asyncio.sleep(ATTACK_EVERY_S)
    finally:
        for task in pending:
            task.cancel()


async def scenario(attackers: int, attack: str, seconds: float) -> None:
    definition = parse_exercise(EXERCISE, "square-derivative.exercise.yaml")
    store = MemorySessionStore()
    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite+aiosqlite:///{tmp}/mistakes.db"
        await migrate(url)
        log = MistakeLog(create_engine(url))
        async with SymbolicChecker() as checker:
            practice = PracticeService(
                store=store,
                catalog=MemoryCatalog(definition),  # type: ignore[arg-type]
                grader=Grader(symbolic=checker),
                outbox=MistakeOutbox(store, "bench", log, Outages()),
                prefix="bench",
                ttl=timedelta(days=1),
            )
            victim = Member(practice, "victim")
            for _ in range(3):  # the workers are up and sympy is warm before timing
                await victim.answer(VICTIM_ANSWER)
            outcomes: Counter[str] = Counter()
            attacking = [
                asyncio.create_task(
                    attacker(Member(practice, f"attacker-{n}"), ATTACKS[attack], outcomes)
                )
                for n in range(attackers)
            ]
            latencies: list[float] = []
            deadline = time.perf_counter() + seconds
            while time.perf_counter() < deadline:
                started = time.perf_counter()
                await victim.answer(VICTIM_ANSWER)
                latencies.append(time.perf_counter() - started)
                await asyncio.sleep(VICTIM_PAUSE_S)
            for task in attacking:
                task.cancel()
            await asyncio.gather(*attacking, return_exceptions=True)
        await practice.outbox.settled()
        await log.close()
    ordered = sorted(latencies)
    p95 = ordered[math.ceil(0.95 * len(ordered)) - 1]  # nearest rank: with few samples, the worst
    ended = ", ".join(f"{kind} {count}" for kind, count in sorted(outcomes.items())) or "-"
    print(
        f"attack={attack:8} attackers={attackers:2}  victim p50={statistics.median(ordered):6.2f}s "
        f"p95={p95:6.2f}s max={ordered[-1]:6.2f}s n={len(ordered):3}  attackers' answers: {ended}",
        flush=True,
    )


async def run(seconds: float, counts: list[int], attacks: list[str]) -> None:
    for attack in attacks:
        for count in counts:
            if count == 0 and attack != attacks[0]:
                continue  # no attack: the same figure whichever attack is named
            await scenario(count, attack, seconds)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--attackers", default="0,4,10")
    parser.add_argument("--attacks", default="tower,allowed")
    args = parser.parse_args()
    # Every timed-out check logs a line: the figures are what this prints.
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.ERROR))
    counts = [int(n) for n in args.attackers.split(",")]
    attacks = args.attacks.split(",")
    unknown = set(attacks) - set(ATTACKS)
    if unknown:
        parser.error(f"unknown attack(s) {', '.join(sorted(unknown))}; known: {', '.join(ATTACKS)}")
    asyncio.run(run(args.seconds, counts, attacks))
    return 0


if __name__ == "__main__":
    sys.exit(main())
