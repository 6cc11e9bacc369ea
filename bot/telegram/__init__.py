"""The Telegram adapter: python-telegram-bot updates to core calls, core replies to Telegram
HTML messages, photos, documents and quiz polls.

The public names are loaded when first used: `coursebot telegram --help` reads only
`bot.telegram.cli`, and must not pay for python-telegram-bot and the core."""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "Polling": "bot.telegram.serving",
    "TelegramApplication": "bot.telegram.app",
    "Webhook": "bot.telegram.serving",
    "build_application": "bot.telegram.app",
    "running": "bot.telegram.serving",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
