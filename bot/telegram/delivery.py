"""Sending rendered replies to a chat, and the "typing…" sign of life while work is slow."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass

import structlog
from telegram import Bot, LinkPreviewOptions, Message, ReplyParameters
from telegram.constants import ChatAction, ChatType
from telegram.error import TelegramError

from bot.telegram.markup import PARSE_MODE
from bot.telegram.render import FileMessage, Outgoing, TextMessage

log = structlog.get_logger(__name__)

# Telegram shows a chat action for about five seconds; renew it a little before.
TYPING_EVERY_S = 4.0
TYPING_AFTER_S = 0.3
# Citations name files, not links; a preview card would only push the answer up.
NO_PREVIEW = LinkPreviewOptions(is_disabled=True)


@dataclass(frozen=True, slots=True)
class Target:
    """Where replies go: the chat, the message they answer (groups, so the thread stays
    readable) and the forum topic if any."""

    chat_id: int
    reply_to: int | None = None
    thread_id: int | None = None

    @classmethod
    def answering(cls, message: Message) -> Target:
        in_group = message.chat.type != ChatType.PRIVATE
        return cls(
            chat_id=message.chat_id,
            reply_to=message.message_id if in_group else None,
            thread_id=message.message_thread_id if message.is_topic_message else None,
        )


async def deliver(bot: Bot, target: Target, items: Sequence[Outgoing]) -> list[Message]:
    """Send `items` in order; only the first one quotes the message it answers."""
    sent: list[Message] = []
    for number, item in enumerate(items):
        reply = (
            ReplyParameters(target.reply_to, allow_sending_without_reply=True)
            if target.reply_to is not None and number == 0
            else None
        )
        sent.append(await _send(bot, target, item, reply))
    return sent


async def _send(bot: Bot, target: Target, item: Outgoing, reply: ReplyParameters | None) -> Message:
    chat, thread = target.chat_id, target.thread_id
    match item:
        case TextMessage(html=html):
            return await bot.send_message(
                chat,
                html,
                parse_mode=PARSE_MODE,
                message_thread_id=thread,
                reply_parameters=reply,
                link_preview_options=NO_PREVIEW,
            )
        case FileMessage():
            # A chart is shown inline as a photo; anything else arrives as a file.
            send_file = bot.send_photo if item.as_photo else bot.send_document
            return await send_file(
                chat,
                item.content,
                filename=item.file_name,
                caption=item.caption or None,
                parse_mode=PARSE_MODE,
                message_thread_id=thread,
                reply_parameters=reply,
            )
    raise TypeError(f"cannot send {type(item).__name__}")


@asynccontextmanager
async def typing(bot: Bot, target: Target, after_s: float = TYPING_AFTER_S) -> AsyncIterator[None]:
    """Show "typing…" once the block has run `after_s` and keep it up until it ends. Quick
    replies (and refused messages: a flood) cost no chat action, whose calls count against
    Telegram's rate limits. A failed chat action is logged and ignored: it is a courtesy,
    not part of the answer."""

    async def keep_typing() -> None:
        await asyncio.sleep(after_s)
        while True:
            await _chat_action(bot, target)
            await asyncio.sleep(TYPING_EVERY_S)

    task = asyncio.create_task(keep_typing())
    try:
        yield
    finally:
        task.cancel()
        with suppress(asyncio.CancelledError):
            await task


async def _chat_action(bot: Bot, target: Target) -> None:
    try:
        await bot.send_chat_action(
            target.chat_id, ChatAction.TYPING, message_thread_id=target.thread_id
        )
    except TelegramError:
        log.warning("chat action not sent", chat=target.chat_id, exc_info=True)
