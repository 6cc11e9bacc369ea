"""Telegram updates to core calls, and the core's replies back to the chat.

Nothing here decides who may do what or how to answer (that is the core's); this module
only finds who is asking and which course a message is about, calls the `CourseBot` and
renders what it returns. A failure that is not the user's reaches `on_error`: it is logged
and the chat gets a polite apology, never a traceback."""

from __future__ import annotations

from contextlib import AbstractAsyncContextManager, nullcontext
from dataclasses import replace
from typing import Any

import structlog
from telegram import Bot, Message, Update, User
from telegram.error import TelegramError
from telegram.ext import Application, CommandHandler, ContextTypes, MessageHandler, filters

from bot.telegram import courses
from bot.telegram.addressing import addressed_to, for_another_bot, without_mention
from bot.telegram.commands import CORE_COMMAND_NAMES, help_reply, help_without_course
from bot.telegram.delivery import Target, deliver, typing
from bot.telegram.files import NOTES_ARE_PRIVATE, SEND_NOTES_FIRST, ingest_document
from bot.telegram.markup import PARSE_MODE, escape
from bot.telegram.members import is_chat_admin, member_for
from bot.telegram.render import render_all
from core.commands import parse_command
from core.context import Context, Member
from core.course_bot import INTERNAL_ERROR, CourseBot
from core.errors import UnknownCommandError, UserFacingError
from core.permissions import Action, require
from core.replies import ErrorReply, Notice, Reply

log = structlog.get_logger(__name__)

Callback = ContextTypes.DEFAULT_TYPE

# Commands whose permission depends on being a group administrator: only these cost a
# getChatMember call.
NEEDS_ROLE = frozenset({"bind", "ingest", "forget", "mistakes"})
# Commands slow enough to show "typing…" while the core works.
SLOW = frozenset({"ask", "practice", "mistakes"})

FORGET_USAGE = "Which document? Send /forget DOCUMENT with its file name, as /sources lists it."
HOW_TO_ASK = (
    "Ask me about the course: mention me with your question, reply to one of my messages, "
    "or send /ask QUESTION."
)


