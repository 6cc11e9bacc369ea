"""The grading workers die with the process that owns them, however it dies: a bot killed
with SIGKILL left its fork server (234 MB) and a worker (240 MB) running under init for more
than ten minutes, holding its stdout open. A real process opens the pool here and is killed;
every process it started (fork server, workers, resource tracker) must be gone."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from support.paths import REPO_ROOT

pytestmark = pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads /proc (Linux)")

# A hang guard, not a measure: before the fix the processes lived on indefinitely.
GONE_WITHIN_S = 20.0

OWNER = textwrap.dedent(
    """
    import asyncio, json, os, sys

    from core.exercises.process_pool import KillableProcessPool


    async def main() -> None:
        pool = KillableProcessPool(2)
        await asyncio.gather(pool.run(60, os.getpid), pool.run(60, os.getpid))
        print(json.dumps({"owner": os.getpid(), "workers": list(pool.pids)}), flush=True)
        await asyncio.sleep(3600)


    if __name__ == "__main__":  # the fork server imports this file too
        asyncio.run(main())
    """
)


def children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        # "pid (name) state ppid ...": the name may hold spaces, so split after its ')'.
        fields = stat.rsplit(")", 1)[1].split()
        if int(fields[1]) == pid:
            found.append(int(entry.name))
    return found


def running(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"  # a zombie has exited


def test_killing_the_owner_with_sigkill_leaves_no_worker_behind(tmp_path: Path) -> None:
    script = tmp_path / "owner.py"
    script.write_text(OWNER)
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    owner = subprocess.Popen(
        [sys.executable, str(script)], stdout=subprocess.PIPE, env=env, cwd=tmp_path, text=True
    )
    try:
        assert owner.stdout is not None
        started = json.loads(owner.stdout.readline())
        helpers = children(owner.pid)  # the fork server and the resource tracker
        started_processes = {*helpers, *started["workers"]}
        assert set(started["workers"]) <= {p for h in helpers for p in children(h)}
        assert all(running(pid) for pid in started_processes)
    except BaseException:
        owner.kill()
        raise

    owner.send_signal(signal.SIGKILL)
    owner.wait()
    deadline = time.monotonic() + GONE_WITHIN_S
    while time.monotonic() < deadline and any(running(p) for p in started_processes):
        time.sleep(0.1)
    left = [pid for pid in started_processes if running(pid)]
    for pid in left:  # do not leave them to the next test either
        os.kill(pid, signal.SIGKILL)
    assert left == [], f"still running after the owner was killed: {left}"
