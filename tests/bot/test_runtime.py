"""The runtime shell of the long-running commands: `coursebot watch` started as a process
answers /healthz, /readyz and /metrics on COURSEBOT_HTTP_PORT, keeps /metrics behind its
token, binds the process into its log lines, and ends within 10 s of SIGTERM. The worker's
own process test is in tests/ingestion/test_jobs.py."""

from __future__ import annotations

import json
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from support.paths import SAMPLE_COURSE
from support.processes import coursebot_env, free_port, sigterm_and_wait, start, wait_for

from bot.runtime import Shell, run_shell
from config import Settings
from core.metrics import Metrics


@pytest.fixture
def watch(tmp_path: Path) -> Iterator[tuple[subprocess.Popen[str], str]]:
    port = free_port()
    env = coursebot_env(tmp_path / "data", port, COURSEBOT_METRICS_TOKEN="s3cret-token")
    process = start(
        ["watch", str(SAMPLE_COURSE), "--course", "sample", "--every", "1h"], env, tmp_path
    )
    try:
        yield process, f"http://127.0.0.1:{port}"
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()


def test_watch_serves_health_readiness_and_metrics_then_stops_on_sigterm(
    watch: tuple[subprocess.Popen[str], str],
) -> None:
    process, base = watch
    wait_for(f"{base}/healthz", process)
    assert httpx.get(f"{base}/healthz").json() == {"status": "alive"}
    ready = httpx.get(f"{base}/readyz")
    assert ready.status_code == 200, ready.text
    assert ready.json()["checks"] == {"index": "ok", "database": "ok"}

    assert httpx.get(f"{base}/metrics").status_code == 401
    wrong = httpx.get(f"{base}/metrics", headers={"Authorization": "Bearer nope"})
    assert wrong.status_code == 401
    # The first run ingests the sample course: its runs are counted once it ends.
    body = ""
    deadline = time.monotonic() + 120
    while 'coursebot_schedule_runs_total{kind="ingest",outcome="done"} 1.0' not in body:
        assert time.monotonic() < deadline, body[-2000:]
        time.sleep(0.5)
        metrics = httpx.get(f"{base}/metrics", headers={"Authorization": "Bearer s3cret-token"})
        assert metrics.status_code == 200
        assert metrics.headers["content-type"].startswith("text/plain")
        body = metrics.text
    assert 'coursebot_stage_seconds_count{stage="ingest"} 1.0' in body
    assert "coursebot_job_queue_depth" in body

    code, _out, err = sigterm_and_wait(process)
    assert code == 0, err[-3000:]
    lines = [json.loads(line) for line in err.splitlines() if line.startswith("{")]
    assert any(line.get("event") == "stopping" for line in lines)
    assert all(line.get("process") == "watch" for line in lines if "event" in line)
    # On the embedded default its sessions die with it, and it says so once.
    local = [line for line in lines if "kept in this process" in line.get("event", "")]
    assert len(local) == 1 and local[0]["level"] == "warning"
    assert "s3cret-token" not in err


async def test_readiness_names_the_probe_that_failed_and_says_stopping(tmp_path: Path) -> None:
    async def fine() -> bool:
        return True

    async def broken() -> bool:
        raise ConnectionRefusedError

    shell = Shell("test", Metrics(), {"index": fine, "redis": broken})
    assert await shell.readiness() == {"index": "ok", "redis": "ConnectionRefusedError"}
    shell.stop()
    assert (await shell.readiness())["process"] == "stopping"


async def test_a_port_in_use_is_an_error_not_a_silent_shell(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        settings = Settings(  # type: ignore[call-arg]
            _env_file=None, data_dir=tmp_path, http_port=port, http_host="127.0.0.1"
        )
        with pytest.raises(OSError):
            async with run_shell("test", settings, Metrics()):
                pass


async def test_closing_the_core_flushes_the_mistake_outbox_once_more(
    settings: Settings, bundled_model: None
) -> None:
    """What a stopping process holds in its outbox (an outage's mistakes) reaches the
    database on the way out, not only at the next periodic flush."""
    from bot.composition import open_assembly
    from core.mistakes import MistakeLog
    from core.mistakes.log import MistakeEntry

    entry = MistakeEntry(
        course_id="calc", student_id="alice", exercise_id="ex", step_index=0, skill="limits",
        answer="7", idempotency_key="test:held-at-exit",
    )  # fmt: skip
    async with open_assembly(settings) as assembly:
        assembly.outbox.hold(entry)
    log = await MistakeLog.open(settings)
    try:
        [logged] = await log.latest("calc")
    finally:
        await log.close()
    assert (logged.student_id, logged.answer) == ("alice", "7")
