"""The Discord client: one `discord.Client`, or an `AutoShardedClient` running a subset of the
shards, both with the same command tree, mention handler and command sync."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

import discord
import structlog
from discord import app_commands

from bot.discord.buttons import CourseButton
from bot.discord.commands import add_commands
from bot.discord.delivery import NO_MENTIONS, Responder, post
from bot.discord.handlers import RESPONDER, Handlers
from bot.discord.members import PLATFORM
from bot.discord.mentions import MentionAnswers
from bot.discord.render import render_all
from config import Settings
from core.commands import ParsedCommand
from core.course_bot import INTERNAL_ERROR, CourseBot
from core.replies import ErrorReply, Reply

log = structlog.get_logger(__name__)

STALE_COMMAND = "I don't have that command any more; Discord will update the list shortly."


def intents() -> discord.Intents:
    """The default intents: servers and their roles (so roles can be named in settings) and
    messages (for mentions). No privileged intent is needed."""
    return discord.Intents.default()


class CourseTree(app_commands.CommandTree):
    """The command tree; a failure that escaped a command is logged and answered politely."""

    async def on_error(
        self, interaction: discord.Interaction, error: app_commands.AppCommandError, /
    ) -> None:
        command = interaction.command.name if interaction.command else None
        if isinstance(error, app_commands.CommandNotFound):
            # A command of an older version, still listed until Discord refreshes the list.
            log.warning("unknown slash command", command=error.name)
            text = STALE_COMMAND
        else:
            log.error("slash command failed", command=command, exc_info=error)
            text = INTERNAL_ERROR
        await report_failure(interaction, text, command)


async def report_failure(interaction: discord.Interaction, text: str, command: str | None) -> None:
    """Say `text` to whoever's command failed, through its responder if it has one."""
    try:
        responder = interaction.extras.get(RESPONDER)
        if isinstance(responder, Responder):
            await responder.reply([ErrorReply(text)])
        elif interaction.response.is_done():
            await interaction.followup.send(text, ephemeral=True)
        else:
            await interaction.response.send_message(text, ephemeral=True)
    except Exception:  # the interaction may have expired; the log has the failure
        log.warning("could not report the failure", command=command, exc_info=True)


async def sync_commands(
    tree: app_commands.CommandTree, dev_guild: int | None
) -> list[app_commands.AppCommand]:
    """Publish the commands: to the development server only (instant) when one is set,
    otherwise globally (Discord may take a while to show changes everywhere)."""
    if dev_guild is None:
        return await tree.sync()
    guild = discord.Object(id=dev_guild)
    tree.copy_global_to(guild=guild)
    return await tree.sync(guild=guild)


class _CourseClient:
    """What both client kinds add to discord.py's: the tree, mentions and setup."""

    tree: CourseTree
    user: discord.ClientUser | None

    def __init__(
        self, *, core: CourseBot, settings: Settings, sync: bool = True, **options: Any
    ) -> None:
        super().__init__(intents=intents(), allowed_mentions=NO_MENTIONS, **options)  # type: ignore[call-arg]
        self.tree = CourseTree(self)  # type: ignore[arg-type]
        # Not `_handlers`: discord.py's Client keeps its own event handlers under that name.
        self._commands = Handlers(core)
        add_commands(self.tree, self._commands)
        self._mentions = MentionAnswers(core)
        self._dev_guild = settings.discord_dev_guild
        self.syncs_commands = sync
        # A staff answer reaches the students who asked, where they accept direct messages.
        core.send_direct_messages(PLATFORM, self.send_directly)

    async def setup_hook(self) -> None:
        # Buttons are handled by their custom id: those of messages sent before a restart too.
        self.add_dynamic_items(CourseButton)  # type: ignore[attr-defined]
        if self.syncs_commands:
            synced = await sync_commands(self.tree, self._dev_guild)
            log.info("slash commands synced", commands=len(synced), guild=self._dev_guild)

    async def on_ready(self) -> None:
        guilds = getattr(self, "guilds", ())
        log.info("connected to Discord", user=str(self.user), servers=len(guilds))

    async def press_button(self, interaction: discord.Interaction, command: ParsedCommand) -> None:
        """What `CourseButton` calls; a failure is logged and answered like a command's."""
        try:
            await self._commands.press(interaction, command)
        except Exception:
            log.exception("button press failed", command=command.name)
            await report_failure(interaction, INTERNAL_ERROR, command.name)

    async def send_directly(self, user_id: str, replies: Sequence[Reply]) -> bool:
        """Write `replies` to `user_id` (`discord:42`) in a direct message; False where
        Discord does not let the bot (no shared server, or direct messages closed)."""
        try:
            user = await cast(discord.Client, self).fetch_user(
                int(user_id.removeprefix(f"{PLATFORM}:"))
            )
            await post(user, render_all(replies))
        except (ValueError, discord.HTTPException):
            return False
        return True

    async def on_message(self, message: discord.Message) -> None:
        await self._mentions.on_message(message, self.user)


class CourseClient(_CourseClient, discord.Client):
    pass


class ShardedCourseClient(_CourseClient, discord.AutoShardedClient):
    pass


def build_client(
    core: CourseBot,
    settings: Settings,
    *,
    shard_count: int | None = None,
    shard_ids: Sequence[int] | None = None,
) -> CourseClient | ShardedCourseClient:
    """One client, or with `shard_count` a sharded one running `shard_ids` (all if None), so
    replicas can split a large bot. Only the replica running shard 0 publishes the commands:
    one sync is enough, and Discord limits how often they may change."""
    if shard_count is None:
        return CourseClient(core=core, settings=settings)
    ids = list(shard_ids) if shard_ids is not None else None
    return ShardedCourseClient(
        core=core,
        settings=settings,
        sync=ids is None or 0 in ids,
        shard_count=shard_count,
        shard_ids=ids,
    )
