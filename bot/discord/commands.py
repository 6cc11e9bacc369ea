"""The slash commands as Discord sees them, derived from the core's command registry
(`core.commands.COMMANDS`): one application command per listed command, each option typed
(choices, ranges, users and roles, attachments, autocomplete), staff commands hidden from
members by `default_permissions` until a server admin opens them to a role. A command's
option values reach the core as they are, typed; what a command does is in
`bot.discord.handlers`."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Coroutine
from typing import Any, Literal

import discord
from discord import app_commands

from bot.discord.handlers import Handlers, principal_of
from core.commands import COMMANDS, CommandSpec, Kind, Option, Source, Value, command_spec
from core.context import Role

# Discord's own wording: /bind takes a scope.
_DESCRIPTIONS = {
    "bind": "bind this channel or the whole server to a course (instructors, server admins)",
    "unbind": "unbind this channel or the whole server from its course (its instructors)",
}
# Where /bind binds is Discord's own question (a channel or the whole server), not the core's.
SCOPE = "scope"
SCOPE_HELP = "this channel or the server"
# Who sees a staff command until a server admin opens it to a role (Server Settings →
# Integrations); the core still checks the course role of whoever uses it.
STAFF_PERMISSIONS = {
    Role.INSTRUCTOR: discord.Permissions(manage_guild=True),
    Role.MODERATOR: discord.Permissions(manage_messages=True),
}
MORE_FILES = "another file"

Complete = Callable[
    [discord.Interaction[Any], str], Coroutine[Any, Any, list[app_commands.Choice[str]]]
]


def description(name: str) -> str:
    spec = command_spec(name)
    text = _DESCRIPTIONS.get(name) or (spec.summary if spec is not None else name)
    return text[:1].upper() + text[1:]


def add_commands(tree: app_commands.CommandTree, handlers: Handlers) -> None:
    """Register every listed command of the registry on `tree`."""
    for spec in COMMANDS:
        if spec.listed:
            tree.add_command(slash_command(spec, handlers))


def file_names(spec: CommandSpec) -> list[str]:
    """The attachment options of a command that takes files: `file`, `file2`, …"""
    return ["file"] + [f"file{n}" for n in range(2, spec.files + 1)] if spec.files else []


def slash_command(spec: CommandSpec, handlers: Handlers) -> app_commands.Command[Any, ..., None]:
    """`spec` as a discord.py command. discord.py reads a command's options from its
    callback's signature, so the callback is given one built from the registry's options."""
    files = file_names(spec)
    binds = spec.name in ("bind", "unbind")

    async def callback(interaction: discord.Interaction, **given: Any) -> None:
        attachments = [given.pop(name) for name in files if given.get(name) is not None]
        where = given.pop(SCOPE, "channel") if binds else "channel"
        scope: Literal["channel", "server"] = "server" if where == "server" else "channel"
        options = {
            name: _value(value)
            for name, value in given.items()
            if value is not None and value is not False and name not in files
        }
        await handlers.run(interaction, spec.name, options, attachments=attachments, bind=scope)

    parameters = [
        inspect.Parameter(
            "interaction", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=discord.Interaction
        )
    ]
    parameters += [_parameter(option) for option in spec.options]
    described = {option.name: option.help for option in spec.options}
    for number, name in enumerate(files):
        attachment = discord.Attachment if number == 0 else discord.Attachment | None
        default = inspect.Parameter.empty if number == 0 else None
        parameters.append(_keyword(name, attachment, default))
        described[name] = spec.files_help if number == 0 else MORE_FILES
    if binds:
        where = Literal["channel", "server"]
        parameters.append(_keyword(SCOPE, where, "channel"))
        described[SCOPE] = SCOPE_HELP
    callback.__signature__ = inspect.Signature(parameters)  # type: ignore[attr-defined]
    app_commands.describe(**described)(callback)
    completed = {
        option.name: _completer(handlers, option.complete)
        for option in spec.options
        if option.complete is not None
    }
    if completed:
        app_commands.autocomplete(**completed)(callback)
    if spec.staff:
        app_commands.default_permissions(STAFF_PERMISSIONS[spec.role])(callback)
    return app_commands.Command(
        name=spec.name, description=description(spec.name), callback=callback
    )


def _parameter(option: Option) -> inspect.Parameter:
    annotation = _annotation(option)
    if option.kind is Kind.BOOLEAN:
        return _keyword(option.name, bool, False)
    if option.required:
        return _keyword(option.name, annotation, inspect.Parameter.empty)
    return _keyword(option.name, annotation | None, None)


def _keyword(name: str, annotation: Any, default: Any) -> inspect.Parameter:
    return inspect.Parameter(
        name, inspect.Parameter.KEYWORD_ONLY, annotation=annotation, default=default
    )


def _annotation(option: Option) -> Any:
    if option.choices:
        return Literal.__getitem__(option.choices)
    if option.kind is Kind.INTEGER:
        if option.low is None and option.high is None:
            return int
        return app_commands.Range[int, option.low, option.high]
    if option.kind is Kind.USER:
        return discord.User
    if option.kind is Kind.PRINCIPAL:
        return discord.User | discord.Role
    return str


def _value(value: Any) -> Value:
    """A typed value as the core takes it: a user or role as the principal it stands for."""
    if isinstance(value, discord.User | discord.Member | discord.Role):
        return principal_of(value)
    if isinstance(value, str | int | bool):
        return value
    raise TypeError(f"an option value of an unexpected type: {type(value)}")


def _completer(handlers: Handlers, source: Source) -> Complete:
    return {
        Source.COURSES: handlers.course_choices,
        Source.DOCUMENTS: handlers.document_choices,
        Source.EXERCISES: handlers.topic_choices,
    }[source]
