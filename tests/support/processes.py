"""Starting `coursebot` sub-commands as processes, fetching their endpoints, stopping them."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
from support.paths import REPO_ROOT

STOP_WITHIN_S = 10


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def coursebot_env(data_dir: Path, port: int, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("COURSEBOT_")}
    env.update(
        PYTHONPATH=str(REPO_ROOT),
        COURSEBOT_DATA_DIR=str(data_dir),
        COURSEBOT_HTTP_PORT=str(port),
        COURSEBOT_HTTP_HOST="127.0.0.1",
        COURSEBOT_LOG_FORMAT="json",
        **extra,
    )
    return env


def start(
    args: list[str], env: dict[str, str], cwd: Path, module: str = "bot.cli"
) -> subprocess.Popen[str]:
    """`coursebot ARGS` as a process (or `module`'s main, which runs it its own way)."""
    return subprocess.Popen(
        [sys.executable, "-m", module, *args],
        env=env,
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def wait_for(url: str, process: subprocess.Popen[str], *, give_up_s: float = 120) -> None:
    """Until `url` answers (the process loads its models first), or the process died."""
    deadline = time.monotonic() + give_up_s
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(f"exited early: {process.communicate()[1][-3000:]}")
        try:
            httpx.get(url, timeout=1)
            return
        except httpx.HTTPError:
            time.sleep(0.3)
    raise AssertionError(f"{url} never answered")


def sigterm_and_wait(process: subprocess.Popen[str]) -> tuple[int, str, str]:
    """SIGTERM, then the exit status; a process still running after STOP_WITHIN_S fails."""
    process.send_signal(signal.SIGTERM)
    try:
        out, err = process.communicate(timeout=STOP_WITHIN_S)
    except subprocess.TimeoutExpired:
        process.kill()
        out, err = process.communicate()
        raise AssertionError(
            f"still running {STOP_WITHIN_S} s after SIGTERM: {err[-3000:]}"
        ) from None
    return process.returncode, out, err
