"""The Discord adapter: slash commands and mentions, rendered in Discord's idiom.

Inside this package `import discord` is the discord.py library (absolute imports), never
this package."""

from bot.discord.cli import add_command
from bot.discord.client import CourseClient, ShardedCourseClient, build_client, sync_commands

__all__ = ["CourseClient", "ShardedCourseClient", "add_command", "build_client", "sync_commands"]
