"""Load on the whole deployment: 2 Telegram webhook replicas (`coursebot telegram --webhook`,
the real python-telegram-bot, talking to the fake Bot API of the tests), 2 `coursebot worker`
processes, the real Redis and PostgreSQL, no language model. N students, each in a direct
message, ask questions, step through the product-rule exercise (a wrong answer, then the
right one, at every step) and send notes to be ingested (a job), one message at a time, for
--seconds. Each update is POSTed to a replica, alternately, as Telegram would; a message's
latency runs from the POST to the bot's reply in that chat (for an upload: the summary that
replaces the progress message).

Printed: questions/s, practice messages/s, uploads (jobs)/s, p50/p95 per kind, the load
average, and the checks: every message answered (none lost); the mistake log holding each
wrong answer exactly once per student (a session update lost or applied twice would put the
next answer against the wrong step, a graded mistake more); every upload ingested by
exactly one job (jobs done across the workers = uploads answered).

No Qdrant server runs here: every process holds its own copy of the embedded index of the
sample course (an upload is searchable on the worker that ingested it only); Redis and
PostgreSQL are shared, as in a deployment.

Run: PYTHONPATH=.:tests python bench/load.py [--students 40] [--seconds 60]"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import asyncpg
import httpx
from support.fake_telegram import TOKEN, FakeTelegram, private_chat, user
from support.paths import REDIS_URL, REPO_ROOT, SAMPLE_COURSE
from support.processes import free_port

POSTGRES = os.environ.get("CBTEST_POSTGRES_URL", "postgresql://postgres@127.0.0.1:5432/postgres")
SECRET = "bench-webhook-secret"
QUESTIONS = [
    "When is the final exam?",
    "What is the product rule?",
    "How is the course graded?",
    "What is a limit?",
    "Where is the final exam held?",
    "What does the derivative of x^2 equal?",
]
EXERCISE = "derivative-product-rule"
RIGHT = ["2x", "cos(x)", "2x sin(x) + x^2 cos(x)", "-9.87"]
WRONG = "7"
KINDS = ("question", "practice", "upload")
MIX = "question=0.3,practice=0.62,upload=0.08"
MESSAGES_PER_S = 10_000


class TimedTelegram(FakeTelegram):
    """The fake Bot API, noting when each call for a chat arrived."""

    def __init__(self) -> None:
        super().__init__()
        self.arrivals: dict[int, asyncio.Queue[tuple[float, str, str]]] = defaultdict(asyncio.Queue)

    async def _api(self, request: Any) -> Any:
        response = await super()._api(request)
        call = self.calls[-1]
        chat = call.chat_id
        if chat is not None and call.method in ("sendMessage", "editMessageText", "sendDocument"):
            self.arrivals[chat].put_nowait((time.perf_counter(), call.method, call.text))
        return response


@dataclass
class Tally:
    latencies: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    lost: Counter[str] = field(default_factory=Counter)
    wrong_sent: Counter[str] = field(default_factory=Counter)
    steps_done: Counter[str] = field(default_factory=Counter)
    uploads: int = 0


def _env(data_dir: Path, prefix: str, database: str, http_port: int) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("COURSEBOT_")}
    env.update(
        PYTHONPATH=str(REPO_ROOT),
        COURSEBOT_DATA_DIR=str(data_dir),
        COURSEBOT_REDIS_URL=REDIS_URL,
        COURSEBOT_REDIS_PREFIX=prefix,
        COURSEBOT_DATABASE_URL=database,
        COURSEBOT_JOBS="redis",
        COURSEBOT_RATE_LIMIT="100000/minute",
        COURSEBOT_PLACE_RATE_LIMIT="100000/minute",
        COURSEBOT_TELEGRAM_TOKEN=TOKEN,
        COURSEBOT_TELEGRAM_WEBHOOK_SECRET=SECRET,
        # The fake Bot API has no flood limit: Telegram's 30 a second would cap each replica.
        COURSEBOT_TELEGRAM_MESSAGES_PER_S=str(MESSAGES_PER_S),
        COURSEBOT_HTTP_PORT=str(http_port),
        COURSEBOT_HTTP_HOST="127.0.0.1",
        COURSEBOT_LOG_LEVEL="WARNING",
        COURSEBOT_LOG_FORMAT="json",
    )
    return env


async def prepare(root: Path, prefix: str, database: str) -> Path:
    """The sample course ingested once (its index copied to every process), open to all."""
    from bot.composition import open_assembly
    from bot.console.repl import ConsoleSpeaker
    from config import Settings
    from core.commands import ParsedCommand
    from ingestion.pipeline import discover

    settings = Settings(  # type: ignore[call-arg]
        _env_file=None, data_dir=root / "prep", redis_url=REDIS_URL, redis_prefix=prefix,
        database_url=database,
    )  # fmt: skip
    async with open_assembly(settings) as assembly:
        sources, _ = discover([SAMPLE_COURSE])
        report = await assembly.bot.ingest_files("sample", sources)
        assert not report.failed, report.failed
        opened = ConsoleSpeaker("sample", "console").request(
            command=ParsedCommand("invite", "open")
        )
        await assembly.bot.handle(opened)
    return root / "prep"


def _copy(source: Path, target: Path) -> None:
    subprocess.run(["cp", "-r", "--sparse=always", str(source), str(target)], check=True)


async def _wait_ready(port: int, process: subprocess.Popen[bytes], give_up_s: float = 180) -> None:
    deadline = time.monotonic() + give_up_s
    async with httpx.AsyncClient() as client:
        while time.monotonic() < deadline:
            if process.poll() is not None:
                raise SystemExit(f"a process exited at start (code {process.returncode})")
            try:
                if (await client.get(f"http://127.0.0.1:{port}/readyz", timeout=2)).is_success:
                    return
            except httpx.HTTPError:
                pass
            await asyncio.sleep(0.5)
    raise SystemExit(f"port {port} never became ready")


async def _reply(
    fake: TimedTelegram, chat: int, after: float, upload: bool, wait_s: float
) -> float:
    """Seconds from `after` to the bot's reply in `chat` (for an upload, its summary)."""
    queue = fake.arrivals[chat]
    while True:
        at, _method, text = await asyncio.wait_for(queue.get(), wait_s)
        if upload and text.startswith("Ingesting file"):
            continue
        return at - after


