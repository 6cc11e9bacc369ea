"""What each slash command does. Every command acknowledges first (Discord allows three
seconds), then works out who is asking and which course, then calls the core through
`CourseBot.handle_call`, which turns every failure into a reply."""

from __future__ import annotations

import itertools
import shlex
from collections.abc import Awaitable, Callable, Iterable, Sequence
from typing import Literal

import discord
import structlog
from discord import app_commands

from bot.common.progress import ProgressMessage
from bot.discord.courses import (
    bindable_channel_id,
    channel_chat,
    interaction_context,
    server_chat,
)
from bot.discord.delivery import Responder, post
from bot.discord.files import ingest_attachments
from bot.discord.members import PLATFORM, interaction_member, user_key
from bot.discord.render import practice_started, render_all
from config import Settings
from core.context import Context, Member
from core.course_bot import CourseBot
from core.replies import ErrorReply, Reply, StepPrompt

log = structlog.get_logger(__name__)

RESPONDER = "coursebot.responder"  # key of the Responder in `Interaction.extras`
SERVER_NEEDED = "Binding needs a server: run /bind in the channel or server to bind."
MAX_CHOICES = 25  # Discord shows at most 25 autocomplete choices
CHOICE_CHARS = 100
THREAD_NAME_CHARS = 100
THREAD_ARCHIVE_MINUTES = 1440

CoreCall = Callable[[Context], Awaitable[Reply | list[Reply]]]
Choices = list[app_commands.Choice[str]]


