"""Who is asking, in the core's terms: a Discord user and their server roles as a `Member`.
Whether that makes them an instructor or a moderator is decided in `core.permissions`."""

from __future__ import annotations

import discord

from core.context import Member

PLATFORM = "discord"


def user_key(user_id: int) -> str:
    """The core's id for a Discord user (also what `/mistakes student:` filters on)."""
    return f"{PLATFORM}:{user_id}"


def role_principals(role: discord.Role) -> tuple[str, str]:
    """Settings may name a role by id (stable) or by name (readable)."""
    return f"{PLATFORM}:role:{role.id}", f"{PLATFORM}:role:{role.name}"


def member_of(user: discord.User | discord.Member, *, manages_server: bool) -> Member:
    roles = [role for role in getattr(user, "roles", ()) if not role.is_default()]
    return Member(
        platform=PLATFORM,
        user_id=user_key(user.id),
        principals=frozenset(p for role in roles for p in role_principals(role)),
        chat_admin=manages_server,
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
