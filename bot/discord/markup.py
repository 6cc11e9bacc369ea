"""Discord escaping, done here and nowhere else: text from the course material, file names and
user input are shown literally, never as markdown or as a ping."""

from __future__ import annotations

import discord


def escape(text: str) -> str:
    """`text` as Discord should show it: markdown characters and mentions neutralised."""
    return discord.utils.escape_mentions(discord.utils.escape_markdown(text))


def escaped_length(text: str) -> int:
    """How long `text` is once escaped: what counts against Discord's limits."""
    return len(escape(text))


def bold(text: str) -> str:
    return f"**{escape(text)}**"