async def _student(
    number: int,
    fake: TimedTelegram,
    hooks: list[str],
    http: httpx.AsyncClient,
    until: float,
    tally: Tally,
    rng: random.Random,
    counted_from: float,
    weights: tuple[float, ...],
) -> None:
    who = user(500_000 + number, f"Student{number}")
    chat = private_chat(who)
    sent = 0

    async def send(update: dict[str, Any], kind: str, *, timed: bool = True) -> bool:
        nonlocal sent
        hook = hooks[sent % len(hooks)]
        sent += 1
        queue = fake.arrivals[chat["id"]]
        while not queue.empty():  # the rest of the last reply (a sheet, then its first step)
            queue.get_nowait()
        began = time.perf_counter()
        response = await http.post(
            hook, json=update, headers={"X-Telegram-Bot-Api-Secret-Token": SECRET}
        )
        response.raise_for_status()
        try:
            took = await _reply(fake, chat["id"], began, kind == "upload", 60)
        except TimeoutError:
            tally.lost[kind] += 1
            return False
        if timed and began >= counted_from:
            tally.latencies[kind].append(took)
        return True

    await send(fake.text_update(chat, who, "/course sample"), "setup", timed=False)
    step = -1  # not in the exercise
    wrong_next = True
    while time.perf_counter() < until:
        kind = rng.choices(KINDS, weights)[0]
        if kind == "question":
            await send(fake.text_update(chat, who, f"/ask {rng.choice(QUESTIONS)}"), kind)
        elif kind == "upload":
            name = f"notes-{number}-{uuid.uuid4().hex[:8]}.md"
            body = f"# My notes {name}\n\nThe product rule: (fg)' = f'g + fg'. {uuid.uuid4()}\n"
            update = fake.document_update(chat, who, name, body.encode(), caption="/notes")
            if await send(update, kind):
                tally.uploads += 1
        elif step < 0:
            if await send(fake.text_update(chat, who, f"/practice {EXERCISE}"), kind):
                step, wrong_next = 0, True
        else:
            answer = WRONG if wrong_next else RIGHT[step]
            if await send(fake.text_update(chat, who, answer), kind):
                if wrong_next:
                    tally.wrong_sent[who_id(who)] += 1
                else:
                    tally.steps_done[who_id(who)] += 1
                    step = step + 1 if step + 1 < len(RIGHT) else -1
                wrong_next = not wrong_next


