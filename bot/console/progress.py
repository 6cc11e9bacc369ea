"""A terminal progress bar for ingestion runs (rich)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from ingestion.pipeline import IngestProgress


@contextmanager
def ingest_progress_bar(console: Console) -> Iterator[Callable[[IngestProgress], None]]:
    bar = Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("files · {task.fields[pages]} pages · {task.fields[chunks]} chunks"),
        TimeElapsedColumn(),
        console=console,
        transient=False,
    )
    task = bar.add_task("ingesting", total=None, pages=0, chunks=0)

    def update(progress: IngestProgress) -> None:
        bar.update(
            task,
            total=progress.files_total,
            completed=progress.files_done,
            description=f"{progress.stage} {progress.current}"[:48],
            pages=progress.pages,
            chunks=progress.chunks,
        )

    with bar:
        yield update
