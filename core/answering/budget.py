"""The context budget: how many characters of ranked passages an answerer gets to read.

One rule, used by the answer path and by `coursebot eval --budget`: walk the passages in rank
order and keep each whole while it fits in what is left of the budget. The first one that does
not fit is cut at the last sentence end or line break that fits (a word boundary if none does;
table rows and list items are lines, so they stay whole) and packing stops there; a cut head
under MIN_CUT characters is left out, except for the top passage, which is always kept.

Measured on syllabusqa-dev (3,975 questions, dbsf, top 5, 4,000 characters): span_hit 0.842
at 3,967 characters on average with this rule; 0.814 at 3,410 when an overflowing passage is
skipped for later, smaller ones instead (the head of a higher-ranked passage holds the answer
more often than a whole lower-ranked one); 0.799 at 3,053 when packing stops at the first
passage that overflows without cutting it.

The budget counts the passages' text only, not the numbered headers and fences the answer
prompt wraps around each one (about 60 characters a passage)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from core.index import SearchHit

# 1,000/200-character splitters give about this much in their top 5; more costs answer time
# on CPU-bound models and dilutes what the model reads (issue 17).
DEFAULT_CONTEXT_CHARS = 4000

# A head this short holds a fragment or two: it tells the answerer little and costs a
# source number (0.841 against 0.842 with no minimum, in the measurement above).
MIN_CUT = 200

# Where a cut may fall: after a sentence's end mark, or at a line break (table rows and list
# items are lines).
_BOUNDARY = re.compile(r"(?<=[.!?])\s|\n")


def passage_chars(hits: Sequence[SearchHit]) -> int:
    """Characters of the passages' text, the quantity a budget bounds."""
    return sum(len(hit.chunk.text) for hit in hits)


def pack(hits: Sequence[SearchHit], budget: int | None) -> list[SearchHit]:
    """The passages an answerer reads within `budget` characters (None: all of them), in
    rank order; see the module docstring for the rule."""
    if budget is None:
        return list(hits)
    if budget < 1:
        raise ValueError(f"a context budget must be at least one character, not {budget}")
    packed: list[SearchHit] = []
    room = budget
    for hit in hits:
        size = len(hit.chunk.text)
        if size <= room:
            packed.append(hit)
            room -= size
            continue
        head = truncate(hit.chunk.text, room)
        if not packed or len(head) >= MIN_CUT:
            packed.append(replace(hit, chunk=replace(hit.chunk, text=head)))
        break
    return packed


def truncate(text: str, limit: int) -> str:
    """`text` if it fits in `limit` characters, else its longest head that ends at a sentence
    end or line break, else at a word boundary, else exactly `limit` characters."""
    if len(text) <= limit:
        return text
    # One character more, so a boundary just after the limit still ends a head that fits.
    window = text[: limit + 1]
    ends = [m.start() for m in _BOUNDARY.finditer(window) if m.start() > 0]
    cut = ends[-1] if ends else max((m.start() for m in re.finditer(r"\s", window)), default=0)
    head = text[:cut].rstrip() if cut > 0 else ""
    return head or text[:limit]
