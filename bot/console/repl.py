"""The console adapter: a REPL speaking the same commands as the chat platforms.

It is the project's text backend: the README's demo and the end-to-end tests drive the core
through it with no network."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Awaitable, Callable
from typing import TextIO

from bot.console.render import render
from core.context import Context, Role
from core.course_bot import CourseBot
from core.replies import ErrorReply

PLATFORM = "console"
EXIT_WORDS = frozenset({"/exit", "exit"})
# The terminal belongs to whoever runs the bot: they hold every role.
OPERATOR_ROLES = frozenset({Role.STUDENT, Role.INSTRUCTOR, Role.MODERATOR})

ReadLine = Callable[[str], Awaitable[str | None]]


def console_context(course_id: str, user_id: str, message_id: str | None = None) -> Context:
    return Context(
        platform=PLATFORM,
        course_id=course_id,
        user_id=user_id,
        roles=OPERATOR_ROLES,
        chat_id=f"console:{user_id}",
        message_id=message_id,
    )


async def stdin_reader(prompt: str) -> str | None:
    """Read one line without blocking the event loop; None at end of input."""
    try:
        return await asyncio.to_thread(input, prompt)
    except EOFError:
        return None


async def run_chat(
    bot: CourseBot, course_id: str, user_id: str, read_line: ReadLine, out: TextIO
) -> None:
    out.write(f"coursebot — course '{course_id}'. Type /help for commands, /exit to leave.\n")
    for number in itertools.count(1):
        line = await read_line("> ")
        if line is None or line.strip().lower() in EXIT_WORDS:
            break
        if not line.strip():
            continue
        ctx = console_context(course_id, user_id, message_id=f"console-{number}")
        for reply in await bot.handle(ctx, line):
            out.write(render(reply) + "\n")
        out.flush()


async def ask_once(
    bot: CourseBot, course_id: str, user_id: str, question: str, out: TextIO
) -> bool:
    """Answer one question; False when the reply is an error (for the exit code)."""
    replies = await bot.handle(console_context(course_id, user_id), f"/ask {question}")
    for reply in replies:
        out.write(render(reply) + "\n")
    return not any(isinstance(reply, ErrorReply) for reply in replies)
