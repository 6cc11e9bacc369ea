"""Sending rendered replies to a chat (texts with their buttons, files, quiz polls), editing
a flashcard in place, and the "typing…" sign of life while work is slow."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass
from typing import Literal, cast

import structlog
from telegram import (
    Bot,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    LinkPreviewOptions,
    Message,
    Poll,
    ReplyParameters,
)
from telegram.constants import ChatAction, ChatType
from telegram.error import BadRequest, TelegramError

from bot.telegram.callbacks import Button
from bot.telegram.markup import PARSE_MODE
from bot.telegram.render import FileMessage, Outgoing, PollMessage, TextMessage

log = structlog.get_logger(__name__)

# Telegram shows a chat action for about five seconds; renew it a little before.
TYPING_EVERY_S = 4.0
TYPING_AFTER_S = 0.3
# Citations name files, not links; a preview card would only push the answer up.
NO_PREVIEW = LinkPreviewOptions(is_disabled=True)
# Telegram numbers a quiz poll's options 0-11; the study checks keep a question to four.
OptionNumber = Literal[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]

# Told about each message once it is sent (the core remembers which poll asks what).
Sent = Callable[[Outgoing, Message], Awaitable[None]]


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


async def deliver(
    bot: Bot, target: Target, items: Sequence[Outgoing], on_sent: Sent | None = None
) -> list[Message]:
    """Send `items` in order; only the first one quotes the message it answers. `on_sent`
    hears of each one as soon as it is out, before the next: a quiz's polls go out at
    Telegram's pace, and the first may be answered while the last is still queued."""
    sent: list[Message] = []
    for number, item in enumerate(items):
        reply = (
            ReplyParameters(target.reply_to, allow_sending_without_reply=True)
            if target.reply_to is not None and number == 0
            else None
        )
        message = await _send(bot, target, item, reply)
        sent.append(message)
        if on_sent is not None:
            await on_sent(item, message)
    return sent


async def edit(bot: Bot, message: Message, item: TextMessage) -> None:
    """Show `item` in place of the bot's own `message` (a flashcard turned or the next one).
    The same text again (a double tap, a replayed press) is not an error."""
    try:
        await bot.edit_message_text(
            item.html,
            chat_id=message.chat_id,
            message_id=message.message_id,
            parse_mode=PARSE_MODE,
            reply_markup=_keyboard(item.buttons),
            link_preview_options=NO_PREVIEW,
        )
    except BadRequest as error:
        if "not modified" not in error.message.lower():
            raise


async def _send(bot: Bot, target: Target, item: Outgoing, reply: ReplyParameters | None) -> Message:
    chat, thread = target.chat_id, target.thread_id
    match item:
        case TextMessage(html=html, buttons=buttons):
            return await bot.send_message(
                chat,
                html,
                parse_mode=PARSE_MODE,
                message_thread_id=thread,
                reply_parameters=reply,
                link_preview_options=NO_PREVIEW,
                reply_markup=_keyboard(buttons),
            )
        case PollMessage():
            # Not anonymous: only then does Telegram send the votes (poll_answer updates).
            return await bot.send_poll(
                chat,
                item.question,
                list(item.options),
                is_anonymous=False,
                type=Poll.QUIZ,
                correct_option_ids=[cast(OptionNumber, item.correct)],
                explanation=item.explanation or None,
                message_thread_id=thread,
                reply_parameters=reply,
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


def _keyboard(buttons: Sequence[Button]) -> InlineKeyboardMarkup | None:
    if not buttons:
        return None
    row = [InlineKeyboardButton(b.text, callback_data=b.data) for b in buttons]
    return InlineKeyboardMarkup([row])


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
