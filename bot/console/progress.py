"""A terminal progress bar for ingestion runs (rich)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from bot.common.wording import plural, shown_name
from core.material import IngestProgress


@contextmanager
def ingest_progress_bar(console: Console) -> Iterator[Callable[[IngestProgress], None]]:
    bar = Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("files · {task.fields[pages]} · {task.fields[chunks]}"),
        TimeElapsedColumn(),
        console=console,
        transient=False,
    )
    task = bar.add_task("ingesting", total=None, pages=plural(0, "page"), chunks=plural(0, "chunk"))

    def update(progress: IngestProgress) -> None:
        bar.update(
            task,
            total=progress.files_total,
            completed=progress.files_done,
            # The name is escaped: a newline would break the bar's one line, and a `[/]`
            # in it would be read as rich markup.
            description=escape(f"{progress.stage} {shown_name(progress.current)}"[:48]),
            pages=plural(progress.pages, "page"),
            chunks=plural(progress.chunks, "chunk"),
        )

    with bar:
        yield update
