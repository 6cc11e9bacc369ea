"""A job's progress in a Telegram chat (an ingestion, a lesson or set being made): one
message, sent at the first sign of progress, edited (`edit_message_text`) as the job
advances, and replaced by the outcome's first text where it has one."""

from __future__ import annotations

from telegram import Bot, Message
from telegram.error import BadRequest

from bot.common.progress import ProgressMessage
from bot.telegram.delivery import Sent, Target, deliver, edit
from bot.telegram.markup import PARSE_MODE, escape
from bot.telegram.render import Outgoing, TextMessage
from core.progress import JobProgress


class ChatProgress:
    """A `ShowProgress` for the core that shows one edited message in the chat."""

    def __init__(self, bot: Bot, target: Target) -> None:
        self._bot = bot
        self._target = target
        self._message: Message | None = None
        self._throttled = ProgressMessage(self._show)

    async def __call__(self, progress: JobProgress) -> None:
        await self._throttled(progress)

    async def _show(self, text: str) -> None:
        if self._message is None:
            [self._message] = await deliver(self._bot, self._target, [TextMessage(escape(text))])
        else:
            await self._message.edit_text(escape(text), parse_mode=PARSE_MODE)

    async def conclude(self, items: list[Outgoing], on_sent: Sent | None = None) -> None:
        """Show the outcome: its first text in place of the progress message (a summary, a
        set's heading), the rest after it; a document or a poll first leaves the progress
        message as it last read ("ready") and follows it."""
        target = self._target
        if self._message is not None and items and isinstance(items[0], TextMessage):
            try:
                await edit(self._bot, self._message, items[0])
            except BadRequest:  # deleted meanwhile: say it anew
                pass
            else:
                items = items[1:]
                target = Target(target.chat_id, thread_id=target.thread_id)
        await deliver(self._bot, target, items, on_sent)
