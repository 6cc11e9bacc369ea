"""Attachments sent with /ingest and /notes: checked before anything is downloaded, saved
under their sanitised names in a private temporary folder, ingested, and reported."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import discord

from bot.common import wording
from bot.common.uploads import check_upload, safe_file_name, upload_folder
from core.context import Context
from core.course_bot import CourseBot
from core.errors import BadInputError
from core.permissions import Action, require
from core.replies import Notice
from ingestion.pipeline import ProgressCallback, SourceFile

# How many attachment options each command offers (Discord has no list-of-files option).
MAX_FILES = {"ingest": 5, "notes": 3}


async def ingest_attachments(
    bot: CourseBot,
    ctx: Context,
    attachments: Sequence[discord.Attachment],
    *,
    command: str,
    private: bool,
    max_bytes: int,
    on_progress: ProgressCallback | None = None,
) -> Notice:
    """Ingest the attachments as course material or, when `private`, as the user's notes."""
    if not attachments:
        raise BadInputError(f"Please attach a file to /{command} (up to {MAX_FILES[command]}).")
    if not private:
        require(ctx, Action.INGEST)  # refuse before downloading anything
    for attachment in attachments:
        check_upload(attachment.filename, attachment.size, max_bytes)
    with upload_folder() as folder:
        # One folder per file: two attachments may carry the same name.
        sources = [await _download(a, folder / str(n)) for n, a in enumerate(attachments)]
        report = await bot.ingest(ctx, sources, on_progress=on_progress, private=private)
    return Notice("\n".join(wording.ingest_report_lines(report)))


async def _download(attachment: discord.Attachment, folder: Path) -> SourceFile:
    name = safe_file_name(attachment.filename)
    folder.mkdir()
    path = folder / name
    try:
        await attachment.save(path)
    except discord.HTTPException:
        raise BadInputError(
            f"I could not download '{attachment.filename}' from Discord; please send it again."
        ) from None
    return SourceFile(path=path, file_name=name)