class TelegramHandlers:
    def __init__(self, core: CourseBot, *, max_upload_bytes: int) -> None:
        self.core = core
        self.max_upload_bytes = max_upload_bytes

    def register(self, application: Application[Any, Any, Any, Any, Any, Any]) -> None:
        new = filters.UpdateType.MESSAGE  # not edits, not channel posts
        application.add_handler(CommandHandler(["help", "start"], self.on_help, filters=new))
        application.add_handler(CommandHandler(CORE_COMMAND_NAMES, self.on_core_command, new))
        application.add_handler(CommandHandler("bind", self.on_bind, filters=new))
        application.add_handler(CommandHandler("course", self.on_course, filters=new))
        application.add_handler(CommandHandler("ingest", self.on_ingest, filters=new))
        application.add_handler(CommandHandler("notes", self.on_notes, filters=new))
        application.add_handler(CommandHandler("forget", self.on_forget, filters=new))
        application.add_handler(MessageHandler(new & filters.COMMAND, self.on_unknown_command))
        application.add_handler(MessageHandler(new & filters.TEXT, self.on_text))
        application.add_handler(MessageHandler(new & filters.Document.ALL, self.on_document))
        application.add_error_handler(self.on_error)

    # Commands ---------------------------------------------------------------------------

    async def on_help(self, update: Update, context: Callback) -> None:
        message = _message(update)
        member = await member_for(context.bot, message)
        course = await courses.course_for(self.core, member, message.chat)
        if course is None:
            reply = help_without_course(courses.missing_course(message.chat))
        else:
            ctx = self._context(member, course, message)
            reply = help_reply(self.core.help(ctx), ctx)
        await _reply(context.bot, message, [reply])

    async def on_core_command(self, update: Update, context: Callback) -> None:
        """The commands the core dispatches itself (/ask, /practice, /mistakes…)."""
        message = _message(update)
        name = _command_name(message)
        ctx = await self._request(context.bot, message, needs_role=name in NEEDS_ROLE)
        if ctx is None:
            return
        async with _working(context.bot, message, name in SLOW):
            replies = await self.core.handle(ctx, message.text or "")
        await _reply(context.bot, message, replies)

    async def on_bind(self, update: Update, context: Callback) -> None:
        message = _message(update)
        member = await member_for(context.bot, message, needs_role=courses.in_group(message.chat))
        reply = await courses.bind(self.core, member, message.chat, _argument(message))
        await _reply(context.bot, message, [reply])

    async def on_course(self, update: Update, context: Callback) -> None:
        message = _message(update)
        member = await member_for(context.bot, message)
        reply = await courses.choose(self.core, member, message.chat, _argument(message))
        await _reply(context.bot, message, [reply])

    async def on_ingest(self, update: Update, context: Callback) -> None:
        """/ingest without a file: the files follow in the next messages."""
        message = _message(update)
        ctx = await self._request(context.bot, message, needs_role=True)
        if ctx is not None:
            call = self.core.expect_files(ctx, private=False)
            await _reply(context.bot, message, await self.core.handle_call(ctx, call))

    async def on_notes(self, update: Update, context: Callback) -> None:
        message = _message(update)
        if courses.in_group(message.chat):
            await _reply(context.bot, message, [Notice(NOTES_ARE_PRIVATE)])
            return
        ctx = await self._request(context.bot, message)
        if ctx is not None:
            call = self.core.expect_files(ctx, private=True)
            await _reply(context.bot, message, await self.core.handle_call(ctx, call))

    async def on_forget(self, update: Update, context: Callback) -> None:
        message = _message(update)
        ctx = await self._request(context.bot, message, needs_role=True)
        if ctx is None:
            return
        document = _argument(message)
        if not document:
            await _reply(context.bot, message, [ErrorReply(FORGET_USAGE)])
            return
        replies = await self.core.handle_call(ctx, self.core.forget(ctx, document))
        await _reply(context.bot, message, replies)

    async def on_unknown_command(self, update: Update, context: Callback) -> None:
        message = _message(update)
        text = message.text or ""
        if for_another_bot(text, context.bot.bot):
            return
        member = await member_for(context.bot, message)
        course = await courses.course_for(self.core, member, message.chat)
        if course is None:
            replies: list[Reply] = [ErrorReply(str(UnknownCommandError(_command_name(message))))]
        else:
            replies = await self.core.handle(self._context(member, course, message), text)
        await _reply(context.bot, message, replies)

    # Plain messages and files -------------------------------------------------------------

    async def on_text(self, update: Update, context: Callback) -> None:
        """A question, or an answer while an exercise is open (the core tells which). In a
        group only messages that mention the bot or reply to it count."""
        message = _message(update)
        text = message.text or ""
        if courses.in_group(message.chat):
            if not addressed_to(message, context.bot.bot):
                return
            text = without_mention(text, context.bot.bot)
            if not text:
                await _reply(context.bot, message, [Notice(HOW_TO_ASK)])
                return
        ctx = await self._request(context.bot, message)
        if ctx is None:
            return
        async with _working(context.bot, message, True):
            replies = await self.core.handle(ctx, text)
        await _reply(context.bot, message, replies)

    async def on_document(self, update: Update, context: Callback) -> None:
        """A file captioned /ingest or /notes, or announced by one of them just before."""
        message = _message(update)
        chat = message.chat
        group = courses.in_group(chat)
        announced = _caption_command(message, context.bot.bot)
        if announced == "notes" and group:
            await _reply(context.bot, message, [Notice(NOTES_ARE_PRIVATE)])
            return
        member = await member_for(context.bot, message)
        course = await courses.course_for(self.core, member, chat)
        if course is None:
            if announced or not group:
                await _reply(context.bot, message, [Notice(courses.missing_course(chat))])
            return
        ctx = self._context(member, course, message)
        private = announced == "notes" if announced else await self.core.expected_files(ctx)
        if private is None:
            # In a group, a file shared with the class is not the bot's business.
            if not group:
                await _reply(context.bot, message, [Notice(SEND_NOTES_FIRST)])
            return
        if private and group:
            await _reply(context.bot, message, [Notice(NOTES_ARE_PRIVATE)])
            return
        if not private:
            admin = await is_chat_admin(context.bot, message)
            ctx = self._context(replace(member, chat_admin=admin), course, message)
            try:  # refuse before downloading anything
                require(ctx, Action.INGEST)
            except UserFacingError as error:
                await _reply(context.bot, message, [ErrorReply(str(error))])
                return
        await ingest_document(
            self.core,
            context.bot,
            ctx,
            message,
            private=private,
            max_bytes=self.max_upload_bytes,
        )

    # Errors -----------------------------------------------------------------------------

    async def on_error(self, update: object, context: Callback) -> None:
        log.error("telegram update failed", exc_info=context.error)
        chat = update.effective_chat if isinstance(update, Update) else None
        if chat is None:
            return
        try:
            await context.bot.send_message(chat.id, escape(INTERNAL_ERROR), parse_mode=PARSE_MODE)
        except TelegramError:
            log.warning("could not tell the chat about the error", chat=chat.id, exc_info=True)

    # Who, which course --------------------------------------------------------------------

    async def _request(
        self, bot: Bot, message: Message, *, needs_role: bool = False
    ) -> Context | None:
        """The context of `message`, or None after telling the chat it has no course yet."""
        member = await member_for(bot, message)
        course = await courses.course_for(self.core, member, message.chat)
        if course is None:
            await _reply(bot, message, [Notice(courses.missing_course(message.chat))])
            return None
        if needs_role and courses.in_group(message.chat):
            member = replace(member, chat_admin=await is_chat_admin(bot, message))
        return self._context(member, course, message)

    def _context(self, member: Member, course: str, message: Message) -> Context:
        return self.core.context(
            member,
            course,
            chat_id=str(message.chat_id),
            # The idempotency key of exercise answers: unique per Telegram message.
            message_id=f"{message.chat_id}:{message.message_id}",
        )


async def _reply(bot: Bot, message: Message, replies: list[Reply]) -> None:
    await deliver(bot, Target.answering(message), render_all(replies))


def _working(bot: Bot, message: Message, slow: bool) -> AbstractAsyncContextManager[None]:
    return typing(bot, Target.answering(message)) if slow else nullcontext()


def _message(update: Update) -> Message:
    if update.message is None:  # the handlers' filters only let new messages through
        raise ValueError("an update without a message")
    return update.message


def _command_name(message: Message) -> str:
    parsed = parse_command(message.text or "")
    return parsed.name if parsed else ""


def _argument(message: Message) -> str:
    parsed = parse_command(message.text or "")
    return parsed.argument if parsed else ""


def _caption_command(message: Message, me: User) -> str | None:
    """The file's caption as a command for this bot: "ingest", "notes" or None."""
    caption = message.caption or ""
    parsed = parse_command(caption)
    if parsed is None or parsed.name not in ("ingest", "notes") or for_another_bot(caption, me):
        return None
    return parsed.name
