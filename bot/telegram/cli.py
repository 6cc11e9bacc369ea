"""`coursebot telegram`: run the Telegram bot, by long polling or as a webhook server."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

if TYPE_CHECKING:
    from bot.telegram.serving import Mode
    from config import Settings


DESCRIPTION = """Run coursebot as a Telegram bot: cited answers to questions in groups and
direct messages, guided exercises, private notes, and course material sent as files.

Settings (environment variables or .env):
  COURSEBOT_TELEGRAM_TOKEN           required: the bot's token from @BotFather
  COURSEBOT_COURSE_ROLES             who is an instructor or moderator of which course
                                     ("*" = every course), as JSON of Telegram user ids:
      '{"calc101": {"instructor": ["telegram:42"], "moderator": ["telegram:7"]}}'
                                     Group administrators are instructors of the course
                                     their group is bound to (/bind COURSE).
  COURSEBOT_TELEGRAM_WEBHOOK_SECRET  webhook mode: the secret Telegram sends back with every
                                     update (letters, digits, _ and -); unset = a new one at
                                     each start, so replicas must all set the same one
  COURSEBOT_TELEGRAM_MESSAGES_PER_S  messages a second this process sends in all (default 30,
                                     Telegram's limit for a bot; replicas share it)
  COURSEBOT_MAX_UPLOAD_MB            largest file accepted (Telegram lets bots download at
                                     most 20 MB)

Modes:
  (default)        long polling: exactly one process per bot token, since Telegram
                   allows a single poller
  --webhook URL    Telegram POSTs updates to URL (https://, e.g. your load balancer), and
                   this process serves them over plain HTTP on --listen:--port at URL's
                   path (TLS ends at the load balancer or proxy). Run as many
                   replicas as you need; they must share COURSEBOT_REDIS_URL (sessions),
                   COURSEBOT_DATABASE_URL (course bindings, mistakes), COURSEBOT_QDRANT_URL
                   (the index) and the webhook secret.

In groups the bot answers messages that mention it, replies to its messages and /ask, so
BotFather's group privacy mode can stay on. `coursebot config` shows the settings in effect."""


def configure(telegram: argparse.ArgumentParser) -> None:
    """The `telegram` sub-command's description, options and runner. Light: the Telegram
    library and the core are imported when the bot runs, not when `--help` is read."""
    telegram.description = DESCRIPTION
    telegram.formatter_class = argparse.RawDescriptionHelpFormatter
    telegram.add_argument(
        "--webhook",
        type=_webhook_url,
        metavar="URL",
        help="receive updates at this public https:// URL instead of polling",
    )
    telegram.add_argument(
        "--listen",
        default="0.0.0.0",
        metavar="ADDRESS",
        help="with --webhook: the address to listen on (default 0.0.0.0)",
    )
    telegram.add_argument(
        "--port",
        type=_port,
        default=8443,
        metavar="PORT",
        help="with --webhook: the port to listen on (default 8443)",
    )
    telegram.set_defaults(run=run_telegram)


async def run_telegram(args: argparse.Namespace, settings: Settings) -> int:
    import structlog
    from telegram.error import InvalidToken, NetworkError

    from bot.runtime import running_core
    from bot.scheduling import running_schedules
    from bot.telegram.app import build_application, scheduled_poster
    from bot.telegram.members import PLATFORM
    from bot.telegram.serving import running

    log = structlog.get_logger(__name__)
    if settings.telegram_token is None:
        print(
            "coursebot: COURSEBOT_TELEGRAM_TOKEN is not set; create a bot with @BotFather "
            "and set its token (see `coursebot telegram --help`)",
            file=sys.stderr,
        )
        return 2
    try:
        mode = _mode(args, settings)
    except ValueError as error:
        print(f"coursebot: {error}", file=sys.stderr)
        return 2
    async with running_core("telegram", settings) as (assembly, shell):
        api = str(settings.telegram_api_url).rstrip("/") if settings.telegram_api_url else None
        application = build_application(
            settings,
            assembly.bot,
            base_url=f"{api}/bot" if api else None,
            base_file_url=f"{api}/file/bot" if api else None,
        )
        try:
            async with (
                running(application, mode),
                running_schedules(
                    settings,
                    assembly.bot,
                    posters={PLATFORM: scheduled_poster(application, assembly.bot)},
                    metrics=assembly.metrics,
                ),
            ):
                log.info("telegram bot running", mode=type(mode).__name__.lower())
                await shell.wait()
        except InvalidToken:
            print("coursebot: Telegram refused COURSEBOT_TELEGRAM_TOKEN", file=sys.stderr)
            return 2
        except NetworkError as error:
            print(f"coursebot: cannot reach Telegram: {error}", file=sys.stderr)
            return 1
    return 0


def _mode(args: argparse.Namespace, settings: Settings) -> Mode:
    import structlog

    from bot.telegram.serving import Polling, Webhook, webhook_secret

    if args.webhook is None:
        return Polling()
    if settings.telegram_webhook_secret is None:
        structlog.get_logger(__name__).warning(
            "webhook secret generated for this process only; set "
            "COURSEBOT_TELEGRAM_WEBHOOK_SECRET when running several replicas"
        )
    return Webhook(args.webhook, webhook_secret(settings), args.listen, args.port)


def _webhook_url(text: str) -> str:
    parts = urlsplit(text)
    if parts.scheme != "https" or not parts.hostname:
        raise argparse.ArgumentTypeError(
            f"'{text}' is not an https:// URL; Telegram only delivers webhooks over HTTPS"
        )
    return text


def _port(text: str) -> int:
    try:
        port = int(text)
    except ValueError:
        port = 0
    if not 1 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"'{text}' is not a port number (1-65535)")
    return port
