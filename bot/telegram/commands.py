"""Telegram's command vocabulary: the core's commands (`core.commands.COMMANDS`) plus the
ones only a chat adapter has (binding a group, choosing a DM course, sending files), for the
command menu and the help text."""

from __future__ import annotations

from telegram import Bot, BotCommand, BotCommandScopeAllChatAdministrators

from core.commands import CHAT_COMMANDS, COMMANDS, CommandSpec, help_text
from core.context import Context, Role
from core.permissions import effective_roles
from core.replies import Notice

# How files reach the bot on Telegram: attached to the command or sent right after it.
_FILE_HINTS = {
    "notes": " — in a direct message: attach the files or send them next",
    "ingest": " — attach the files or send them next",
}

# The commands the core dispatches itself; /help is answered with the chat commands added.
CORE_COMMAND_NAMES: tuple[str, ...] = tuple(spec.name for spec in COMMANDS if spec.name != "help")


def help_reply(base: Notice, ctx: Context) -> Notice:
    """The core's help for `ctx` followed by the Telegram commands its roles may use."""
    return Notice(f"{base.text}\n{_chat_lines(ctx)}".rstrip(), title=base.title)


def help_without_course(missing: str) -> Notice:
    """/help before any course is known: what a student can do, and how to pick a course."""
    return Notice(
        f"{help_text(frozenset({Role.STUDENT}))}\n{_chat_lines(None)}\n\n{missing}",
        title="coursebot",
    )


def _chat_lines(ctx: Context | None) -> str:
    """The chat commands anyone may use, and those `ctx`'s roles allow."""
    roles = effective_roles(ctx) if ctx is not None else frozenset({Role.STUDENT})
    return "\n".join(
        f"/{c.name}{f' {c.usage}' if c.usage else ''} — {_summary(c)}"
        for c in CHAT_COMMANDS
        if c.role in roles
    )


def _summary(spec: CommandSpec) -> str:
    return spec.summary + _FILE_HINTS.get(spec.name, "")


def menu(*, for_admins: bool) -> list[BotCommand]:
    """The command menu Telegram shows: everyone's commands, or all of them for admins."""
    commands = [
        BotCommand(spec.name, spec.summary)
        for spec in COMMANDS
        if for_admins or spec.role is Role.STUDENT
    ]
    commands.extend(
        BotCommand(c.name, c.summary) for c in CHAT_COMMANDS if for_admins or c.role is Role.STUDENT
    )
    return commands


async def publish_commands(bot: Bot) -> None:
    """Set the menus once at start-up (group admins also see the instructor commands)."""
    await bot.set_my_commands(menu(for_admins=False))
    await bot.set_my_commands(menu(for_admins=True), scope=BotCommandScopeAllChatAdministrators())
