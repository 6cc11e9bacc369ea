"""Documents sent in a chat, as the core's `IncomingFile`s (the progress message shown while
they are ingested is `bot/telegram/progress.py`'s)."""

from __future__ import annotations

from pathlib import Path

import structlog
from telegram import Bot, Message
from telegram.constants import FileSizeLimit
from telegram.error import TelegramError

from core.requests import IncomingFile
from core.uploads import DownloadFailedError

log = structlog.get_logger(__name__)


def incoming_file(bot: Bot, message: Message) -> IncomingFile:
    document = message.document
    if document is None:
        raise ValueError("a message without a document")

    async def download(path: Path) -> None:
        try:
            telegram_file = await bot.get_file(document.file_id)
            await telegram_file.download_to_drive(path)
        except TelegramError as error:
            raise DownloadFailedError(str(error)) from error

    return IncomingFile(
        name=document.file_name or "upload",
        size=document.file_size,
        download=download,
        # Telegram lets bots download files up to 20 MB.
        platform_limit=FileSizeLimit.FILESIZE_DOWNLOAD,
    )
