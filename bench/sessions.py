"""Guided-exercise session throughput against Redis, from two core instances (replicas).

N simulated students work through the sample's product-rule exercise at once; every message
goes to one of two PracticeService instances with their own Redis connections, chosen at
random, so replicas race on the same sessions. The grader is stubbed (a wrong answer first,
then right, per step) and the exercise catalog is served from memory: what is timed is the
session path itself (idempotency claim, read, pure transition, compare-and-set write, and
the mistake log in SQLite). Prints transitions/s and per-transition latency percentiles.

Run: python bench/sessions.py [--students 50] [--redis redis://127.0.0.1:6379/0]"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import tempfile
import time
import uuid
from datetime import timedelta
from pathlib import Path

from redis.asyncio import Redis

from core.context import Context
from core.database import create_engine, migrate
from core.exercises import ExerciseDefinition, GradeResult, parse_exercise
from core.ledger import ReplyLedger
from core.mistakes import MistakeLog
from core.mistakes.outbox import MistakeOutbox
from core.outages import Outages
from core.practice import PracticeService
from core.requests import Response
from core.sessions import RedisSessionStore

EXERCISE = (
    Path(__file__).resolve().parents[1]
    / "examples/sample-course/exercises/derivative-product-rule.exercise.yaml"
)


class MemoryCatalog:
    def __init__(self, definition: ExerciseDefinition) -> None:
        self.definition = definition

    async def find(self, _ctx: Context, _query: str) -> ExerciseDefinition:
        return self.definition

    async def get(self, _ctx: Context, _exercise_id: str) -> ExerciseDefinition:
        return self.definition

    async def all(self, _ctx: Context) -> list[ExerciseDefinition]:
        return [self.definition]


class StubGrader:
    """ "right" is right; anything else is wrong."""

    async def grade(self, _step: object, text: str, **_: object) -> GradeResult:
        return GradeResult(text == "right", "stub")


Replica = tuple[PracticeService, ReplyLedger]


async def student(name: str, replicas: list[Replica], steps: int, timings: list[float]):
    counter = 0

    async def send(how: str, text: str) -> None:
        nonlocal counter
        counter += 1
        ctx = Context("bench", "math101", name, chat_id=name, message_id=f"{name}-{counter}")
        practice, ledger = random.choice(replicas)
        started = time.perf_counter()
        # What CourseBot.handle does around the practice service for each message.
        if await ledger.claim(ctx.message_id or "") is None:
            call = practice.start if how == "start" else practice.answer
            replies = await call(ctx, text)
            await ledger.finish(ctx.message_id or "", Response(tuple(replies)))
        timings.append(time.perf_counter() - started)

    await send("start", "derivative-product-rule")
    for _ in range(steps):
        await send("answer", "wrong")
        await send("answer", "right")


async def run(students: int, redis_url: str) -> None:
    definition = parse_exercise(EXERCISE.read_text(), EXERCISE.name)
    prefix = f"coursebot-bench-{uuid.uuid4().hex[:8]}"
    clients = [Redis.from_url(redis_url, decode_responses=True) for _ in range(2)]
    with tempfile.TemporaryDirectory() as tmp:
        url = f"sqlite+aiosqlite:///{tmp}/mistakes.db"
        await migrate(url)
        log = MistakeLog(create_engine(url))
        replicas = [
            (
                PracticeService(
                    store=RedisSessionStore(client),
                    catalog=MemoryCatalog(definition),  # type: ignore[arg-type]
                    grader=StubGrader(),  # type: ignore[arg-type]
                    outbox=MistakeOutbox(RedisSessionStore(client), prefix, log, Outages()),
                    prefix=prefix,
                    ttl=timedelta(days=7),
                ),
                ReplyLedger(RedisSessionStore(client), prefix),
            )
            for client in clients
        ]
        timings: list[float] = []
        started = time.perf_counter()
        await asyncio.gather(
            *(student(f"s{n}", replicas, len(definition.steps), timings) for n in range(students))
        )
        elapsed = time.perf_counter() - started
        mistakes = sum(c.count for c in await log.by_skill("math101"))
        await log.close()
    keys = [key async for key in clients[0].scan_iter(f"{prefix}:*")]
    if keys:
        await clients[0].delete(*keys)
    for client in clients:
        await client.aclose()
    ms = sorted(t * 1000 for t in timings)
    p95 = ms[int(0.95 * (len(ms) - 1))]
    print(f"students={students} replicas=2 transitions={len(ms)} mistakes_logged={mistakes}")
    print(f"wall={elapsed:.2f}s transitions/s={len(ms) / elapsed:.0f}")
    print(f"latency_ms p50={statistics.median(ms):.1f} p95={p95:.1f} max={ms[-1]:.1f}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--students", type=int, default=50)
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/0")
    args = parser.parse_args()
    asyncio.run(run(args.students, args.redis))
    return 0


if __name__ == "__main__":
    sys.exit(main())
