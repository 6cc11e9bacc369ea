"""Documents sent in a chat, as the core's `IncomingFile`s, and the progress message shown
while the core ingests them: sent at the first sign of progress, edited as it advances, and
replaced by the outcome."""

from __future__ import annotations

from pathlib import Path

import structlog
from telegram import Bot, Message
from telegram.constants import FileSizeLimit
from telegram.error import BadRequest, TelegramError

from bot.common.progress import ProgressMessage
from bot.telegram.delivery import Target, deliver
from bot.telegram.markup import PARSE_MODE, escape
from bot.telegram.render import Outgoing, TextMessage
from core.material import IngestProgress
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


class UploadProgress:
    """A progress callback for the core that shows one edited message in the chat."""

    def __init__(self, bot: Bot, target: Target) -> None:
        self._bot = bot
        self._target = target
        self._message: Message | None = None
        self._throttled = ProgressMessage(self._show)

    async def __call__(self, progress: IngestProgress) -> None:
        await self._throttled(progress)

    async def _show(self, text: str) -> None:
        if self._message is None:
            [self._message] = await deliver(self._bot, self._target, [TextMessage(escape(text))])
        else:
            await self._message.edit_text(escape(text), parse_mode=PARSE_MODE)

    async def conclude(self, items: list[Outgoing]) -> None:
        """Show the outcome in place of the progress message (the rest, if long, after it)."""
        target = self._target
        if self._message is not None and items and isinstance(items[0], TextMessage):
            try:
                await self._message.edit_text(items[0].html, parse_mode=PARSE_MODE)
            except BadRequest:  # deleted meanwhile: say it anew
                pass
            else:
                items = items[1:]
                target = Target(target.chat_id, thread_id=target.thread_id)
        await deliver(self._bot, target, items)
