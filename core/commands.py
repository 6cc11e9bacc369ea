"""The chat command vocabulary shared by every platform: names, usage, help text, and
whether a command's reply is for the asker alone.

Adapters use this table to register commands (Telegram's command menu, Discord's slash
commands) and the core parses chat lines with it, so a command is described once."""

from __future__ import annotations

from dataclasses import dataclass

from core.context import Role


@dataclass(frozen=True, slots=True)
class CommandSpec:
    name: str
    summary: str
    usage: str = ""
    role: Role = Role.STUDENT
    # The reply is for the asker alone (ephemeral on Discord): it is about them, or refusals.
    private: bool = False
    # What the reply shows that the rest of a group must not read ("" if nothing): such a
    # command is answered only where the reply can be kept from them.
    confidential: str = ""
    # In the help and the menus; unlisted commands are what buttons send.
    listed: bool = True


@dataclass(frozen=True, slots=True)
class ParsedCommand:
    name: str
    argument: str = ""


COMMANDS: tuple[CommandSpec, ...] = (
    CommandSpec("help", "show what I can do", private=True),
    CommandSpec("ask", "ask a question about the course", "QUESTION"),
    CommandSpec("sources", "list the course's documents", private=True),
    CommandSpec("practice", "start a guided exercise", "TOPIC|ID"),
    CommandSpec("exercise", "a generated exercise on a topic", "TOPIC [easy|medium|hard]"),
    CommandSpec(
        "lesson",
        "a short lesson on a topic as PDF slides",
        "TOPIC [--slides MIN-MAX] [--profile standard|visual|adhd|dyslexia] [--new]"
        ' | edit N "instruction"',
    ),
    CommandSpec("solution", "the worked solution of your current exercise", private=True),
    CommandSpec(
        "flashcards", "flashcards on a topic (backs hidden)", "TOPIC [--new] [--csv] [--anki]"
    ),
    CommandSpec("quiz", "a multiple-choice quiz on a topic", "TOPIC [N] [--new]"),
    CommandSpec("pick", "answer a quiz question", "N A|B|C|D"),
    CommandSpec("card", "one flashcard of a set, or its back", "SET N [back]", listed=False),
    CommandSpec("mindmap", "a mind map of a topic, as a picture", "TOPIC [--new]"),
    CommandSpec(
        "materials",
        "your generated lessons, quizzes and exercises; `/materials send ID` again",
        "[send ID]",
        private=True,
    ),
    CommandSpec("prereq", "a course's whole prerequisite chain and what it unlocks", "CODE|NAME"),
    CommandSpec("courseinfo", "a course's name, credits, semester and prerequisites", "CODE|NAME"),
    CommandSpec(
        "cantake",
        "whether your passed courses let you take a course",
        "CODE|NAME",
        private=True,
        confidential="what your record lets you take",
    ),
    CommandSpec(
        "profile",
        "your semester and passed and failed courses (for /cantake)",
        "[semester N] [passed CODE,CODE] [failed CODE] | clear",
        private=True,
        confidential="your passed and failed courses",
    ),
    CommandSpec("answer", "answer the current step of your exercise", "ANSWER"),
    CommandSpec("hint", "get a hint for the current step", private=True),
    CommandSpec("skip", "skip the current step (shows its solution)"),
    CommandSpec("status", "where you are in the current exercise", private=True),
    CommandSpec("quit", "stop the current exercise"),
    CommandSpec(
        "course",
        "choose the course of your direct messages, or join one by its code",
        "COURSE | join CODE",
        private=True,
    ),
    CommandSpec(
        "notes",
        "add files to your private notes, in a direct message (only you can see them)",
        private=True,
    ),
    CommandSpec(
        "mistakes",
        "the class's mistakes by skill, as a chart (and CSV)",
        "[--skill S] [--student U] [--csv]",
        Role.MODERATOR,
        private=True,
        confidential="students' names and answers",
    ),
    CommandSpec("bind", "bind this chat to a course", "COURSE", Role.INSTRUCTOR),
    CommandSpec(
        "ingest", "add files to the course material (attach them)", "", Role.INSTRUCTOR, True
    ),
    CommandSpec("forget", "remove a document from the course", "DOCUMENT", Role.INSTRUCTOR, True),
    CommandSpec(
        "grant",
        "give someone a role on this course",
        "instructor|moderator USER",
        Role.INSTRUCTOR,
        True,
    ),
    CommandSpec(
        "revoke",
        "take a role on this course away",
        "instructor|moderator USER",
        Role.INSTRUCTOR,
        True,
    ),
    CommandSpec("staff", "who teaches and moderates this course", "", Role.INSTRUCTOR, True),
    CommandSpec(
        "transfer",
        "hand this course to another instructor (site staff only)",
        "USER",
        Role.INSTRUCTOR,
        True,
    ),
    CommandSpec(
        "invite",
        "the code students join this course with; `/invite open|closed`",
        "[open|closed]",
        Role.INSTRUCTOR,
        True,
    ),
)

_BY_NAME = {spec.name: spec for spec in COMMANDS}


def command_spec(name: str) -> CommandSpec | None:
    return _BY_NAME.get(name)


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
        if spec.role in roles and spec.listed:
            usage = f" {spec.usage}" if spec.usage else ""
            lines.append(f"/{spec.name}{usage} — {spec.summary}")
    return "\n".join(lines)
