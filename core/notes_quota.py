"""How much private notes one student may keep, in all courses together: files, pages and
bytes. Any student can send notes, and each file is read, embedded and stored, so without a
quota one student could fill the index (and the machine's time) for everyone.

The rule is here; the ingestion pipeline applies it to every notes file (uploads and the CLI
alike), counting what the student already keeps and what this run has added so far."""

from __future__ import annotations

from dataclasses import dataclass

_MB = 1024 * 1024


@dataclass(frozen=True, slots=True)
class NotesUsage:
    """Notes a student keeps (or a file would add)."""

    files: int = 0
    pages: int = 0
    bytes: int = 0

    def __add__(self, other: NotesUsage) -> NotesUsage:
        return NotesUsage(
            self.files + other.files, self.pages + other.pages, self.bytes + other.bytes
        )

    def __sub__(self, other: NotesUsage) -> NotesUsage:
        return NotesUsage(
            max(self.files - other.files, 0),
            max(self.pages - other.pages, 0),
            max(self.bytes - other.bytes, 0),
        )


@dataclass(frozen=True, slots=True)
class NotesQuota:
    max_files: int = 100
    max_pages: int = 3000
    max_bytes: int = 200 * _MB

    def refusal(self, used: NotesUsage, adding: NotesUsage) -> str | None:
        """Why `adding` to `used` goes over the quota (one line for the student), or None."""
        after = used + adding
        if after.files > self.max_files:
            what = f"{self.max_files:,} files (you keep {used.files:,})"
        elif after.pages > self.max_pages:
            what = (
                f"{self.max_pages:,} pages (you keep {used.pages:,}; this file has "
                f"{adding.pages:,})"
            )
        elif after.bytes > self.max_bytes:
            what = (
                f"{self.max_bytes / _MB:,.0f} MB (you keep {used.bytes / _MB:,.1f} MB; this "
                f"file is {adding.bytes / _MB:,.1f} MB)"
            )
        else:
            return None
        return (
            f"your private notes are limited to {what}: remove notes you no longer need "
            "(/forget --private FILE), then send it again."
        )
