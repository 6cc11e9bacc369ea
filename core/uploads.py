"""Files sent in a chat: one use case, in the core. A file is refused before anything is
downloaded when the asker may not add it (course material needs an instructor; private notes
are never taken where others read), when its type is not supported or when it is too large;
then it is downloaded into a private temporary folder under a safe name and ingested.

Chat platforms cannot always attach files to a command, so `/ingest` or `/notes` without a
file leaves a short-lived note in the session store (shared by replicas) that this user's
next files in this chat are course material or private notes."""

from __future__ import annotations

import json
import re
import tempfile
from collections.abc import Awaitable, Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import structlog

from core.context import Context
from core.errors import BadInputError, UserFacingError
from core.material import (
    IngestReport,
    MaterialIngestor,
    ProgressCallback,
    SourceFile,
    size_problem,
)
from core.permissions import Action, require
from core.replies import IngestSummary, Notice
from core.requests import IncomingFile
from core.sessions import SessionStore, session_key
from core.text import shown_name
from core.visibility import reads_alone

log = structlog.get_logger(__name__)

EXPECT_FILES_FOR_S = 600
_RACES = 3

NOTES_ARE_PRIVATE = (
    "Notes are private, and this chat is not: send /notes to me in a direct message, "
    "then your files."
)
SEND_NOTES_FIRST = (
    "What should I do with this file? To add it to your private notes, send /notes first "
    "(or send the file again with the caption /notes). Instructors add course material "
    "with /ingest."
)
DOWNLOAD_FAILED = "I could not fetch '{name}'. Please send it again."

_UNSAFE = re.compile(r"[^\w.\- ()]+")
# File systems allow 255 bytes per name; a margin for the suffixes tools add.
_MAX_NAME_BYTES = 200
_MAX_SUFFIX_BYTES = 32
_DOUBLE_SUFFIXES = (".exercise.yaml", ".exercise.yml")


class DownloadFailedError(Exception):
    """An adapter could not fetch a file from its platform (raised by `IncomingFile.download`)."""


def safe_file_name(name: str) -> str:
    """The file name a user sent, without folders or characters a file system may refuse,
    shortened to fit a file system but keeping its type (the loader is chosen by it)."""
    base = Path(name.replace("\\", "/")).name
    cleaned = _UNSAFE.sub("_", base).strip(" .")
    if not cleaned:
        return "upload"
    lower = cleaned.lower()
    suffix = next((s for s in _DOUBLE_SUFFIXES if lower.endswith(s)), Path(cleaned).suffix)
    suffix = _fit(cleaned[len(cleaned) - len(suffix) :], _MAX_SUFFIX_BYTES) if suffix else ""
    stem = _fit(cleaned[: len(cleaned) - len(suffix)], _MAX_NAME_BYTES - len(suffix.encode()))
    return f"{stem.rstrip(' .') or 'upload'}{suffix}"


def _fit(text: str, max_bytes: int) -> str:
    """`text` cut to at most `max_bytes` of UTF-8, never inside a character."""
    return text.encode()[:max_bytes].decode(errors="ignore")


@contextmanager
def upload_folder(spool: Path | None = None) -> Iterator[Path]:
    """A private temporary folder, removed with everything in it afterwards; under `spool`
    when given (a folder the workers that ingest it can read too)."""
    if spool is not None:
        spool.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(
        prefix="coursebot-upload-", dir=spool, ignore_cleanup_errors=True
    ) as folder:
        yield Path(folder)


# Ingests downloaded files (a background job, core/jobs): (sources, owner, progress) -> report.
Ingest = Callable[
    [Sequence[SourceFile], str | None, ProgressCallback | None], Awaitable[IngestReport]
]