class Handlers:
    def __init__(self, bot: CourseBot, settings: Settings) -> None:
        self.bot = bot
        self.settings = settings

    # Questions and material ------------------------------------------------------------

    async def ask(self, interaction: discord.Interaction, question: str) -> None:
        await self._run(interaction, lambda ctx: self.bot.ask(ctx, question), private=False)

    async def sources(self, interaction: discord.Interaction) -> None:
        # Private: the list shows the student's own notes too.
        await self._run(interaction, self.bot.sources, private=True)

    async def forget(self, interaction: discord.Interaction, document: str, private: bool) -> None:
        await self._run(
            interaction, lambda ctx: self.bot.forget(ctx, document, private=private), private=True
        )

    async def ingest(
        self, interaction: discord.Interaction, attachments: Sequence[discord.Attachment]
    ) -> None:
        await self._ingest(interaction, attachments, command="ingest", private=False)

    async def notes(
        self, interaction: discord.Interaction, attachments: Sequence[discord.Attachment]
    ) -> None:
        await self._ingest(interaction, attachments, command="notes", private=True)

    async def mistakes(
        self,
        interaction: discord.Interaction,
        skill: str | None,
        student: discord.User | discord.Member | None,
        csv: bool,
    ) -> None:
        argument = mistakes_argument(skill, student, csv)
        await self._run(interaction, lambda ctx: self.bot.mistakes(ctx, argument), private=True)

    # Guided exercises ------------------------------------------------------------------

    async def practice(self, interaction: discord.Interaction, topic: str) -> None:
        responder = await self._acknowledge(interaction, private=False)
        ctx = await self._context(interaction, responder)
        if ctx is None:
            return
        replies = await self.bot.handle_call(ctx, self.bot.start_exercise(ctx, topic))
        step = next((r for r in replies if isinstance(r, StepPrompt)), None)
        if step is None:  # nothing started: why is for the student alone
            await responder.reply(replies, private=True)
            return
        thread = await self._practice_thread(interaction, step.exercise_title)
        if thread is None:  # a direct message, already a thread, or no right to create one
            await responder.reply(replies)
            return
        await post(thread, render_all(replies))
        name = interaction.user.display_name
        await responder.send([practice_started(name, step.exercise_title, thread.mention)])

    async def answer(self, interaction: discord.Interaction, text: str) -> None:
        await self._run(interaction, lambda ctx: self.bot.answer_step(ctx, text), private=False)

    async def hint(self, interaction: discord.Interaction) -> None:
        await self._run(interaction, self.bot.hint, private=True)

    async def skip(self, interaction: discord.Interaction) -> None:
        await self._run(interaction, self.bot.skip, private=False)

    async def quit(self, interaction: discord.Interaction) -> None:
        await self._run(interaction, self.bot.quit_exercise, private=False)

    async def status(self, interaction: discord.Interaction) -> None:
        await self._run(interaction, self.bot.exercise_status, private=True)

    # Courses ---------------------------------------------------------------------------

    async def bind(
        self, interaction: discord.Interaction, course: str, scope: Literal["channel", "server"]
    ) -> None:
        responder = await self._acknowledge(interaction, private=False)
        guild_id = interaction.guild_id
        channel_id = bindable_channel_id(interaction.channel)
        if guild_id is not None and scope == "server":
            chat, where = server_chat(guild_id), "This server"
        elif guild_id is not None and channel_id is not None:
            chat, where = channel_chat(channel_id), "This channel"
        else:
            await responder.reply([ErrorReply(SERVER_NEEDED)])
            return
        member = interaction_member(interaction)
        call = self.bot.bind(member, chat, course, where)
        await responder.reply(await self.bot.handle_call(_request(member, course, chat), call))

    async def choose_course(self, interaction: discord.Interaction, course: str) -> None:
        responder = await self._acknowledge(interaction, private=True)
        member = interaction_member(interaction)
        call = self.bot.choose_course(member, course)
        await responder.reply(await self.bot.handle_call(_request(member, course, None), call))

    # Autocomplete: never raises, since Discord can only show an empty list anyway --------

    async def course_choices(self, interaction: discord.Interaction, current: str) -> Choices:
        try:
            courses = await self.bot.courses(PLATFORM)
        except Exception:
            log.exception("course autocomplete failed")
            return []
        return _choices(((course, course) for course in courses), current)

    async def document_choices(self, interaction: discord.Interaction, current: str) -> Choices:
        try:
            ctx = await self._quiet_context(interaction)
            entries = (await self.bot.sources(ctx)).entries if ctx else ()
        except Exception:
            log.exception("document autocomplete failed")
            return []
        return _choices(((e.file_name, e.file_name) for e in entries), current)

    async def topic_choices(self, interaction: discord.Interaction, current: str) -> Choices:
        try:
            ctx = await self._quiet_context(interaction)
            exercises = await self.bot.exercises(ctx) if ctx else []
        except Exception:
            log.exception("exercise autocomplete failed")
            return []
        return _choices(((title, exercise_id) for exercise_id, title in exercises), current)

    # Steps shared by the commands ------------------------------------------------------

    async def _run(
        self, interaction: discord.Interaction, call: CoreCall, *, private: bool
    ) -> None:
        responder = await self._acknowledge(interaction, private=private)
        ctx = await self._context(interaction, responder)
        if ctx is not None:
            await responder.reply(await self.bot.handle_call(ctx, call(ctx)))

    async def _ingest(
        self,
        interaction: discord.Interaction,
        attachments: Sequence[discord.Attachment],
        *,
        command: str,
        private: bool,
    ) -> None:
        responder = await self._acknowledge(interaction, private=True)
        ctx = await self._context(interaction, responder)
        if ctx is None:
            return
        call = ingest_attachments(
            self.bot,
            ctx,
            attachments,
            command=command,
            private=private,
            max_bytes=self.settings.max_upload_bytes,
            on_progress=ProgressMessage(responder.show_progress),
        )
        await responder.reply(await self.bot.handle_call(ctx, call))

    async def _acknowledge(self, interaction: discord.Interaction, *, private: bool) -> Responder:
        responder = Responder(interaction, private=private)
        interaction.extras[RESPONDER] = responder  # the tree's error handler answers through it
        await responder.defer()
        return responder

    async def _context(
        self, interaction: discord.Interaction, responder: Responder
    ) -> Context | None:
        """The request's context, or None once the user was told the chat has no course."""
        found = await interaction_context(self.bot, interaction)
        if isinstance(found, ErrorReply):
            await responder.reply([found])
            return None
        return found

    async def _quiet_context(self, interaction: discord.Interaction) -> Context | None:
        found = await interaction_context(self.bot, interaction)
        return found if isinstance(found, Context) else None

    async def _practice_thread(
        self, interaction: discord.Interaction, title: str
    ) -> discord.Thread | None:
        channel = interaction.channel
        if not isinstance(channel, discord.TextChannel):
            return None
        name = f"{title} · {interaction.user.display_name}"[:THREAD_NAME_CHARS]
        try:
            return await channel.create_thread(
                name=name,
                type=discord.ChannelType.public_thread,
                auto_archive_duration=THREAD_ARCHIVE_MINUTES,
                reason="coursebot practice session",
            )
        except discord.HTTPException:
            log.warning("practice thread not created", channel=channel.id, exc_info=True)
            return None


def mistakes_argument(
    skill: str | None, student: discord.User | discord.Member | None, csv: bool
) -> str:
    """The slash command's options as the core's `/mistakes` argument."""
    words: list[str] = []
    if skill:
        words += ["--skill", skill]
    if student is not None:
        words += ["--student", user_key(student.id)]
    if csv:
        words.append("--csv")
    return shlex.join(words)


def _request(member: Member, course: str, chat_id: str | None) -> Context:
    """The context `handle_call` logs a failure with, before the course is known valid."""
    return Context(
        platform=member.platform, course_id=course, user_id=member.user_id, chat_id=chat_id
    )


def _choices(options: Iterable[tuple[str, str]], current: str) -> Choices:
    wanted = current.strip().lower()
    matching = (
        app_commands.Choice(name=name[:CHOICE_CHARS], value=value)
        for name, value in options
        # A value cannot be shortened without changing what it names.
        if len(value) <= CHOICE_CHARS and (wanted in name.lower() or wanted in value.lower())
    )
    return list(itertools.islice(matching, MAX_CHOICES))
