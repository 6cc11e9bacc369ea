"""Telegram's command menus, from the core's command registry (`core.commands.COMMANDS`)."""

from __future__ import annotations

from telegram import Bot, BotCommand, BotCommandScopeAllChatAdministrators

from core.commands import COMMANDS


def menu(*, for_admins: bool) -> list[BotCommand]:
    """The command menu Telegram shows: everyone's commands, or all of them for admins."""
    return [
        BotCommand(spec.name, spec.summary)
        for spec in COMMANDS
        if spec.listed and (for_admins or not spec.staff)
    ]


async def publish_commands(bot: Bot) -> None:
    """Set the menus once at start-up (group admins also see the staff commands)."""
    await bot.set_my_commands(menu(for_admins=False))
    await bot.set_my_commands(menu(for_admins=True), scope=BotCommandScopeAllChatAdministrators())
