from __future__ import annotations

import asyncio
from datetime import timedelta
from pathlib import Path

import pytest

from ingestion import IngestReport
from ingestion.schedule import FolderWatch, build_scheduler, parse_interval


@pytest.mark.parametrize(
    ("text", "seconds"), [("90s", 90), ("15m", 900), ("2h", 7200), ("1d", 86400), ("0.5h", 1800)]
)
def test_parse_interval(text: str, seconds: int) -> None:
    assert parse_interval(text) == timedelta(seconds=seconds)


@pytest.mark.parametrize("text", ["", "15", "m", "-1m", "0s", "1w"])
def test_parse_interval_refuses_nonsense(text: str) -> None:
    with pytest.raises(ValueError, match="is not an interval"):
        parse_interval(text)


async def test_scheduler_runs_each_watch_at_once_and_again_on_the_interval(tmp_path: Path) -> None:
    runs: list[str] = []
    done = asyncio.Event()

    async def run(watch: FolderWatch) -> IngestReport:
        runs.append(watch.course_id)
        if len(runs) == 2:
            done.set()
        return IngestReport()

    watch = FolderWatch("math101", (tmp_path,), timedelta(seconds=0.3))
    scheduler = build_scheduler([watch], run)
    scheduler.start()
    try:
        await asyncio.wait_for(done.wait(), timeout=10)
    finally:
        scheduler.shutdown(wait=False)
    assert runs[:2] == ["math101", "math101"]
