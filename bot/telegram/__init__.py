"""The Telegram adapter: python-telegram-bot updates to core calls, core replies to Telegram
HTML messages, photos, documents and quiz polls."""

from bot.telegram.app import TelegramApplication, build_application
from bot.telegram.cli import add_command
from bot.telegram.serving import Polling, Webhook, running

__all__ = [
    "Polling",
    "TelegramApplication",
    "Webhook",
    "add_command",
    "build_application",
    "running",
]
