"""The Telegram adapter: python-telegram-bot updates to core calls, core replies to Telegram
HTML messages, photos, documents and quiz polls.

The public names are loaded when first used: `coursebot telegram --help` reads only
`bot.telegram.cli`, and must not pay for python-telegram-bot and the core."""

from __future__ import annotations

from bot.common.lazy_exports import lazy_getattr

_EXPORTS = {
    "Polling": "bot.telegram.serving",
    "TelegramApplication": "bot.telegram.app",
    "Webhook": "bot.telegram.serving",
    "build_application": "bot.telegram.app",
    "running": "bot.telegram.serving",
}

__all__ = sorted(_EXPORTS)

__getattr__ = lazy_getattr(__name__, _EXPORTS)
