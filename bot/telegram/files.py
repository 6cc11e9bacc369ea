"""Documents sent in a chat, ingested as course material or as a student's private notes.

A file is checked (type, size) before anything is downloaded, downloaded into a private
temporary folder, and ingested while one progress message is edited; the report replaces it.
A file that fails leaves the index as it was (the ingestor swaps a document in whole)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import structlog
from telegram import Bot, Document, Message
from telegram.constants import FileSizeLimit
from telegram.error import BadRequest, TelegramError

from bot.common import wording
from bot.common.progress import ProgressMessage
from bot.common.uploads import check_upload, safe_file_name, upload_folder
from bot.telegram.delivery import Target, deliver, typing
from bot.telegram.markup import PARSE_MODE, escape
from bot.telegram.render import Outgoing, TextMessage, render, render_all
from core.context import Context
from core.course_bot import CourseBot
from core.errors import UserFacingError
from core.replies import ErrorReply, Notice, Reply
from ingestion import SourceFile

log = structlog.get_logger(__name__)

DOWNLOAD_FAILED = "I could not fetch '{name}' from Telegram. Please send it again."
NOTES_ARE_PRIVATE = (
    "Notes are private, and a group is not: send /notes to me in a direct message, then your files."
)
SEND_NOTES_FIRST = (
    "What should I do with this file? To add it to your private notes, send /notes first "
    "(or send the file again with the caption /notes). Instructors add course material "
    "with /ingest."
)


def download_limit(max_upload_bytes: int) -> int:
    """The configured limit, but never above what Telegram lets a bot download."""
    return min(max_upload_bytes, FileSizeLimit.FILESIZE_DOWNLOAD)


async def ingest_document(
    core: CourseBot,
    bot: Bot,
    ctx: Context,
    message: Message,
    *,
    private: bool,
    max_bytes: int,
) -> None:
    document = message.document
    if document is None:
        raise ValueError("a message without a document")
    target = Target.answering(message)
    name = document.file_name or "upload"
    try:
        check_upload(name, document.file_size, max_bytes)
    except UserFacingError as error:
        await deliver(bot, target, render(ErrorReply(str(error))))
        return
    [progress] = await deliver(bot, target, render(Notice(f"Ingesting {name}…")))

    async def edit(text: str) -> None:
        await progress.edit_text(escape(text), parse_mode=PARSE_MODE)

    async with typing(bot, target):
        outcome = await _download_and_ingest(core, bot, ctx, document, name, edit, private)
    await _replace(bot, target, progress, render_all([outcome]))


async def _download_and_ingest(
    core: CourseBot,
    bot: Bot,
    ctx: Context,
    document: Document,
    name: str,
    edit: Callable[[str], Awaitable[object]],
    private: bool,
) -> Reply:
    with upload_folder() as folder:
        path = folder / safe_file_name(name)
        try:
            telegram_file = await bot.get_file(document.file_id)
            await telegram_file.download_to_drive(path)
        except TelegramError:
            log.warning("upload not downloaded", file=name, exc_info=True)
            return ErrorReply(DOWNLOAD_FAILED.format(name=name))
        try:
            report = await core.ingest(
                ctx, [SourceFile(path, name)], on_progress=ProgressMessage(edit), private=private
            )
        except UserFacingError as error:
            return ErrorReply(str(error))
    return Notice("\n".join(wording.ingest_report_lines(report)))


async def _replace(bot: Bot, target: Target, progress: Message, items: list[Outgoing]) -> None:
    """Show the outcome in place of the progress message (the rest, if long, after it)."""
    first = items[0]
    if isinstance(first, TextMessage):
        try:
            await progress.edit_text(first.html, parse_mode=PARSE_MODE)
        except BadRequest:  # deleted meanwhile: say it anew
            pass
        else:
            items = items[1:]
            target = Target(target.chat_id, thread_id=target.thread_id)
    await deliver(bot, target, items)
