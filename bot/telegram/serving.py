"""Running the bot: long polling (one process per token, Telegram allows a single poller) or a
webhook (any number of replicas behind a load balancer, each checking the secret token)."""

from __future__ import annotations

import re
import secrets
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from urllib.parse import urlsplit

from telegram import Update

from bot.telegram.app import TelegramApplication
from bot.telegram.commands import publish_commands
from config import Settings

# Messages, votes in the bot's quiz polls and presses of its buttons; nothing else is fetched.
ALLOWED_UPDATES = [Update.MESSAGE, Update.POLL_ANSWER, Update.CALLBACK_QUERY]
# Telegram's rule for a webhook secret token.
_SECRET = re.compile(r"[A-Za-z0-9_-]{1,256}")


@dataclass(frozen=True, slots=True)
class Polling:
    timeout_s: int = 30


@dataclass(frozen=True, slots=True)
class Webhook:
    """Telegram POSTs updates to `url` (HTTPS, the load balancer's address); this process
    listens on `listen:port` at the URL's path and answers 403 without the `secret`."""

    url: str
    secret: str
    listen: str = "0.0.0.0"
    port: int = 8443

    @property
    def path(self) -> str:
        return urlsplit(self.url).path or "/"


Mode = Polling | Webhook


def webhook_secret(settings: Settings) -> str:
    """The configured secret, or a fresh one (fine for a single process only: each start
    registers its own, so replicas must share COURSEBOT_TELEGRAM_WEBHOOK_SECRET)."""
    if settings.telegram_webhook_secret is None:
        return secrets.token_urlsafe(32)
    secret = settings.telegram_webhook_secret.get_secret_value()
    if not _SECRET.fullmatch(secret):
        raise ValueError(
            "COURSEBOT_TELEGRAM_WEBHOOK_SECRET may only hold letters, digits, '_' and '-' "
            "(1 to 256 of them)"
        )
    return secret


@asynccontextmanager
async def running(application: TelegramApplication, mode: Mode) -> AsyncIterator[None]:
    """The bot receiving and handling updates for the duration of the block."""
    updater = application.updater
    if updater is None:
        raise ValueError("the application was built without an updater")
    async with application:  # getMe, then shutdown on the way out
        await publish_commands(application.bot)
        try:
            if isinstance(mode, Webhook):
                await updater.start_webhook(
                    listen=mode.listen,
                    port=mode.port,
                    url_path=mode.path,
                    webhook_url=mode.url,
                    secret_token=mode.secret,
                    allowed_updates=ALLOWED_UPDATES,
                )
            else:
                await updater.start_polling(timeout=mode.timeout_s, allowed_updates=ALLOWED_UPDATES)
            await application.start()
            yield
        finally:
            if updater.running:
                await updater.stop()
            if application.running:
                await application.stop()
