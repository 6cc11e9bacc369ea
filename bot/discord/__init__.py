"""The Discord adapter: slash commands and mentions, rendered in Discord's idiom.

Inside this package `import discord` is the discord.py library (absolute imports), never
this package. The public names are loaded when first used: `coursebot discord --help` reads
only `bot.discord.cli`, and must not pay for discord.py and the core."""

from __future__ import annotations

from bot.common.lazy_exports import lazy_getattr

_EXPORTS = {
    "CourseClient": "bot.discord.client",
    "ShardedCourseClient": "bot.discord.client",
    "build_client": "bot.discord.client",
    "sync_commands": "bot.discord.client",
}

__all__ = sorted(_EXPORTS)

__getattr__ = lazy_getattr(__name__, _EXPORTS)