class ExpectedUploads:
    def __init__(self, store: SessionStore, prefix: str, ttl_s: int = EXPECT_FILES_FOR_S) -> None:
        self._store = store
        self._prefix = prefix
        self._ttl_s = ttl_s

    async def expect(self, ctx: Context, *, private: bool) -> None:
        key = self._key(ctx)
        value = json.dumps({"private": private})
        for _ in range(_RACES):
            stored = await self._store.get(key)
            if await self._store.compare_and_set(
                key, value, stored.version if stored else 0, self._ttl_s
            ):
                return

    async def pending(self, ctx: Context) -> bool | None:
        """Whether files are expected (True: as private notes, False: as course material),
        or None when no command announced them in the last ten minutes."""
        stored = await self._store.get(self._key(ctx))
        return bool(json.loads(stored.value)["private"]) if stored else None

    async def done(self, ctx: Context) -> None:
        await self._store.delete(self._key(ctx))

    def _key(self, ctx: Context) -> str:
        chat = ctx.chat_id or "direct"
        return session_key(self._prefix, "upload", ctx.platform, chat, ctx.course_id, ctx.user_id)


class UploadDesk:
    def __init__(
        self,
        ingestor: MaterialIngestor,
        expected: ExpectedUploads,
        max_bytes: int,
        spool: Path | None = None,
    ) -> None:
        """Uploads are downloaded under `spool` (the data dir's, which workers share) or, when
        None, the system's temporary folder."""
        self._ingestor = ingestor
        self._expected = expected
        self._max_bytes = max_bytes
        self._spool = spool

    async def announce(self, ctx: Context, *, private: bool) -> Notice:
        """`/ingest` or `/notes` without a file: the user's next files here are for it."""
        self._may_add(ctx, private=private)
        await self._expected.expect(ctx, private=private)
        what = "your private notes" if private else f"material for '{ctx.course_id}'"
        return Notice(
            f"Send the files now and I will add them as {what} "
            f"(I'll wait {EXPECT_FILES_FOR_S // 60} minutes)."
        )

    async def intent(self, ctx: Context, command: str | None) -> bool | None:
        """Whether files are private notes (True) or material (False); None: nobody said."""
        if command in ("notes", "ingest"):
            return command == "notes"
        return await self._expected.pending(ctx)

    async def receive(
        self,
        ctx: Context,
        files: Sequence[IncomingFile],
        *,
        private: bool,
        on_progress: ProgressCallback | None = None,
        ingest: Ingest | None = None,
    ) -> IngestSummary:
        """Check, download and ingest `files`, through `ingest` when given (a job)."""
        self._may_add(ctx, private=private)
        for file in files:  # everything is checked before anything is downloaded
            self.check(file)
        await self._expected.done(ctx)
        owner = ctx.user_id if private else None
        with upload_folder(self._spool) as folder:
            # One folder per file: two attachments may carry the same name.
            sources = [await _download(file, folder / str(n)) for n, file in enumerate(files)]
            if ingest is not None:
                report = await ingest(sources, owner, on_progress)
            else:
                report = await self._ingestor.ingest(
                    sources, ctx.course_id, owner_id=owner, on_progress=on_progress
                )
        return IngestSummary(report)

    def check(self, file: IncomingFile) -> None:
        limit = min(self._max_bytes, file.platform_limit or self._max_bytes)
        reason = self._ingestor.type_error(file.name) or size_problem(file.size, limit)
        if reason is not None:
            raise BadInputError(f"'{shown_name(file.name)}': {reason}")

    @staticmethod
    def _may_add(ctx: Context, *, private: bool) -> None:
        if private and not reads_alone(ctx):
            raise BadInputError(NOTES_ARE_PRIVATE)
        if not private:
            require(ctx, Action.INGEST)


async def _download(file: IncomingFile, folder: Path) -> SourceFile:
    name = safe_file_name(file.name)
    folder.mkdir()
    path = folder / name
    try:
        await file.download(path)
    except DownloadFailedError:
        log.warning("upload not downloaded", file=file.name, exc_info=True)
        raise UserFacingError(DOWNLOAD_FAILED.format(name=shown_name(file.name))) from None
    return SourceFile(path=path, file_name=name)
