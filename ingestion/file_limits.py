"""What one file may hold once it is opened: pages per PDF, slides per deck, chunks per file.

The upload's size in bytes says little about the work a file causes: a 16 MB PDF can hold
100,000 pages (250 s and 4.7 GB to ingest). Pages and slides are counted from the file's page
tree or slide list before any text is read, so such a file is refused in well under a second;
chunks are counted before anything is embedded."""

from __future__ import annotations

from dataclasses import dataclass

from ingestion.errors import FileTooLargeError

MAX_PDF_PAGES = 2000
MAX_DECK_SLIDES = 500
MAX_FILE_CHUNKS = 10_000


@dataclass(frozen=True, slots=True)
class FileLimits:
    max_pdf_pages: int = MAX_PDF_PAGES
    max_deck_slides: int = MAX_DECK_SLIDES
    max_chunks: int = MAX_FILE_CHUNKS


def check_count(file_name: str, count: int, limit: int | None, what: str) -> None:
    """Refuse a file with more `what` ("pages", "slides", ...) than `limit` (None: no limit)."""
    if limit is not None and count > limit:
        raise FileTooLargeError(
            f"{file_name} has {count:,} {what}; the limit is {limit:,} {what} per file: "
            "send the parts you need as smaller files."
        )
