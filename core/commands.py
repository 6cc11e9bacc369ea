"""The chat command vocabulary shared by every platform: names, usage and help text.

Adapters use this table to register commands (Telegram command list, Discord slash commands)
and the console parses lines with it, so a command is described once."""

from __future__ import annotations

from dataclasses import dataclass

from core.context import Role


@dataclass(frozen=True, slots=True)
class CommandSpec:
    name: str
    summary: str
    usage: str = ""
    role: Role = Role.STUDENT


@dataclass(frozen=True, slots=True)
class ParsedCommand:
    name: str
    argument: str


COMMANDS: tuple[CommandSpec, ...] = (
    CommandSpec("help", "show what I can do"),
    CommandSpec("ask", "ask a question about the course", "QUESTION"),
    CommandSpec("sources", "list the course's documents"),
    CommandSpec("practice", "start a guided exercise", "TOPIC|ID"),
    CommandSpec("hint", "get a hint for the current step"),
    CommandSpec("skip", "skip the current step (shows its solution)"),
    CommandSpec("status", "where you are in the current exercise"),
    CommandSpec("quit", "stop the current exercise"),
    CommandSpec(
        "mistakes",
        "the class's mistakes by skill, as a chart (and CSV)",
        "[--skill S] [--student U] [--csv]",
        Role.MODERATOR,
    ),
)


# Commands every chat adapter adds to the ones above: they need the platform (a chat to bind,
# files to receive), so adapters handle them and then call the core.
CHAT_COMMANDS: tuple[CommandSpec, ...] = (
    CommandSpec("course", "choose the course your direct messages are about", "COURSE"),
    CommandSpec("notes", "add files to your private notes (only you can see them)"),
    CommandSpec("bind", "bind this chat to a course", "COURSE", Role.INSTRUCTOR),
    CommandSpec("ingest", "add files to the course material", "", Role.INSTRUCTOR),
    CommandSpec("forget", "remove a document from the course", "DOCUMENT", Role.INSTRUCTOR),
)


def command_spec(name: str) -> CommandSpec | None:
    return next((spec for spec in (*COMMANDS, *CHAT_COMMANDS) if spec.name == name), None)


def parse_command(text: str) -> ParsedCommand | None:
    """`/name rest` -> ParsedCommand; a plain line -> None. Accepts Telegram's `/name@bot`."""
    stripped = text.strip()
    if not stripped.startswith("/") or len(stripped) == 1:
        return None
    head, _, rest = stripped[1:].partition(" ")
    name = head.split("@", 1)[0].lower()
    return ParsedCommand(name=name, argument=rest.strip())


def help_text(roles: frozenset[Role]) -> str:
    lines = [
        "Ask me anything about the course: send your question as a plain message.",
        "During a guided exercise, plain messages are your answers.",
    ]
    for spec in COMMANDS:
        if spec.role in roles:
            usage = f" {spec.usage}" if spec.usage else ""
            lines.append(f"/{spec.name}{usage} — {spec.summary}")
    return "\n".join(lines)
