"""Who is asking and where, in the core's terms: a Discord user, their server roles and the
channel as a `Member` and a `Place`. What that makes them is decided in the core."""

from __future__ import annotations

from typing import Literal

import discord

from core.context import Audience, Member
from core.requests import Place

PLATFORM = "discord"

Channel = discord.abc.Messageable | discord.abc.GuildChannel | discord.Thread | None


def user_key(user_id: int) -> str:
    """The core's id for a Discord user (also what `/mistakes student:` filters on)."""
    return f"{PLATFORM}:{user_id}"


def role_key(role_id: int) -> str:
    """Roles are granted by id: snowflakes are unique across servers, names are not."""
    return f"{PLATFORM}:role:{role_id}"


def member_of(user: discord.User | discord.Member, *, manages_server: bool) -> Member:
    roles = [role for role in getattr(user, "roles", ()) if not role.is_default()]
    return Member(
        platform=PLATFORM,
        user_id=user_key(user.id),
        principals=frozenset(role_key(role.id) for role in roles),
        role_names=frozenset(f"{PLATFORM}:role:{role.name}" for role in roles),
        chat_admin=manages_server,
        name=user.display_name,
    )


def interaction_member(interaction: discord.Interaction) -> Member:
    # Discord resolves the member's permissions for the interaction; in a DM there are none.
    permissions = interaction.permissions
    admin = interaction.guild_id is not None and (
        permissions.manage_guild or permissions.administrator
    )
    return member_of(interaction.user, manages_server=admin)


def message_member(message: discord.Message) -> Member:
    author = message.author
    admin = isinstance(author, discord.Member) and author.guild_permissions.manage_guild
    return member_of(author, manages_server=admin)


def channel_chat(channel_id: int) -> str:
    return f"channel:{channel_id}"


def server_chat(guild_id: int) -> str:
    return f"guild:{guild_id}"


def place_of(
    channel: Channel,
    guild_id: int | None,
    *,
    bind: Literal["channel", "server"] = "channel",
    whisper: bool = True,
) -> Place:
    """A server channel is read by its members (a slash command may still answer
    ephemerally: `whisper`); a direct message by the user alone. Bindings are looked up on
    the channel, a thread's parent channel, then the server."""
    channel_id = getattr(channel, "id", None)
    chat_id = str(channel_id) if channel_id is not None else None
    if guild_id is None:
        return Place(Audience.PRIVATE, chat_id=chat_id)
    lookup: list[str] = []
    if channel_id is not None:
        lookup.append(channel_chat(channel_id))
    parent_id = channel.parent_id if isinstance(channel, discord.Thread) else None
    if parent_id is not None:
        lookup.append(channel_chat(parent_id))
    lookup.append(server_chat(guild_id))
    # A thread's binding goes to its parent channel, so it outlives the thread.
    bindable = parent_id if parent_id is not None else channel_id
    bind_key: str | None
    if bind == "server":
        bind_key, name = server_chat(guild_id), "This server"
    else:
        bind_key = channel_chat(bindable) if bindable is not None else None
        name = "This channel"
    return Place(
        Audience.SHARED,
        chat_id=chat_id,
        lookup=tuple(lookup),
        bind_key=bind_key,
        name=name,
        whisper=whisper,
    )
