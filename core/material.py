"""Course material as the core sees it: the files handed in, what became of each, and the
ingestor contract the facade calls. The pipeline that loads, chunks and indexes files
implements `MaterialIngestor` outside the core."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Protocol


class FileStatus(StrEnum):
    ADDED = "added"
    REPLACED = "replaced"
    UNCHANGED = "unchanged"
    FAILED = "failed"


@dataclass(frozen=True, slots=True)
class SourceFile:
    """A file to ingest; `file_name` is the name users see (an upload's original name)."""

    path: Path
    file_name: str

    @classmethod
    def at(cls, path: Path) -> SourceFile:
        return cls(path=path, file_name=path.name)


@dataclass(frozen=True, slots=True)
class FileResult:
    file_name: str
    status: FileStatus
    chunks: int = 0
    pages: int = 0
    error: str = ""


@dataclass(slots=True)
class IngestReport:
    results: list[FileResult] = field(default_factory=list)

    @property
    def failed(self) -> list[FileResult]:
        return [r for r in self.results if r.status is FileStatus.FAILED]

    @property
    def chunks(self) -> int:
        return sum(r.chunks for r in self.results)

    @property
    def pages(self) -> int:
        return sum(r.pages for r in self.results)


@dataclass(frozen=True, slots=True)
class IngestProgress:
    """Where a run is: the CLI draws a bar from it, chat adapters edit a message."""

    files_done: int
    files_total: int
    pages: int
    chunks: int
    current: str = ""
    stage: str = ""

    @property
    def finished(self) -> bool:
        return self.files_done >= self.files_total


ProgressCallback = Callable[[IngestProgress], Awaitable[None] | None]


class MaterialIngestor(Protocol):
    """Files in, a tenant-scoped index out; what the facade needs from the pipeline."""

    async def ingest(
        self,
        sources: Sequence[SourceFile],
        course_id: str,
        *,
        owner_id: str | None = None,
        on_progress: ProgressCallback | None = None,
    ) -> IngestReport: ...

    async def forget(self, course_id: str, document: str, owner_id: str | None = None) -> bool:
        """Remove a document by id or file name; False when the course has no such document."""
        ...

    def type_error(self, file_name: str) -> str | None:
        """Why a file of this name cannot be ingested (its type), or None when it can."""
        ...


def size_problem(size: int | None, max_bytes: int) -> str | None:
    """Why a file of `size` bytes is refused, or None: one wording for uploads and ingestion."""
    if size is None or size <= max_bytes:
        return None
    return f"the file is {size / 1_048_576:.1f} MB; the limit is {max_bytes / 1_048_576:.0f} MB"
