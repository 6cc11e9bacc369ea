"""CPU a message costs one Telegram webhook replica, by kind: the replica (the real
python-telegram-bot webhook server and `Application`, the core over the real Redis and
PostgreSQL, the sample course, no language model) runs in this process's main thread; the
fake Bot API of the tests and the students run in a second thread with its own event loop,
and their CPU is left out. CPU, not wall time: the machine may be shared, and CPU time is
what carries to a quiet one.

Phases, each timed on its own: N questions (`/ask`, the questions of bench/load.py), then N
practice messages (the product-rule exercise: a wrong answer, then the right one, at every
step, as in bench/load.py), sent by --students students one message at a time each (the
next when the reply came). A warm-up of each kind runs first, not counted.

Printed per kind: CPU ms a message (the replica's threads and its grading workers, from
/proc), and with --profile the functions with the most cumulative time in the main thread
(cProfile; profiling slows the replica, so the CPU figures of a --profile run are higher).

Run: PYTHONPATH=.:tests python bench/message_cpu.py [--messages 200] [--students 8]
[--profile] [--top 30]"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import io
import logging
import os
import pstats
import random
import shutil
import sys
import tempfile
import threading
import time
import uuid
from collections import Counter
from collections.abc import Awaitable, Callable
from concurrent.futures import Future
from contextlib import AsyncExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import asyncpg
import httpx
from load import EXERCISE, MESSAGES_PER_S, QUESTIONS, RIGHT, SECRET, WRONG, TimedTelegram, prepare
from support.fake_telegram import TOKEN, private_chat, user
from support.paths import REDIS_URL
from support.processes import free_port

POSTGRES = os.environ.get("CBTEST_POSTGRES_URL", "postgresql://postgres@127.0.0.1:5432/postgres")
KINDS = ("question", "practice")


def _cpu_of(stat: Path) -> tuple[float, list[str]]:
    """User + system CPU seconds from a /proc stat file, and its fields after the name."""
    fields = stat.read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK"), fields


@dataclass(frozen=True)
class Cpu:
    """CPU seconds so far: this process's main thread, its other threads but the driver's,
    and its child processes (the grading workers; alive or reaped), from /proc."""

    main: float
    threads: float
    children: float

    @classmethod
    def now(cls, driver_tid: int) -> Cpu:
        me = os.getpid()
        own, fields = _cpu_of(Path("/proc/self/stat"))
        reaped = (int(fields[13]) + int(fields[14])) / os.sysconf("SC_CLK_TCK")
        main = _cpu_of(Path(f"/proc/self/task/{me}/stat"))[0]
        driver = _cpu_of(Path(f"/proc/self/task/{driver_tid}/stat"))[0]
        alive = 0.0
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                cpu, child = _cpu_of(entry / "stat")
            except OSError:
                continue
            if int(child[1]) == me:
                alive += cpu
        return cls(main, own - main - driver, reaped + alive)

    def __sub__(self, other: Cpu) -> Cpu:
        return Cpu(
            self.main - other.main, self.threads - other.threads, self.children - other.children
        )

    @property
    def total(self) -> float:
        return self.main + self.threads + self.children


@dataclass
class Driver:
    """The fake Bot API and the students' HTTP client, in their own thread and event loop."""

    loop: asyncio.AbstractEventLoop
    fake: TimedTelegram
    http: httpx.AsyncClient
    tid: int
    stopped: asyncio.Event

    async def run(self, work: Awaitable[Any]) -> Any:
        """`work` run on the driver's loop, awaited from another loop."""
        future = asyncio.run_coroutine_threadsafe(work, self.loop)  # type: ignore[arg-type]
        return await asyncio.wrap_future(future)

    def stop(self) -> None:
        self.loop.call_soon_threadsafe(self.stopped.set)


def start_driver(connections: int) -> tuple[Driver, threading.Thread]:
    ready: Future[Driver] = Future()

    async def serve() -> None:
        limits = httpx.Limits(max_connections=connections)
        async with TimedTelegram() as fake, httpx.AsyncClient(timeout=60, limits=limits) as http:
            driver = Driver(
                asyncio.get_running_loop(), fake, http, threading.get_native_id(), asyncio.Event()
            )
            ready.set_result(driver)
            await driver.stopped.wait()

    thread = threading.Thread(target=lambda: asyncio.run(serve()), name="driver", daemon=True)
    thread.start()
    return ready.result(timeout=30), thread


class Student:
    """One student in a direct chat, sending a message and waiting for the first reply."""

    def __init__(self, number: int, driver: Driver, hook: str) -> None:
        self.who = user(600_000 + number, f"Student{number}")
        self.chat = private_chat(self.who)
        self.driver, self.hook = driver, hook
        self.rng = random.Random(number)
        self.step, self.wrong_next = -1, True

    async def send(self, text: str) -> None:
        fake = self.driver.fake
        queue = fake.arrivals[self.chat["id"]]
        while not queue.empty():  # the rest of the last reply (a sheet, then its first step)
            queue.get_nowait()
        update = fake.text_update(self.chat, self.who, text)
        response = await self.driver.http.post(
            self.hook, json=update, headers={"X-Telegram-Bot-Api-Secret-Token": SECRET}
        )
        response.raise_for_status()
        await asyncio.wait_for(queue.get(), 60)

    async def course(self) -> None:
        await self.send("/course sample")

    async def question(self) -> None:
        await self.send(f"/ask {self.rng.choice(QUESTIONS)}")

    async def practice(self) -> None:
        if self.step < 0:
            await self.send(f"/practice {EXERCISE}")
            self.step, self.wrong_next = 0, True
            return
        await self.send(WRONG if self.wrong_next else RIGHT[self.step])
        if not self.wrong_next:
            self.step = self.step + 1 if self.step + 1 < len(RIGHT) else -1
        self.wrong_next = not self.wrong_next


