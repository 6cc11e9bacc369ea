"""The console adapter: a REPL speaking the same commands as the chat platforms.

It is the project's text backend: the README's demo and the end-to-end tests drive the core
through it with no network. The person at the terminal is the operator and holds every role;
`/as USER` speaks as someone else (with the roles they were granted) and `/group on` as if in
a group chat others read, so the core's authority and audience rules can be tried here."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from bot.common.progress import ProgressMessage
from bot.common.wording import shown_name
from bot.console.files import DEFAULT_FOLDER, save_document, shown_path
from bot.console.render import render
from core.commands import ParsedCommand
from core.context import Audience, Member
from core.course_bot import CourseBot
from core.courses import parse_course_id
from core.errors import BadInputError
from core.progress import ShowProgress
from core.replies import DocumentReply, ErrorReply, Reply
from core.requests import Place, Request, Response

PLATFORM = "console"
OPERATOR = "console"
EXIT_WORDS = frozenset({"/exit", "exit"})
GROUP_CHAT = "console:group"
CONSOLE_HELP = (
    "Console only: /as USER speaks as USER (/as alone: yourself again), "
    "/group on|off as if in a group chat, /course COURSE switches course, /exit leaves."
)

ReadLine = Callable[[str], Awaitable[str | None]]


@dataclass(slots=True)
class ConsoleSpeaker:
    """Who is typing and where: the course, the user and whether others read along."""

    course: str
    user: str = OPERATOR
    group: bool = False

    @property
    def operator(self) -> bool:
        return self.user == OPERATOR

    def request(
        self,
        text: str = "",
        command: ParsedCommand | None = None,
        on_progress: ShowProgress | None = None,
    ) -> Request:
        if self.group:
            place = Place(
                Audience.SHARED,
                chat_id=GROUP_CHAT,
                lookup=(GROUP_CHAT,),
                bind_key=GROUP_CHAT,
                name="This console group",
            )
        else:
            place = Place(Audience.PRIVATE, chat_id=f"console:{self.user}")
        return Request(
            member=Member(platform=PLATFORM, user_id=self.user, name=self.user),
            place=place,
            # Unique across runs: a restarted chat must not look like a replay.
            message_id=f"console:{uuid.uuid4()}",
            text=text,
            command=command,
            course=self.course,
            operator=self.operator,
            on_progress=on_progress,
        )

    def switch(self, line: str) -> str | None:
        """Apply a console-only command; its confirmation, or None if `line` is not one."""
        head, _, rest = line.strip().partition(" ")
        rest = rest.strip()
        match head.lower():
            case "/as":
                self.user = rest or OPERATOR
                if self.operator:
                    return "Speaking as yourself, the operator (every role)."
                return f"Speaking as {self.user}, with the roles {self.user} was granted."
            case "/group":
                if rest.lower() not in ("on", "off"):
                    return "! Usage: /group on|off"
                self.group = rest.lower() == "on"
                return (
                    "In a group chat: others read the replies."
                    if self.group
                    else ("In a direct chat: only you read the replies.")
                )
            case "/course" if rest and not rest.startswith("join"):
                try:
                    self.course = parse_course_id(rest)
                except BadInputError as error:
                    return f"! {error}"
                return f"Now in the course '{self.course}'."
        return None


async def stdin_reader(prompt: str) -> str | None:
    """Read one line without blocking the event loop; None at end of input."""
    try:
        return await asyncio.to_thread(input, prompt)
    except EOFError:
        return None


def progress_lines(out: TextIO) -> ProgressMessage:
    """A job's progress (a lesson, a set being made) as lines printed while it runs, at the
    pace of the chat adapters' edited messages."""

    async def line(text: str) -> None:
        out.write(f"… {text}\n")
        out.flush()

    return ProgressMessage(line)


def write(response: Response, out: TextIO, files: Path = DEFAULT_FOLDER) -> None:
    """Print the replies; a file the bot sends is saved under `files` and its path shown."""
    for reply in response.replies:
        out.write(_shown(reply, files) + "\n")
    out.flush()


def _shown(reply: Reply, files: Path) -> str:
    if not isinstance(reply, DocumentReply):
        return render(reply)
    name = shown_name(reply.file_name)
    try:
        saved = save_document(reply, files)
    except OSError as error:
        reason = (error.strerror or type(error).__name__).lower()
        line = f"! Could not save {name} to {shown_path(files)}: {reason}"
    else:
        line = f"saved {name} to {shown_name(shown_path(saved))}"
    return f"{reply.caption}\n{line}" if reply.caption else line


async def run_chat(
    core: CourseBot,
    speaker: ConsoleSpeaker,
    read_line: ReadLine,
    out: TextIO,
    files: Path = DEFAULT_FOLDER,
) -> None:
    out.write(f"coursebot — course '{speaker.course}'. Type /help for commands, /exit to leave.\n")
    while True:
        line = await read_line("> ")
        if line is None or line.strip().lower() in EXIT_WORDS:
            break
        if not line.strip():
            continue
        switched = speaker.switch(line)
        if switched is not None:
            out.write(switched + "\n")
            continue
        response = await core.handle(speaker.request(line, on_progress=progress_lines(out)))
        write(response, out, files)
        if line.strip().lower().startswith("/help"):
            out.write(CONSOLE_HELP + "\n")


async def ask_once(
    core: CourseBot,
    speaker: ConsoleSpeaker,
    question: str,
    out: TextIO,
    files: Path = DEFAULT_FOLDER,
) -> bool:
    """Answer one question; False when the reply is an error (for the exit code)."""
    response = await core.handle(speaker.request(command=ParsedCommand("ask", question)))
    write(response, out, files)
    return not any(isinstance(reply, ErrorReply) for reply in response.replies)
