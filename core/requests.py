"""The one inbound shape: what an adapter tells the core about a message, and what it gets
back. An adapter builds a `Request` from a platform event (who, where, which message, its
text or typed command, its files), calls `CourseBot.handle` once, and renders the `Response`.
Every decision in between is the core's."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path

from core.commands import ParsedCommand, parse_command
from core.context import Audience, Member
from core.progress import ShowProgress
from core.replies import Reply

Download = Callable[[Path], Awaitable[None]]


@dataclass(frozen=True, slots=True)
class Place:
    """Where a message was said, as the adapter sees it.

    `lookup` are the keys a course binding may be stored under, most specific first (a
    thread, its channel, the server); empty in a direct message. `bind_key` is what `/bind`
    binds here and `name` how the confirmation calls it ("This group"). `whisper` is true
    where the platform can show a reply to the asker alone (a Discord ephemeral message)."""

    audience: Audience
    chat_id: str | None = None
    lookup: tuple[str, ...] = ()
    bind_key: str | None = None
    name: str = "This chat"
    whisper: bool = False

    @property
    def direct(self) -> bool:
        return not self.lookup


@dataclass(frozen=True, slots=True)
class IncomingFile:
    """A file attached to a message: its name and size as the platform reports them, and
    how to download it (only called once the core has accepted it). `platform_limit` is the
    largest file the platform lets a bot download, if it has one."""

    name: str
    size: int | None
    download: Download
    platform_limit: int | None = None


@dataclass(frozen=True, slots=True)
class Request:
    """One inbound message. `message_id` is unique across platforms, processes and runs: it
    is the idempotency key, so a redelivered message gets the reply it got the first time.
    `course` is set only by an operator's adapter (the console, the command line), whose
    user chose it: chat adapters leave the course to bindings and membership.
    `invite_link` is how the platform writes a link that opens a direct message with the
    bot and sends it `/start CODE` (`{code}` stands for the code), where it has one.
    `replying_to` is the id (within its chat) of the bot's message this one replies to.
    `on_progress` hears how far the request's job has come (an ingestion, a lesson, a set),
    for a message the adapter edits as it advances."""

    member: Member
    place: Place
    message_id: str
    text: str = ""
    command: ParsedCommand | None = None
    files: tuple[IncomingFile, ...] = ()
    course: str | None = None
    operator: bool = False
    invite_link: str = ""
    replying_to: str | None = None
    on_progress: ShowProgress | None = field(default=None, compare=False)

    @property
    def key(self) -> str:
        """The idempotency key: who sent it and the message's id."""
        return f"{self.member.user_id}|{self.message_id}"

    def parsed(self) -> ParsedCommand | None:
        return self.command if self.command is not None else parse_command(self.text)


@dataclass(frozen=True, slots=True)
class Response:
    """What to show. `private` replies are for the asker alone: shown ephemerally where the
    platform can whisper, and in a shared place without whispers the core has already kept
    back whatever must not be seen there."""

    replies: tuple[Reply, ...] = ()
    private: bool = False

    @classmethod
    def of(cls, *replies: Reply, private: bool = False) -> Response:
        return cls(tuple(replies), private)
