"""Which course a request is about: the binding of the thread, its channel or the server
(most specific first), or in a direct message the user's last course."""

from __future__ import annotations

import discord

from bot.common import wording
from bot.discord.members import interaction_member
from core.context import Context, Member
from core.course_bot import CourseBot
from core.replies import ErrorReply

Channel = discord.abc.Messageable | discord.abc.GuildChannel | discord.Thread | None


def channel_chat(channel_id: int) -> str:
    return f"channel:{channel_id}"


def server_chat(guild_id: int) -> str:
    return f"guild:{guild_id}"


def bindable_channel_id(channel: Channel) -> int | None:
    """The channel a `/bind` in `channel` binds: a thread's parent, so it outlives the thread."""
    if isinstance(channel, discord.Thread):
        return channel.parent_id
    return getattr(channel, "id", None)


def chat_ids(channel: Channel, guild_id: int | None) -> tuple[str, ...]:
    """Where to look for a binding, most specific first; nothing in a direct message."""
    if guild_id is None:
        return ()
    ids: list[str] = []
    channel_id = getattr(channel, "id", None)
    if channel_id is not None:
        ids.append(channel_chat(channel_id))
    if isinstance(channel, discord.Thread) and channel.parent_id is not None:
        ids.append(channel_chat(channel.parent_id))
    ids.append(server_chat(guild_id))
    return tuple(ids)


def unbound(guild_id: int | None) -> ErrorReply:
    return ErrorReply(wording.UNBOUND_CHAT if guild_id is not None else wording.NO_DM_COURSE)


async def request_context(
    bot: CourseBot,
    member: Member,
    channel: Channel,
    guild_id: int | None,
    request_id: int,
) -> Context | ErrorReply:
    """The context of one request, or the reply saying the chat has no course.
    `request_id` (an interaction or message id) is the core's idempotency key."""
    course = await bot.course_for(member, chat_ids(channel, guild_id))
    if course is None:
        return unbound(guild_id)
    channel_id = getattr(channel, "id", None)
    return bot.context(
        member,
        course,
        chat_id=str(channel_id) if channel_id is not None else None,
        message_id=str(request_id),
    )


async def interaction_context(
    bot: CourseBot, interaction: discord.Interaction
) -> Context | ErrorReply:
    return await request_context(
        bot,
        interaction_member(interaction),
        interaction.channel,
        interaction.guild_id,
        interaction.id,
    )
