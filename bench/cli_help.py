"""How long `coursebot SUB --help` takes, each in a fresh interpreter: the adapters' help
should cost about what `coursebot config --help` does (their library and the core are loaded
only when the bot runs).

Run: python bench/cli_help.py [--runs 5] [--source DIR] (DIR: the tree to time, default
this one). Prints the best and median wall time of each, in seconds."""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

COMMANDS = ("config", "telegram", "discord")


def timed(source: Path, command: str) -> float:
    env = {**os.environ, "PYTHONPATH": str(source)}
    started = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "bot.cli", command, "--help"],
        env=env,
        cwd=source,
        check=True,
        stdout=subprocess.DEVNULL,
    )
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--source", type=Path, default=Path(__file__).resolve().parents[1])
    args = parser.parse_args()
    for command in COMMANDS:
        times = [timed(args.source, command) for _ in range(args.runs)]
        print(
            f"coursebot {command} --help: best {min(times):.2f} s, "
            f"median {statistics.median(times):.2f} s"
        )


if __name__ == "__main__":
    main()
