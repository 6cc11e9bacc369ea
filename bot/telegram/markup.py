"""The one place text becomes Telegram HTML: everything shown in a chat is escaped here, and
the few tags the renderer uses are built here, so no reply can break the parse mode."""

from __future__ import annotations

import html

from telegram.constants import MessageLimit, ParseMode

PARSE_MODE = ParseMode.HTML
MESSAGE_LIMIT = MessageLimit.MAX_TEXT_LENGTH
CAPTION_LIMIT = MessageLimit.CAPTION_LENGTH


def escape(text: str) -> str:
    """Plain text as HTML: Telegram wants only <, > and & escaped outside tags."""
    return html.escape(text, quote=False)


def escaped_length(text: str) -> int:
    """How long `text` is once escaped: the measure every split must use."""
    return len(escape(text))


def bold(text: str) -> str:
    return f"<b>{escape(text)}</b>"


def italic_html(escaped: str) -> str:
    """Already-escaped text in italics."""
    return f"<i>{escaped}</i>"


def truncate(text: str, limit: int) -> str:
    """`text` escaped and shortened to at most `limit` characters, with an ellipsis when cut
    (for captions and poll texts, which cannot be split across messages)."""
    if escaped_length(text) <= limit:
        return escape(text)
    cut = text
    while cut and escaped_length(cut) > limit - 1:
        cut = cut[: -max(1, escaped_length(cut) - limit + 1)]
    return escape(cut.rstrip()) + "…"
