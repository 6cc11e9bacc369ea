"""Telegram updates to core requests, and the core's responses back to the chat.

Nothing here decides who may do what, which course a message is about or what may be shown
where: that is the core's. This module says who sent a message and where (a group others
read, or a direct message), what it says and which files it carries, calls
`CourseBot.handle` once and renders the response. A failure that is not the user's reaches
`on_error`: it is logged and the chat gets a polite apology, never a traceback."""

from __future__ import annotations

from contextlib import AbstractAsyncContextManager, nullcontext
from typing import Any

import structlog
from telegram import Bot, Message, Update
from telegram.error import TelegramError
from telegram.ext import Application, ContextTypes, MessageHandler, filters

from bot.telegram.addressing import addressed_to, for_another_bot, without_mention
from bot.telegram.delivery import Target, deliver, typing
from bot.telegram.files import UploadProgress, incoming_file
from bot.telegram.markup import PARSE_MODE, escape
from bot.telegram.members import in_group, member_for, place_of, principal_argument
from bot.telegram.render import render_all
from core.commands import ParsedCommand, parse_command
from core.course_bot import INTERNAL_ERROR, CourseBot
from core.replies import Notice
from core.requests import Request, Response

log = structlog.get_logger(__name__)

Callback = ContextTypes.DEFAULT_TYPE

# Whether the sender administers the group matters only here: one getChatMember call.
NEEDS_ADMIN = frozenset({"bind"})
# Commands slow enough to show "typing…" while the core works.
SLOW = frozenset({"ask", "practice", "answer", "mistakes"})
# Commands whose last word names a user (by reply, or by numeric id), and the words before it.
NAMES_A_USER = {"grant": 1, "revoke": 1, "transfer": 0}

HOW_TO_ASK = (
    "Ask me about the course: mention me with your question, reply to one of my messages, "
    "or send /ask QUESTION."
)


class TelegramHandlers:
    def __init__(self, core: CourseBot) -> None:
        self.core = core

    def register(self, application: Application[Any, Any, Any, Any, Any, Any]) -> None:
        new = filters.UpdateType.MESSAGE  # not edits, not channel posts
        application.add_handler(MessageHandler(new & filters.COMMAND, self.on_command))
        application.add_handler(MessageHandler(new & filters.TEXT, self.on_text))
        # Ingestion can take minutes: it holds only its sender's turn (see updates.py).
        application.add_handler(MessageHandler(new & filters.Document.ALL, self.on_document))
        application.add_error_handler(self.on_error)

    async def on_command(self, update: Update, context: Callback) -> None:
        message = _message(update)
        text = message.text or ""
        if for_another_bot(text, context.bot.bot):
            return
        parsed = parse_command(text) or ParsedCommand("help")
        if parsed.name == "start":
            parsed = ParsedCommand("help")
        if parsed.name in NAMES_A_USER:
            who = principal_argument(parsed.argument, message, NAMES_A_USER[parsed.name])
            parsed = ParsedCommand(parsed.name, who)
        request = await self._request(
            context.bot, message, command=parsed, admin_check=parsed.name in NEEDS_ADMIN
        )
        async with _working(context.bot, message, parsed.name in SLOW):
            response = await self.core.handle(request)
        await _reply(context.bot, message, response)

    async def on_text(self, update: Update, context: Callback) -> None:
        """A question, or an answer while an exercise is open (the core tells which). In a
        group only messages that mention the bot or reply to it count."""
        message = _message(update)
        text = message.text or ""
        if in_group(message.chat):
            if not addressed_to(message, context.bot.bot):
                return
            text = without_mention(text, context.bot.bot)
            if not text:
                await _reply(context.bot, message, Response.of(Notice(HOW_TO_ASK)))
                return
        request = await self._request(context.bot, message, text=text)
        async with _working(context.bot, message, True):
            response = await self.core.handle(request)
        await _reply(context.bot, message, response)

    async def on_document(self, update: Update, context: Callback) -> None:
        """A file, captioned /ingest or /notes or announced by one of them just before."""
        message = _message(update)
        caption = message.caption or ""
        command = None if for_another_bot(caption, context.bot.bot) else parse_command(caption)
        target = Target.answering(message)
        progress = UploadProgress(context.bot, target)
        request = await self._request(
            context.bot,
            message,
            command=command,
            files=(incoming_file(context.bot, message),),
            on_progress=progress,
        )
        # A file merely shared with a group gets no sign of life: it is not for the bot.
        shared = in_group(message.chat) and command is None
        async with nullcontext() if shared else typing(context.bot, target):
            response = await self.core.handle(request)
        await progress.conclude(render_all(list(response.replies)))

    async def on_error(self, update: object, context: Callback) -> None:
        log.error("telegram update failed", exc_info=context.error)
        chat = update.effective_chat if isinstance(update, Update) else None
        if chat is None:
            return
        try:
            await context.bot.send_message(chat.id, escape(INTERNAL_ERROR), parse_mode=PARSE_MODE)
        except TelegramError:
            log.warning("could not tell the chat about the error", chat=chat.id, exc_info=True)

    async def _request(
        self, bot: Bot, message: Message, *, admin_check: bool = False, **what: Any
    ) -> Request:
        return Request(
            member=await member_for(bot, message, admin_check=admin_check),
            place=place_of(message.chat),
            # Unique per bot: a chat's message ids never repeat.
            message_id=f"telegram:{message.chat_id}:{message.message_id}",
            **what,
        )


async def _reply(bot: Bot, message: Message, response: Response) -> None:
    await deliver(bot, Target.answering(message), render_all(list(response.replies)))


def _working(bot: Bot, message: Message, slow: bool) -> AbstractAsyncContextManager[None]:
    return typing(bot, Target.answering(message)) if slow else nullcontext()


def _message(update: Update) -> Message:
    if update.message is None:  # the handlers' filters only let new messages through
        raise ValueError("an update without a message")
    return update.message
