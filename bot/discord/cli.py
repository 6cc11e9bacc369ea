"""`coursebot discord`: run the bot in Discord. `bot/cli.py` defines it with `configure`."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from bot.common.arguments import positive_int

if TYPE_CHECKING:
    from config import Settings


DESCRIPTION = """Run the course bot in Discord: slash commands (/ask, /practice, /notes,
/ingest, /bind, ...) and answers to messages that mention the bot in a bound channel.

Settings (environment or .env):
  COURSEBOT_DISCORD_TOKEN      the bot's token (Developer Portal > your app > Bot). Required.
  COURSEBOT_DISCORD_DEV_GUILD  a server id: publish the slash commands to that server only,
                               which is instant (for development). Unset: publish them
                               globally, which Discord may take a while to show.
  COURSEBOT_COURSE_ROLES       who is an instructor or moderator of which course ("*" = all),
                               as JSON naming Discord roles by id or by name, e.g.
                               '{"calc101": {"instructor": ["discord:role:Teacher"],
                                 "moderator": ["discord:role:123456789"]}}'
                               (discord:USER_ID names one person). Members with the Manage
                               Server permission are instructors of their server's courses.

Invite the bot with the `bot` and `applications.commands` scopes and the permissions Send
Messages, Send Messages in Threads, Create Public Threads, Embed Links, Attach Files and Read
Message History. No privileged intent is needed: Discord includes the text of the messages
that mention the bot even without the Message Content intent, and the bot reads no others.

A channel (or a whole server) answers about the course it is bound to: an instructor runs
/bind course:calc101 there. In direct messages, /course chooses the course.

Large bots: several replicas can split the shards, for example `--shards 4 --shard-ids 0,1`
on one machine and `--shards 4 --shard-ids 2,3` on another. The replicas must then share
COURSEBOT_REDIS_URL (exercise sessions) and COURSEBOT_DATABASE_URL (course bindings,
mistakes) and a Qdrant server (COURSEBOT_QDRANT_URL). The replica running shard 0 publishes
the slash commands."""

NO_TOKEN = (
    "coursebot: set COURSEBOT_DISCORD_TOKEN to the bot's token "
    "(Discord Developer Portal > your app > Bot)"
)


def configure(parser: argparse.ArgumentParser) -> None:
    """The `discord` sub-command's description, options and runner. Light: discord.py and
    the core are imported when the bot runs, not when `--help` is read."""
    parser.description = DESCRIPTION
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.add_argument(
        "--shards",
        type=positive_int,
        metavar="N",
        help="shard the bot into N shards (an AutoShardedClient); default: one connection",
    )
    parser.add_argument(
        "--shard-ids",
        type=_shard_ids,
        metavar="IDS",
        help="with --shards: run only these shards, comma-separated (e.g. 0,1); default: all",
    )
    parser.set_defaults(run=run_discord)


def check_shards(args: argparse.Namespace) -> str | None:
    """What is wrong with the shard options, if anything (for `parser.error`)."""
    if args.shard_ids is None:
        return None
    if args.shards is None:
        return "--shard-ids needs --shards N"
    outside = [i for i in args.shard_ids if i >= args.shards]
    if outside:
        last = args.shards - 1
        return f"shard id {outside[0]} is out of range for --shards {args.shards} (0-{last})"
    return None


async def run_discord(args: argparse.Namespace, settings: Settings) -> int:
    problem = check_shards(args)
    if problem is not None:
        print(f"coursebot: {problem}", file=sys.stderr)
        return 2
    if settings.discord_token is None:
        print(NO_TOKEN, file=sys.stderr)
        return 2
    import aiohttp
    import discord

    from bot.discord.client import build_client
    from bot.discord.delivery import scheduled_poster
    from bot.discord.members import PLATFORM
    from bot.runtime import running_core, until_stopped
    from bot.scheduling import running_schedules

    async with running_core("discord", settings) as (assembly, shell):
        client = build_client(
            assembly.bot, settings, shard_count=args.shards, shard_ids=args.shard_ids
        )
        try:
            async with (
                client,  # closes the gateway on the way out
                running_schedules(
                    settings,
                    assembly.bot,
                    posters={PLATFORM: scheduled_poster(client)},
                    metrics=assembly.metrics,
                ),
            ):
                await until_stopped(shell, client.start(settings.discord_token.get_secret_value()))
        except discord.LoginFailure:
            print("coursebot: Discord refused COURSEBOT_DISCORD_TOKEN", file=sys.stderr)
            return 2
        except (aiohttp.ClientError, OSError) as error:
            # discord.py retries a dropped connection itself; this is a failed first contact.
            print(f"coursebot: cannot reach Discord: {error}", file=sys.stderr)
            return 1
    return 0


def _shard_ids(text: str) -> list[int]:
    try:
        ids = sorted({int(part) for part in text.split(",") if part.strip()})
    except ValueError:
        ids = []
    if not ids or ids[0] < 0:
        raise argparse.ArgumentTypeError(f"'{text}' is not a comma-separated list of shard ids")
    return ids
