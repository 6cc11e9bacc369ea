"""Sentence splitting: one rule for chunking and for quoting."""

from __future__ import annotations

import re

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=\S)")


def split_sentences(text: str) -> list[str]:
    """Split after `.`, `!` or `?` followed by white space; line breaks are kept inside."""
    return [part for part in _SENTENCE_END.split(text) if part]
