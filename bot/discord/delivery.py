"""How rendered replies reach Discord: as the answer to a slash command or a button press
(`Responder`) or as messages in a channel or thread (`post`). Every message goes out with
mentions disabled, so nothing quoted from the material can ping @everyone; buttons go out
as a view of `bot.discord.buttons`."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from enum import Enum, auto
from typing import Any

import discord

from bot.discord.buttons import view_of
from bot.discord.render import Outgoing, progress, render_all
from core.replies import Reply
from core.requests import Request, Response
from core.schedules import Schedule
from ingestion.schedule import Post

NO_MENTIONS = discord.AllowedMentions.none()
# Told about a message carrying an anchor once it is sent (the core remembers its id).
Sent = Callable[[Outgoing, discord.Message], Awaitable[None]]


class _Original(Enum):
    """The state of the command's own response message."""

    NONE = auto()  # not acknowledged yet
    THINKING = auto()  # deferred: Discord shows "thinking…"
    PROGRESS = auto()  # showing progress; the final reply replaces it
    USED = auto()  # holds a reply; more replies are follow-ups
    PRESSED = auto()  # a button press deferred as an update: the pressed message may change
    DELETED = auto()


class Responder:
    """Answers one interaction. `defer` acknowledges it at once (Discord allows 3 seconds);
    replies then replace the "thinking…" message and follow it.

    Whether the deferred message is ephemeral is fixed when deferring, so a private reply
    to a public command (a refusal, say) removes the public "thinking…" message and follows
    up ephemerally instead."""

    def __init__(self, interaction: discord.Interaction, *, private: bool) -> None:
        self.interaction = interaction
        self.private = private
        self._original = _Original.NONE

    async def defer(self) -> None:
        await self.interaction.response.defer(ephemeral=self.private, thinking=True)
        self._original = _Original.THINKING

    async def defer_update(self) -> None:
        """Acknowledge a button press without a new message: `update` then edits the
        message the button is on; other replies follow up (ephemerally when private)."""
        await self.interaction.response.defer()
        self._original = _Original.PRESSED

    async def update(self, message: Outgoing) -> None:
        """Replace the pressed message (its buttons too: none left removes them)."""
        await self.interaction.edit_original_response(
            **_content(message),
            embeds=list(message.embeds),
            attachments=[a.to_file() for a in message.attachments],
            view=view_of(message.buttons) if message.buttons else None,
            allowed_mentions=NO_MENTIONS,
        )
        self._original = _Original.USED

    async def show_progress(self, text: str) -> None:
        """Edit the deferred message in place (a job's progress)."""
        if self._original not in (_Original.THINKING, _Original.PROGRESS):
            return
        await self.interaction.edit_original_response(
            content=progress(text), allowed_mentions=NO_MENTIONS
        )
        self._original = _Original.PROGRESS

    async def reply(
        self, replies: Sequence[Reply], *, private: bool = False, on_sent: Sent | None = None
    ) -> None:
        """Send `replies` (all of them ephemeral when `private`) and close the response;
        `on_sent` hears of each message with an anchor once it is out."""
        await self.send(render_all(replies), private=private, on_sent=on_sent)

    async def send(
        self, messages: Sequence[Outgoing], *, private: bool = False, on_sent: Sent | None = None
    ) -> None:
        for message in messages:
            # An ephemeral response stays ephemeral: its follow-ups are too. In a direct
            # message, one the core may be answered through (an anchor) is not: nobody else
            # reads there, and Discord takes no reply to an ephemeral message.
            ephemeral = (self.private or private) and not (message.anchor and self._direct)
            sent = await self._send_one(message, private=ephemeral)
            if on_sent is not None and message.anchor and sent is not None:
                await on_sent(message, sent)
        await self.finish()

    async def finish(self) -> None:
        """Nothing to say (a replayed request): do not leave "thinking…" forever."""
        if self._original is _Original.THINKING:
            await self.interaction.delete_original_response()
            self._original = _Original.DELETED

    @property
    def _direct(self) -> bool:
        return self.interaction.guild_id is None

    async def _send_one(self, message: Outgoing, *, private: bool) -> discord.Message | None:
        original = self._original
        if original in (_Original.THINKING, _Original.PROGRESS) and private == self.private:
            sent: discord.Message = await self.interaction.edit_original_response(
                **_content(message),
                embeds=list(message.embeds),
                attachments=[a.to_file() for a in message.attachments],
                **_view(message),
                allowed_mentions=NO_MENTIONS,
            )
            self._original = _Original.USED
            return sent
        if original is _Original.THINKING and private and not self.private:
            await self.interaction.delete_original_response()
            self._original = _Original.DELETED
        return await self.interaction.followup.send(
            **_message_kwargs(message), ephemeral=private, wait=True
        )


async def post(
    channel: discord.abc.Messageable,
    messages: Sequence[Outgoing],
    *,
    reference: discord.Message | None = None,
) -> None:
    """Send messages to a channel or thread; the first one answers `reference` if given."""
    for message in messages:
        if reference is not None:
            await reference.reply(**_message_kwargs(message), mention_author=False)
            reference = None
        else:
            await channel.send(**_message_kwargs(message))


def scheduled_poster(client: discord.Client) -> Post:
    """How this bot posts a scheduled run's response (a quiz, exam reminders) in the
    channel it was scheduled in."""

    async def post_scheduled(schedule: Schedule, _request: Request, response: Response) -> None:
        if schedule.chat_id is None:
            raise ValueError("a scheduled post without a channel")
        channel_id = int(schedule.chat_id)
        channel = client.get_channel(channel_id) or await client.fetch_channel(channel_id)
        if not isinstance(channel, discord.abc.Messageable):
            raise ValueError(f"channel {channel_id} takes no messages")
        await post(channel, render_all(list(response.replies)))

    return post_scheduled


def _content(message: Outgoing) -> dict[str, Any]:
    # An empty content must be None, or Discord refuses a message made of embeds alone.
    return {"content": message.content or None}


def _message_kwargs(message: Outgoing) -> dict[str, Any]:
    kwargs: dict[str, Any] = {**_content(message), "allowed_mentions": NO_MENTIONS}
    if message.embeds:
        kwargs["embeds"] = list(message.embeds)
    if message.attachments:
        kwargs["files"] = [a.to_file() for a in message.attachments]
    return {**kwargs, **_view(message)}


def _view(message: Outgoing) -> dict[str, Any]:
    return {"view": view_of(message.buttons)} if message.buttons else {}
