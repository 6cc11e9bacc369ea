"""The two job engines a bot can run its jobs on, for tests that drive an adapter: in the
process (as the assembly builds it) or through arq on the real Redis, under the test's own
key prefix, with an arq worker running the bot's handlers beside it (jobs pickled onto the
queue, progress read back from Redis, results waited for, as with `coursebot worker`)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, suppress

from support.paths import REDIS_URL

from core.course_bot import CourseBot
from core.jobs.arq_queue import ArqJobs, open_pool, worker
from core.metrics import Metrics

ENGINES = ("inprocess", "arq")


@asynccontextmanager
async def jobs_on(engine: str, bot: CourseBot, prefix: str) -> AsyncIterator[None]:
    """`bot`'s jobs on `engine` for the duration of the block; `prefix`'s Redis keys are
    the caller's to delete."""
    if engine == "inprocess":
        yield
        return
    runner = worker(
        await open_pool(REDIS_URL, prefix), prefix, bot.job_handlers(), Metrics("worker"),
        job_timeout_s=120, tries=2, concurrency=2,
    )  # fmt: skip
    running = asyncio.create_task(runner.main())
    runner.main_task = running
    jobs = ArqJobs(await open_pool(REDIS_URL, prefix), prefix)
    bot.attach_jobs(jobs)
    try:
        yield
    finally:
        await runner.close()
        running.cancel()
        with suppress(asyncio.CancelledError):
            await running
        await jobs.close()


async def delete_keys(prefix: str) -> None:
    from redis.asyncio import Redis

    client = Redis.from_url(REDIS_URL)
    # arq's own keys name the job, whose id starts with the prefix.
    keys = [
        key
        for pattern in (f"{prefix}:*", f"arq:*:{prefix}:*")
        async for key in client.scan_iter(pattern)
    ]
    if keys:
        await client.delete(*keys)
    await client.aclose()
