"""Limits on what a user may send, checked before any work is done on it."""

from __future__ import annotations

from core.errors import BadInputError


def check_text_length(text: str, max_chars: int) -> None:
    """Refuse `text` longer than `max_chars` characters with a message saying by how much."""
    length = len(text)
    if length > max_chars:
        raise BadInputError(
            f"Your message is {length:,} characters long; the limit is {max_chars:,}. "
            "Please shorten it."
        )
