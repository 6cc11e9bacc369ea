"""Telegram's command vocabulary: the core's commands (`core.commands.COMMANDS`) plus the
ones only a chat adapter has (binding a group, choosing a DM course, sending files), for the
command menu and the help text."""

from __future__ import annotations

from dataclasses import dataclass

from telegram import Bot, BotCommand, BotCommandScopeAllChatAdministrators

from core.commands import COMMANDS, help_text
from core.context import Context, Role
from core.permissions import Action, allowed
from core.replies import Notice


@dataclass(frozen=True, slots=True)
class ChatCommand:
    name: str
    summary: str
    usage: str = ""
    action: Action | None = None  # what the command needs permission for, if anything


CHAT_COMMANDS: tuple[ChatCommand, ...] = (
    ChatCommand("course", "choose the course your direct messages are about", "COURSE"),
    ChatCommand("notes", "add your private notes (in a direct message, then send the files)"),
    ChatCommand("bind", "bind this group to a course", "COURSE", Action.BIND),
    ChatCommand(
        "ingest", "add course material (attach the files, or send them next)", "", Action.INGEST
    ),
    ChatCommand("forget", "remove a document from the course", "DOCUMENT", Action.FORGET),
)

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
    return "\n".join(
        f"/{c.name}{f' {c.usage}' if c.usage else ''} — {c.summary}"
        for c in CHAT_COMMANDS
        if c.action is None or (ctx is not None and allowed(ctx, c.action))
    )


def menu(*, for_admins: bool) -> list[BotCommand]:
    """The command menu Telegram shows: everyone's commands, or all of them for admins."""
    commands = [
        BotCommand(spec.name, spec.summary)
        for spec in COMMANDS
        if for_admins or spec.role is Role.STUDENT
    ]
    commands.extend(
        BotCommand(c.name, c.summary) for c in CHAT_COMMANDS if for_admins or c.action is None
    )
    return commands


async def publish_commands(bot: Bot) -> None:
    """Set the menus once at start-up (group admins also see the instructor commands)."""
    await bot.set_my_commands(menu(for_admins=False))
    await bot.set_my_commands(menu(for_admins=True), scope=BotCommandScopeAllChatAdministrators())
