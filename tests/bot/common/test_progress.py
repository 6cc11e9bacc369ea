"""Ingestion progress as one edited message: at most one edit per interval (by an injected
clock), the final update always shown, identical text never re-sent, and a failing edit
never stopping the ingestion."""

from __future__ import annotations

from pathlib import Path

from qdrant_client import AsyncQdrantClient
from support.clock import FakeClock
from support.embedders import HashEmbedder

from bot.common.progress import ProgressMessage
from bot.common.wording import progress_text
from core.index import ChunkIndex, SparseEncoder
from ingestion.pipeline import Ingestor, IngestProgress, SourceFile


class Edits:
    def __init__(self, failures: int = 0) -> None:
        self.texts: list[str] = []
        self.failures = failures

    async def __call__(self, text: str) -> None:
        if self.failures:
            self.failures -= 1
            raise ConnectionError("message to edit not found")
        self.texts.append(text)


def step(done: int, total: int = 3, chunks: int = 0, current: str = "a.pdf") -> IngestProgress:
    return IngestProgress(
        files_done=done, files_total=total, pages=0, chunks=chunks, current=current
    )


async def test_first_update_is_shown_at_once() -> None:
    edits = Edits()
    await ProgressMessage(edits, clock=FakeClock())(step(0))
    assert edits.texts == [progress_text(step(0))]


async def test_updates_within_the_interval_are_skipped() -> None:
    clock, edits = FakeClock(), Edits()
    progress = ProgressMessage(edits, interval_s=2.0, clock=clock)

    await progress(step(0, chunks=1))
    clock.now += 1.9
    await progress(step(0, chunks=2))
    clock.now += 0.1
    await progress(step(0, chunks=3))
    clock.now += 1.0
    await progress(step(1, chunks=4))

    assert edits.texts == [progress_text(step(0, chunks=1)), progress_text(step(0, chunks=3))]


async def test_final_update_is_always_shown() -> None:
    clock, edits = FakeClock(), Edits()
    progress = ProgressMessage(edits, interval_s=2.0, clock=clock)

    await progress(step(2, chunks=5))
    clock.now += 0.01
    await progress(step(3, chunks=9, current="c.pdf"))

    assert edits.texts[-1] == progress_text(step(3, chunks=9, current="c.pdf"))
    assert len(edits.texts) == 2


async def test_identical_text_is_not_sent_again() -> None:
    clock, edits = FakeClock(), Edits()
    progress = ProgressMessage(edits, interval_s=2.0, clock=clock)

    await progress(step(3))
    clock.now += 10
    await progress(step(3))
    await progress(step(0))

    assert edits.texts == [progress_text(step(3)), progress_text(step(0))]


async def test_failing_edit_is_swallowed_and_later_updates_go_on() -> None:
    clock, edits = FakeClock(), Edits(failures=1)
    progress = ProgressMessage(edits, interval_s=2.0, clock=clock)

    await progress(step(0))  # raises inside, must not escape
    clock.now += 2
    await progress(step(1))
    await progress(step(3))

    assert edits.texts == [progress_text(step(1)), progress_text(step(3))]


async def test_a_real_ingestion_edits_at_start_and_end_only_when_the_clock_stands_still(
    tmp_path: Path,
) -> None:
    embedder = HashEmbedder()
    index = ChunkIndex(
        AsyncQdrantClient(location=":memory:"), "progress", embedder.dimensions, False
    )
    await index.ensure()
    files = []
    for n in range(3):
        path = tmp_path / f"week-{n}.md"
        path.write_text(f"# Week {n}\n\nLimits and derivatives, part {n}.\n")
        files.append(SourceFile.at(path))
    ingestor = Ingestor(index=index, embedder=embedder, sparse=SparseEncoder(), max_bytes=10**6)
    edits = Edits()
    try:
        report = await ingestor.ingest(
            files, "calc101", on_progress=ProgressMessage(edits, clock=FakeClock())
        )
    finally:
        await index.close()

    assert report.failed == []
    assert len(edits.texts) == 2
    assert edits.texts[0].startswith("Ingesting file 1 of 3: week-0.md (reading)")
    assert edits.texts[1].startswith("Ingesting file 3 of 3: week-2.md (added)")
    assert edits.texts[1].endswith(f"{report.chunks} chunks so far")