async def drive(students: list[Student], kind: str, messages: int) -> None:
    """`messages` messages of `kind`, shared among the students, each one at a time."""
    left = [messages]
    if kind == "course":  # once each
        await asyncio.gather(*(student.course() for student in students))
        return

    async def one(student: Student) -> None:
        act: Callable[[], Awaitable[None]] = getattr(student, kind)
        while left[0] > 0:
            left[0] -= 1
            await act()

    await asyncio.gather(*(one(student) for student in students))


async def settle(driver: Driver, quiet_s: float = 0.3) -> None:
    """Until the bot has made no Bot API call for `quiet_s` (the last replies are out)."""
    seen = -1
    while seen != len(driver.fake.calls):
        seen = len(driver.fake.calls)
        await asyncio.sleep(quiet_s)


def top_functions(profile: cProfile.Profile, top: int) -> str:
    """The main thread's functions by cumulative CPU, then by CPU spent in themselves."""
    out = io.StringIO()
    stats = pstats.Stats(profile, stream=out)
    stats.sort_stats("cumulative").print_stats(top)
    stats.sort_stats("tottime").print_stats(top)
    return out.getvalue()


async def replica(args: argparse.Namespace, root: Path, prefix: str, database: str) -> None:
    from bot.composition import open_assembly
    from bot.telegram import Webhook, build_application, running
    from config import Settings
    from config.logging_setup import configure_logging

    prepared = await prepare(root, prefix, database)
    driver, thread = start_driver(args.students * 2)
    hook_port = free_port()
    settings = Settings(  # type: ignore[call-arg]
        _env_file=None, data_dir=prepared, redis_url=REDIS_URL, redis_prefix=prefix,
        database_url=database, jobs="redis", rate_limit="100000/minute",
        place_rate_limit="100000/minute", telegram_token=TOKEN,
        telegram_webhook_secret=SECRET, telegram_api_url=driver.fake.url,
        telegram_messages_per_s=MESSAGES_PER_S,
        log_level="WARNING", log_format="json",
    )  # fmt: skip
    configure_logging(settings)
    api = driver.fake.url
    async with AsyncExitStack() as stack:
        assembly = await stack.enter_async_context(open_assembly(settings))
        application = build_application(
            settings, assembly.bot, base_url=f"{api}/bot", base_file_url=f"{api}/file/bot"
        )
        mode = Webhook("https://bench.invalid/hook", SECRET, "127.0.0.1", hook_port)
        await stack.enter_async_context(running(application, mode))
        hook = f"http://127.0.0.1:{hook_port}/hook"
        students = [Student(n, driver, hook) for n in range(args.students)]
        await driver.run(drive(students, "course", args.students))  # each picks the course
        await driver.run(drive_all(students, "question", args.students))
        await driver.run(drive_all(students, "practice", args.students * 2))
        for kind in args.kinds.split(","):
            # CPU of this thread: waiting on the network or for a core is not counted.
            profile = cProfile.Profile(time.thread_time) if args.profile else None
            calls_before = len(driver.fake.calls)
            before = Cpu.now(driver.tid)
            if profile is not None:
                profile.enable()
            await driver.run(drive_all(students, kind, args.messages, settle_after=driver))
            if profile is not None:
                profile.disable()
            used = Cpu.now(driver.tid) - before
            made = Counter(call.method for call in driver.fake.calls[calls_before:])
            each = ", ".join(f"{method} {n / args.messages:.2f}" for method, n in made.items())
            each_ms = used.total * 1000 / args.messages
            print(f"{kind:9s} {args.messages} msgs: {each_ms:6.1f} ms of CPU a message")
            print(
                f"          main thread {used.main * 1000 / args.messages:.1f} ms, other threads "
                f"{used.threads * 1000 / args.messages:.1f} ms, grading workers "
                f"{used.children * 1000 / args.messages:.1f} ms; Bot API calls a message: {each}"
            )
            if profile is not None:
                print(top_functions(profile, args.top))
    driver.stop()
    thread.join(timeout=10)


async def drive_all(
    students: list[Student], kind: str, messages: int, settle_after: Driver | None = None
) -> None:
    await drive(students, kind, messages)
    if settle_after is not None:
        await settle(settle_after)


async def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--messages", type=int, default=200, help="messages timed per kind")
    parser.add_argument("--students", type=int, default=8)
    parser.add_argument("--profile", action="store_true", help="print the top functions")
    parser.add_argument("--top", type=int, default=30)
    parser.add_argument("--kinds", default=",".join(KINDS), help="which phases to time")
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="coursebot-cpu-"))
    prefix = f"coursebot-cpu-{uuid.uuid4().hex[:8]}"
    name = f"coursebot_cpu_{uuid.uuid4().hex[:8]}"
    admin = await asyncpg.connect(POSTGRES)
    await admin.execute(f'CREATE DATABASE "{name}"')
    await admin.close()
    database = POSTGRES.rsplit("/", 1)[0] + f"/{name}"
    try:
        await replica(args, root, prefix, database)
    finally:
        admin = await asyncpg.connect(POSTGRES)
        await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        await admin.close()
        shutil.rmtree(root, ignore_errors=True)
    print(f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    logging.getLogger("aiohttp.server").setLevel(logging.CRITICAL)
    sys.exit(asyncio.run(main()))
