"""Attachments of /ingest and /notes as the core's `IncomingFile`s: the core checks them
before any is downloaded, then calls `download`."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import discord

from core.requests import IncomingFile
from core.uploads import DownloadFailedError


def incoming_files(attachments: Sequence[discord.Attachment]) -> tuple[IncomingFile, ...]:
    return tuple(_incoming(a) for a in attachments)


def _incoming(attachment: discord.Attachment) -> IncomingFile:
    async def download(path: Path) -> None:
        try:
            await attachment.save(path)
        except discord.HTTPException as error:
            raise DownloadFailedError(str(error)) from error

    return IncomingFile(name=attachment.filename, size=attachment.size, download=download)