def _cpu_seconds(root_pids: list[int]) -> float:
    """CPU time (user + system) of these processes and all their descendants (the grading
    workers), from /proc."""
    tick = os.sysconf("SC_CLK_TCK")
    children: dict[int, list[int]] = defaultdict(list)
    times: dict[int, float] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        pid = int(entry.name)
        children[int(fields[1])].append(pid)
        times[pid] = (int(fields[11]) + int(fields[12])) / tick
    total, stack = 0.0, list(root_pids)
    while stack:
        pid = stack.pop()
        total += times.get(pid, 0.0)
        stack.extend(children.get(pid, ()))
    return total


def who_id(who: dict[str, Any]) -> str:
    return f"telegram:{who['id']}"


def _percentile(values: list[float], share: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


async def _mistakes(database: str) -> Counter[str]:
    connection = await asyncpg.connect(database.replace("postgresql+asyncpg", "postgresql"))
    try:
        rows = await connection.fetch(
            "SELECT student_id, count(*) AS n FROM mistakes GROUP BY student_id"
        )
    finally:
        await connection.close()
    return Counter({row["student_id"]: row["n"] for row in rows})


async def _jobs_done(ports: list[int]) -> float:
    total = 0.0
    async with httpx.AsyncClient() as client:
        for port in ports:
            text = (await client.get(f"http://127.0.0.1:{port}/metrics")).text
            for line in text.splitlines():
                if line.startswith('coursebot_jobs_total{kind="ingest",outcome="done"}'):
                    total += float(line.split()[-1])
    return total


def _stop(processes: list[subprocess.Popen[bytes]]) -> None:
    for process in processes:
        if process.poll() is None:
            process.terminate()
    for process in processes:
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()


async def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=40)
    parser.add_argument("--seconds", type=float, default=60)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--mix", default=MIX, help=f"shares of each kind (default {MIX})")
    parser.add_argument(
        "--warmup", type=float, default=10, help="seconds of load not counted (models, pools)"
    )
    args = parser.parse_args()
    shares = dict(part.split("=") for part in args.mix.split(","))
    weights = tuple(float(shares.get(kind, 0)) for kind in KINDS)

    root = Path(tempfile.mkdtemp(prefix="coursebot-load-"))
    prefix = f"coursebot-load-{uuid.uuid4().hex[:8]}"
    name = f"coursebot_load_{uuid.uuid4().hex[:8]}"
    admin = await asyncpg.connect(POSTGRES)
    await admin.execute(f'CREATE DATABASE "{name}"')
    await admin.close()
    database = POSTGRES.rsplit("/", 1)[0] + f"/{name}"
    processes: list[subprocess.Popen[bytes]] = []
    try:
        prepared = await prepare(root, prefix, database)
        async with TimedTelegram() as fake:
            hooks, replica_ports, worker_ports = [], [], []
            for role in ("replica-a", "replica-b", "worker-a", "worker-b"):
                data = root / role
                _copy(prepared, data)
                port = free_port()
                env = _env(data, prefix, database, port)
                if role.startswith("replica"):
                    hook_port = free_port()
                    env["COURSEBOT_TELEGRAM_API_URL"] = fake.url
                    command = [
                        "telegram", "--webhook", "https://bench.invalid/hook",
                        "--listen", "127.0.0.1", "--port", str(hook_port),
                    ]  # fmt: skip
                    hooks.append(f"http://127.0.0.1:{hook_port}/hook")
                    replica_ports.append(port)
                else:
                    command = ["worker"]
                    worker_ports.append(port)
                processes.append(
                    subprocess.Popen(
                        [sys.executable, "-m", "bot.cli", *command],
                        env=env,
                        cwd=root,
                        stdin=subprocess.DEVNULL,
                        stdout=subprocess.DEVNULL,
                        stderr=open(root / f"{role}.log", "wb"),  # noqa: SIM115
                    )
                )
            for port, process in zip(replica_ports + worker_ports, processes, strict=True):
                await _wait_ready(port, process)
            print(
                f"load: {args.students} students, {args.seconds:g} s ({args.mix}), "
                "2 webhook replicas, "
                f"2 workers, Redis + PostgreSQL; load average before "
                f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}",
                flush=True,
            )
            tally = Tally()
            rng = random.Random(args.seed)
            limits = httpx.Limits(max_connections=args.students * 2)
            async with httpx.AsyncClient(timeout=30, limits=limits) as http:
                began = time.perf_counter() + args.warmup
                until = began + args.seconds
                pids = [process.pid for process in processes]
                cpu_at: list[float] = []

                async def cpu_mark() -> None:
                    await asyncio.sleep(args.warmup)
                    cpu_at.append(_cpu_seconds(pids))

                marker = asyncio.create_task(cpu_mark())
                await asyncio.gather(
                    *(
                        _student(
                            n,
                            fake,
                            hooks,
                            http,
                            until,
                            tally,
                            random.Random(rng.random()),
                            began,
                            weights,
                        )
                        for n in range(args.students)
                    )
                )
                elapsed = time.perf_counter() - began
                await marker
                cpu = _cpu_seconds(pids) - cpu_at[0]
            load = os.getloadavg()
            await asyncio.sleep(3)  # the outbox reaches the database
            mistakes = await _mistakes(database)
            jobs = await _jobs_done(worker_ports)
            # Stopping replicas drop their open connections to the fake: not worth a trace.
            logging.getLogger("aiohttp.server").setLevel(logging.CRITICAL)
            _stop(processes)  # before the fake Bot API closes under them
    finally:
        _stop(processes)
        admin = await asyncpg.connect(POSTGRES)
        await admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        await admin.close()
        shutil.rmtree(root, ignore_errors=True)

    print(f"elapsed {elapsed:.1f} s; load average after {' '.join(f'{x:.2f}' for x in load)}")
    messages = sum(len(values) for values in tally.latencies.values())
    print(
        f"CPU used by the 4 processes (and their grading workers): {cpu:.1f} s in {elapsed:.1f} s "
        f"= {cpu / elapsed:.2f} cores; {cpu * 1000 / max(messages, 1):.0f} ms of CPU a message"
    )
    for kind in KINDS:
        values = tally.latencies[kind]
        p50, p95 = _percentile(values, 0.5) * 1000, _percentile(values, 0.95) * 1000
        print(
            f"  {kind:9s} {len(values):6d} msgs  {len(values) / elapsed:7.1f}/s  "
            f"p50 {p50:7.0f} ms  p95 {p95:7.0f} ms"
        )
    wrong_mistakes = {
        student: (sent, mistakes.get(student, 0))
        for student, sent in tally.wrong_sent.items()
        if mistakes.get(student, 0) != sent
    }
    counted = len(tally.latencies["upload"])
    print(f"  jobs      {counted:6d} done  {counted / elapsed:7.2f}/s (ingestion jobs, counted)")
    logged, wrong = sum(mistakes.values()), sum(tally.wrong_sent.values())
    print(
        f"checks: lost replies {sum(tally.lost.values())} {dict(tally.lost)}; mistakes logged "
        f"{logged} for {wrong} wrong answers (students off: {len(wrong_mistakes)}); "
        f"jobs done {jobs:.0f} for {tally.uploads} uploads (warm-up included)"
    )
    ok = not tally.lost and not wrong_mistakes and logged == wrong and jobs == tally.uploads
    print("load: " + ("zero lost or doubled" if ok else "LOST OR DOUBLED: see the checks"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
