"""Telegram updates to core requests, and the core's responses back to the chat.

Nothing here decides who may do what, which course a message is about or what may be shown
where: that is the core's. This module says who sent a message and where (a group others
read, or a direct message), what it says and which files it carries, calls
`CourseBot.handle` once and renders the response. A vote in a quiz poll goes to
`CourseBot.answer_poll`, and a flashcard button press becomes the core's `/card`. A failure
that is not the user's reaches `on_error`: it is logged and the chat gets a polite apology,
never a traceback."""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractAsyncContextManager, nullcontext
from typing import Any

import structlog
from telegram import Bot, CallbackQuery, Chat, Message, Update, User
from telegram.constants import CallbackQueryLimit
from telegram.error import TelegramError
from telegram.ext import (
    Application,
    CallbackQueryHandler,
    ContextTypes,
    MessageHandler,
    PollAnswerHandler,
    filters,
)

from bot.telegram.addressing import addressed_to, for_another_bot, without_mention
from bot.telegram.callbacks import (
    CARD_DATA,
    PAGE_DATA,
    VOTE_DATA,
    card_command,
    page_command,
    vote_command,
)
from bot.telegram.delivery import Sent, Target, deliver, edit, typing
from bot.telegram.files import incoming_file
from bot.telegram.markup import PARSE_MODE, escape
from bot.telegram.members import (
    PLATFORM,
    in_group,
    member_for,
    member_of,
    place_of,
    principal_argument,
)
from bot.telegram.progress import ChatProgress
from bot.telegram.render import Outgoing, PollMessage, TextMessage, render, render_all
from core.commands import ParsedCommand, command_spec, parse_command
from core.course_bot import INTERNAL_ERROR, CourseBot
from core.replies import DocumentReply, ErrorReply, FlashcardTurn, Notice, Reply, VoteReasons
from core.requests import Request, Response
from core.schedules import Schedule
from core.study.polls import PollAnswered

log = structlog.get_logger(__name__)

Callback = ContextTypes.DEFAULT_TYPE

