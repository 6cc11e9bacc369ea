"""`coursebot telegram` and `coursebot discord` started as processes against the fakes of the
tests (the Bot API server through COURSEBOT_TELEGRAM_API_URL; Discord's REST API and gateway
through a launcher, tests/support/discord_launcher.py says why): each answers /healthz,
/readyz and /metrics on COURSEBOT_HTTP_PORT once connected, and SIGTERM ends it within 10 s
with the mistake outbox flushed (an entry left in its Redis outbox reaches the database).
`watch` is tested in tests/bot/test_runtime.py, `worker` in tests/ingestion/test_jobs.py."""

from __future__ import annotations

import asyncio
import os
import subprocess
import time
import uuid
from collections.abc import AsyncIterator, Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest
from pydantic import TypeAdapter
from redis.asyncio import Redis
from support.fake_discord import FakeDiscordServer
from support.fake_telegram import TOKEN, FakeTelegram, private_chat, user
from support.job_engines import delete_keys
from support.paths import REDIS_URL, REPO_ROOT
from support.processes import coursebot_env, free_port, sigterm_and_wait, start

from config import Settings
from core.mistakes import MistakeLog
from core.mistakes.log import MistakeEntry
from core.sessions.store import session_key

# Generous: a loaded machine may take a while to load the embedder and open the index.
READY_WITHIN_S = 90


@pytest.fixture
async def prefix(redis_prefix: str) -> AsyncIterator[str]:
    yield redis_prefix
    await delete_keys(redis_prefix)


@contextmanager
def running(process: subprocess.Popen[str]) -> Iterator[subprocess.Popen[str]]:
    try:
        yield process
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()


def wait_ready(base: str, process: subprocess.Popen[str]) -> None:
    """Until /readyz says ready (polled, never slept on), or the process died."""
    deadline = time.monotonic() + READY_WITHIN_S
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(f"exited early: {process.communicate()[1][-3000:]}")
        try:
            if httpx.get(f"{base}/readyz", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    raise AssertionError(f"{base}/readyz never said ready")


def check_endpoints(base: str) -> str:
    """The three endpoints answer; the metrics' text."""
    assert httpx.get(f"{base}/healthz").json() == {"status": "alive"}
    ready = httpx.get(f"{base}/readyz").json()
    assert ready["checks"] == {"index": "ok", "database": "ok", "redis": "ok"}, ready
    metrics = httpx.get(f"{base}/metrics")
    assert metrics.status_code == 200
    assert "coursebot_job_queue_depth" in metrics.text
    return metrics.text


def held_mistake() -> MistakeEntry:
    return MistakeEntry(
        course_id="calc", student_id="alice", exercise_id="ex", step_index=0,
        skill="limits", answer=uuid.uuid4().hex, idempotency_key=f"test:{uuid.uuid4()}",
    )  # fmt: skip


async def leave_in_outbox(prefix: str, entry: MistakeEntry) -> None:
    """What a process holds in its Redis outbox when it is asked to stop."""
    client = Redis.from_url(REDIS_URL)
    try:
        raw = TypeAdapter(MistakeEntry).dump_json(entry).decode()
        await client.rpush(session_key(prefix, "outbox", "mistakes"), raw)
    finally:
        await client.aclose()


async def logged(data_dir: Path, entry: MistakeEntry) -> bool:
    settings = Settings(_env_file=None, data_dir=data_dir)  # type: ignore[call-arg]
    log = await MistakeLog.open(settings, migrate_schema=False)
    try:
        return any(e.answer == entry.answer for e in await log.latest(entry.course_id))
    finally:
        await log.close()


async def stop_flushed(process: subprocess.Popen[str], prefix: str, data_dir: Path) -> None:
    """SIGTERM right after an entry is left in the outbox: the process ends within 10 s,
    cleanly, and the entry is in the database."""
    entry = held_mistake()
    await leave_in_outbox(prefix, entry)
    code, _out, err = await asyncio.to_thread(sigterm_and_wait, process)
    assert code == 0, err[-3000:]
    assert await logged(data_dir, entry), err[-3000:]


async def test_coursebot_telegram_serves_its_endpoints_and_stops_on_sigterm(
    tmp_path: Path, prefix: str
) -> None:
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    async with FakeTelegram() as fake:
        env = coursebot_env(
            tmp_path / "data", port, COURSEBOT_TELEGRAM_TOKEN=TOKEN,
            COURSEBOT_TELEGRAM_API_URL=fake.url, COURSEBOT_REDIS_URL=REDIS_URL,
            COURSEBOT_REDIS_PREFIX=prefix,
        )  # fmt: skip
        with running(start(["telegram"], env, tmp_path)) as process:
            await asyncio.to_thread(wait_ready, base, process)
            # It polls the fake Bot API: a message sent to the bot is answered.
            alice = user(801, "Alice")
            await fake.push(fake.text_update(private_chat(alice), alice, "/help"))
            await fake.wait_for_calls("sendMessage", 1, timeout=READY_WITHIN_S)
            metrics = check_endpoints(base)
            assert 'command="help",outcome="ok",platform="telegram"' in metrics
            await stop_flushed(process, prefix, tmp_path / "data")


async def test_coursebot_discord_serves_its_endpoints_and_stops_on_sigterm(
    tmp_path: Path, prefix: str
) -> None:
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    server = FakeDiscordServer()
    await server.start()
    try:
        env = coursebot_env(
            tmp_path / "data", port, COURSEBOT_DISCORD_TOKEN="fake-token",
            COURSEBOT_REDIS_URL=REDIS_URL, COURSEBOT_REDIS_PREFIX=prefix,
            CBTEST_DISCORD_API=server.api_base, CBTEST_DISCORD_GATEWAY=server.gateway_url,
        )  # fmt: skip
        env["PYTHONPATH"] = os.pathsep.join([str(REPO_ROOT), str(REPO_ROOT / "tests")])
        launcher = start([], env, tmp_path, module="support.discord_launcher")
        with running(launcher) as process:
            await asyncio.to_thread(wait_ready, base, process)
            # It logged in to the fake REST API and identified on its gateway.
            await asyncio.wait_for(server.identified.wait(), READY_WITHIN_S)
            [identify] = server.identifies
            assert identify["token"] == "fake-token"
            check_endpoints(base)
            await stop_flushed(process, prefix, tmp_path / "data")
    finally:
        await server.close()
