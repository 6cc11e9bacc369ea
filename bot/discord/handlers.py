"""Slash commands to core requests. Every command acknowledges first (Discord allows three
seconds), then says who is asking, where, and what (the command and its typed option values,
the attachments as files), calls `CourseBot.handle` once and renders the
response: ephemerally when the core marks it private. A button press (`press`) becomes the
command its custom id names, the same way. Nothing here decides who may do what or what may
be shown."""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping, Sequence
from typing import Literal

import discord
import structlog
from discord import app_commands

from bot.common.progress import ProgressMessage
from bot.discord.delivery import Responder, Sent, post
from bot.discord.files import incoming_files
from bot.discord.members import interaction_member, place_of, role_key, user_key
from bot.discord.render import Outgoing, practice_started, render, render_all
from core.commands import ParsedCommand, Value, command_spec
from core.course_bot import CourseBot
from core.replies import FlashcardTurn, StepPrompt
from core.requests import Request

log = structlog.get_logger(__name__)

RESPONDER = "coursebot.responder"  # key of the Responder in `Interaction.extras`
MAX_CHOICES = 25  # Discord shows at most 25 autocomplete choices
CHOICE_CHARS = 100
THREAD_NAME_CHARS = 100
THREAD_ARCHIVE_MINUTES: Literal[60, 1440, 4320, 10080] = 1440  # the durations Discord offers

Choices = list[app_commands.Choice[str]]
Someone = discord.User | discord.Member | discord.Role


class Handlers:
    def __init__(self, core: CourseBot) -> None:
        self.core = core

    async def run(
        self,
        interaction: discord.Interaction,
        name: str,
        options: Mapping[str, Value] | None = None,
        *,
        attachments: Sequence[discord.Attachment] = (),
        bind: Literal["channel", "server"] = "channel",
    ) -> None:
        """Any command: acknowledge, hand it to the core, show the response."""
        spec = command_spec(name)
        responder = await self._acknowledge(interaction, private=spec is None or spec.private)
        request = self._request(
            interaction,
            ParsedCommand(name, options=dict(options or {})),
            attachments=attachments,
            bind=bind,
            # An ingestion or a job (a lesson, a set being made) edits the deferred response
            # as it advances; the final reply replaces it.
            on_progress=(
                ProgressMessage(responder.show_progress)
                if attachments or (spec is not None and spec.job)
                else None
            ),
        )
        response = await self.core.handle(request)
        step = next((r for r in response.replies if isinstance(r, StepPrompt)), None)
        if name in ("practice", "exercise") and step is not None and not response.private:
            thread = await self._practice_thread(interaction, step.exercise_title)
            if thread is not None:  # not a DM, not already a thread, allowed to create one
                await self.core.exercise_moved(request, str(thread.id))
                await post(thread, render_all(response.replies))
                who = interaction.user.display_name
                await responder.send([practice_started(who, step.exercise_title, thread.mention)])
                return
        await responder.reply(
            response.replies, private=response.private, on_sent=self._remember_sent(request)
        )

    def _remember_sent(self, request: Request) -> Sent:
        async def remember(message: Outgoing, sent: discord.Message) -> None:
            await self.core.remember_sent(request, str(sent.id), message.anchor)

        return remember

    async def press(self, interaction: discord.Interaction, command: ParsedCommand) -> None:
        """A button: `/pick` or `/card` from the custom id, through the core like any
        command (the interaction id is the message id, so a replayed press gets the stored
        reply and counts once). The answer is for the presser alone: the button sits on a
        message others read and press too. A card turned on the presser's own (ephemeral) copy turns
        in place, so working through a deck stays one message; a card pressed on the
        channel's message arrives as such a copy, leaving the channel's card as it was."""
        responder = Responder(interaction, private=True)
        interaction.extras[RESPONDER] = responder
        message = interaction.message
        in_place = command.name == "card" and message is not None and message.flags.ephemeral
        if in_place:
            await responder.defer_update()
        else:
            await responder.defer()
        response = await self.core.handle(self._request(interaction, command))
        match response.replies:
            case [FlashcardTurn() as turn] if in_place:
                [card] = render(turn)
                await responder.update(card)
            case replies:
                await responder.reply(replies, private=True)

    # Autocomplete: never raises, since Discord can only show an empty list anyway --------

    async def course_choices(self, interaction: discord.Interaction, current: str) -> Choices:
        try:
            courses = await self.core.course_choices(interaction_member(interaction))
        except Exception:
            log.exception("course autocomplete failed")
            return []
        return _choices(((course, course) for course in courses), current)

    async def document_choices(self, interaction: discord.Interaction, current: str) -> Choices:
        try:
            names = await self.core.document_choices(self._request(interaction))
        except Exception:
            log.exception("document autocomplete failed")
            return []
        return _choices(((name, name) for name in names), current)

    async def topic_choices(self, interaction: discord.Interaction, current: str) -> Choices:
        try:
            exercises = await self.core.exercise_choices(self._request(interaction))
        except Exception:
            log.exception("exercise autocomplete failed")
            return []
        return _choices(((title, exercise_id) for exercise_id, title in exercises), current)

    # Steps shared by the commands ------------------------------------------------------

    def _request(
        self,
        interaction: discord.Interaction,
        command: ParsedCommand | None = None,
        *,
        attachments: Sequence[discord.Attachment] = (),
        bind: Literal["channel", "server"] = "channel",
        on_progress: ProgressMessage | None = None,
    ) -> Request:
        return Request(
            member=interaction_member(interaction),
            place=place_of(interaction.channel, interaction.guild_id, bind=bind),
            message_id=f"discord:{interaction.id}",  # snowflakes never repeat
            command=command,
            files=incoming_files(attachments),
            on_progress=on_progress,
        )

    async def _acknowledge(self, interaction: discord.Interaction, *, private: bool) -> Responder:
        responder = Responder(interaction, private=private)
        interaction.extras[RESPONDER] = responder  # the tree's error handler answers through it
        await responder.defer()
        return responder

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


def principal_of(who: Someone) -> str:
    """A mentioned user or role, as the principal roles are granted to."""
    return role_key(who.id) if isinstance(who, discord.Role) else user_key(who.id)


def _choices(options: Iterable[tuple[str, str]], current: str) -> Choices:
    wanted = current.strip().lower()
    matching = (
        app_commands.Choice(name=name[:CHOICE_CHARS], value=value)
        for name, value in options
        # A value cannot be shortened without changing what it names.
        if len(value) <= CHOICE_CHARS and (wanted in name.lower() or wanted in value.lower())
    )
    return list(itertools.islice(matching, MAX_CHOICES))