NOTED = "Noted as not helpful; only the course's staff see votes."
SAY_WHY = "To say why, start a direct chat with me, then press 👎 again."
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
        application.add_handler(PollAnswerHandler(self.on_poll_answer))
        application.add_handler(CallbackQueryHandler(self.on_card_button, pattern=CARD_DATA))
        application.add_handler(CallbackQueryHandler(self.on_page_button, pattern=PAGE_DATA))
        application.add_handler(CallbackQueryHandler(self.on_vote_button, pattern=VOTE_DATA))
        application.add_error_handler(self.on_error)

        async def late_score(answered: PollAnswered) -> None:
            await _send_to_poll_chat(application.bot, answered)

        # A vote held back by an outage is counted later, outside any update.
        self.core.send_late_scores(PLATFORM, late_score)

        async def direct(user_id: str, replies: Sequence[Reply]) -> bool:
            return await _send_directly(application.bot, user_id, replies)

        # A staff answer reaches the students who asked, where they let the bot write.
        self.core.send_direct_messages(PLATFORM, direct)

    async def on_command(self, update: Update, context: Callback) -> None:
        message = _message(update)
        text = message.text or ""
        if for_another_bot(text, context.bot.bot):
            return
        parsed = parse_command(text) or ParsedCommand("help")
        # What the registry says of the command: whether the sender administering the group
        # matters (one getChatMember call), whether a word names a user (a reply or a numeric
        # id may), whether it is slow enough for "typing…". Unknown ones are the core's.
        spec = command_spec(parsed.name)
        words_before = spec.user_position() if spec else None
        if words_before is not None:
            who = principal_argument(parsed.argument, message, words_before)
            parsed = ParsedCommand(parsed.name, who)
        # A job (a lesson, a set being made) shows its steps in a message edited as it goes.
        progress = (
            ChatProgress(context.bot, Target.answering(message)) if spec and spec.job else None
        )
        request = await self._request(
            context.bot, message, command=parsed, admin_check=spec is not None and spec.chat_admin,
            on_progress=progress,
        )  # fmt: skip
        async with _working(context.bot, message, spec is not None and spec.slow):
            response = await self.core.handle(request)
        if progress is not None:
            items = render_all(list(response.replies))
            await progress.conclude(items, self._remember_sent(request))
            return
        await _reply(context.bot, message, response, self._remember_sent(request))

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
        await _reply(context.bot, message, response, self._remember_sent(request))

    async def on_document(self, update: Update, context: Callback) -> None:
        """A file, captioned /ingest or /notes or announced by one of them just before."""
        message = _message(update)
        caption = message.caption or ""
        command = None if for_another_bot(caption, context.bot.bot) else parse_command(caption)
        target = Target.answering(message)
        progress = ChatProgress(context.bot, target)
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

    async def on_poll_answer(self, update: Update, context: Callback) -> None:
        """A vote in one of the bot's quiz polls. Telegram has already shown the voter
        whether it was right; the core records it and may answer with the score, for the
        chat the poll is in (the vote itself names no chat)."""
        vote = update.poll_answer
        if vote is None or vote.user is None:
            return  # a vote cast as a chat, not by a person: nobody to record it for
        answered = await self.core.answer_poll(
            member_of(vote.user), vote.poll_id, vote.option_ids, str(update.update_id)
        )
        await _send_to_poll_chat(context.bot, answered)

    async def on_card_button(self, update: Update, context: Callback) -> None:
        """A "Show answer" or "Next" under a flashcard: the core's `/card`, shown in place of
        the card. A refusal (the set is gone) is a notice on the button, not a message."""
        query = update.callback_query
        command = card_command(query.data) if query is not None else None
        if query is None or command is None or query.message is None:
            return
        response = await self.core.handle(_pressed(query, query.message.chat, command))
        turn = next((r for r in response.replies if isinstance(r, FlashcardTurn)), None)
        if turn is None:
            await _refused(query, response)
            return
        await query.answer()
        [card] = [item for item in render(turn) if isinstance(item, TextMessage)]
        if isinstance(query.message, Message):
            await edit(context.bot, query.message, card)
        else:  # too old to edit: the card arrives as a new message
            await deliver(context.bot, Target(query.message.chat.id), [card])

    async def on_page_button(self, update: Update, context: Callback) -> None:
        """A citation's "Show page": the core's `/page`, whose picture is sent as a photo
        answering the message the button is on. A refusal is a notice on the button."""
        query = update.callback_query
        command = page_command(query.data) if query is not None else None
        if query is None or command is None or query.message is None:
            return
        response = await self.core.handle(_pressed(query, query.message.chat, command))
        picture = next((r for r in response.replies if isinstance(r, DocumentReply)), None)
        if picture is None:
            await _refused(query, response)
            return
        await query.answer()
        message = query.message
        if isinstance(message, Message):
            target = Target.answering(message)
        else:  # too old to be shown: the page arrives on its own
            target = Target(message.chat.id)
        await deliver(context.bot, target, render(picture))

    async def on_vote_button(self, update: Update, context: Callback) -> None:
        """👍 / 👎 under an answer, or a reason after 👎: the core's `/good`, `/bad`. What
        the core says is for the voter alone: a notice on the button, never a message the
        group reads. The one-tap reasons after a 👎 come in the voter's direct chat (where
        Telegram lets the bot write to them; else the notice says how to give one)."""
        query = update.callback_query
        command = vote_command(query.data) if query is not None else None
        if query is None or command is None or query.message is None:
            return
        chat = query.message.chat
        response = await self.core.handle(_pressed(query, chat, command))
        reasons = next((r for r in response.replies if isinstance(r, VoteReasons)), None)
        if reasons is None:
            await _refused(query, response, alert=_refusal(response))
            return
        try:
            await deliver(context.bot, Target(query.from_user.id), render(reasons))
        except TelegramError:  # they never started a chat with the bot, or blocked it
            await query.answer(f"{NOTED} {SAY_WHY}", show_alert=True)
            return
        await query.answer(NOTED)

    async def on_error(self, update: object, context: Callback) -> None:
        log.error("telegram update failed", exc_info=context.error)
        chat = update.effective_chat if isinstance(update, Update) else None
        if chat is None:
            return
        try:
            await context.bot.send_message(chat.id, escape(INTERNAL_ERROR), parse_mode=PARSE_MODE)
        except TelegramError:
            log.warning("could not tell the chat about the error", chat=chat.id, exc_info=True)

    def _remember_sent(self, request: Request) -> Sent:
        return remember_sent(self.core, request)

    async def post_scheduled(
        self, bot: Bot, schedule: Schedule, request: Request, response: Response
    ) -> None:
        """A scheduled run's response (a quiz, exam reminders), posted in its chat."""
        if schedule.chat_id is None:
            raise ValueError("a scheduled post without a chat")
        items = render_all(list(response.replies))
        await deliver(bot, Target(int(schedule.chat_id)), items, remember_sent(self.core, request))

    async def _request(
        self, bot: Bot, message: Message, *, admin_check: bool = False, **what: Any
    ) -> Request:
        return Request(
            member=await member_for(bot, message, admin_check=admin_check),
            place=place_of(message.chat),
            # Unique per bot: a chat's message ids never repeat.
            message_id=f"telegram:{message.chat_id}:{message.message_id}",
            # A deep link: opening it sends the bot `/start CODE` in a direct message.
            invite_link=f"https://t.me/{bot.username}?start={{code}}",
            replying_to=_replying_to(message, bot.bot),
            **what,
        )


def _replying_to(message: Message, me: User) -> str | None:
    """The id of the bot's message that `message` replies to, if it replies to one."""
    replied = message.reply_to_message
    if replied is None or replied.from_user is None or replied.from_user.id != me.id:
        return None
    return str(replied.message_id)


def remember_sent(core: CourseBot, request: Request) -> Sent:
    """Tells the core, as soon as each is sent, which question a quiz poll asks and the id
    of a message carrying an anchor (a listed question group, which a reply answers)."""

    async def remember(item: Outgoing, sent: Message) -> None:
        if isinstance(item, PollMessage) and sent.poll is not None:
            await core.remember_polls(request, item.quiz_id, [(sent.poll.id, item.number)])
        elif isinstance(item, TextMessage) and item.anchor:
            await core.remember_sent(request, str(sent.message_id), item.anchor)

    return remember


async def _reply(
    bot: Bot, message: Message, response: Response, on_sent: Sent | None = None
) -> None:
    await deliver(bot, Target.answering(message), render_all(list(response.replies)), on_sent)


def _pressed(query: CallbackQuery, chat: Chat, command: ParsedCommand) -> Request:
    """A button press as the command its data names, from the presser, in the chat of the
    message the button is on."""
    return Request(
        member=member_of(query.from_user),
        place=place_of(chat),
        # Unique per press: a redelivered update gets the same reply again.
        message_id=f"telegram:callback:{query.id}",
        command=command,
    )


async def _refused(query: CallbackQuery, response: Response, *, alert: bool = True) -> None:
    """A button press the core did not grant (or a vote it noted): what it said, on the
    button (an alert to acknowledge, or a passing notice)."""
    said = [r.text for r in response.replies if isinstance(r, ErrorReply | Notice)]
    toast = " ".join(said)[: CallbackQueryLimit.ANSWER_CALLBACK_QUERY_TEXT_LENGTH]
    await query.answer(toast or None, show_alert=alert and bool(toast))


def _refusal(response: Response) -> bool:
    return any(isinstance(r, ErrorReply) for r in response.replies)


async def _send_directly(bot: Bot, user_id: str, replies: Sequence[Reply]) -> bool:
    """Write `replies` to the user `user_id` (`telegram:42`) in their private chat; False
    where Telegram does not let the bot (they never started it, or blocked it)."""
    try:
        chat_id = int(user_id.removeprefix(f"{PLATFORM}:"))
        await deliver(bot, Target(chat_id), render_all(list(replies)))
    except (ValueError, TelegramError):
        return False
    return True


def _working(bot: Bot, message: Message, slow: bool) -> AbstractAsyncContextManager[None]:
    return typing(bot, Target.answering(message)) if slow else nullcontext()


def _message(update: Update) -> Message:
    if update.message is None:  # the handlers' filters only let new messages through
        raise ValueError("an update without a message")
    return update.message


async def _send_to_poll_chat(bot: Bot, answered: PollAnswered) -> None:
    """What a vote causes (the score after the last question), in the poll's chat."""
    if answered.response.replies and answered.chat_id is not None:
        items = render_all(list(answered.response.replies))
        await deliver(bot, Target(int(answered.chat_id)), items)
