"""The context budget: how many characters of ranked passages an answerer gets to read.

One rule, used by the answer path and by `coursebot eval --budget`. A hit's passage is its
matched chunk with the chunks around it (small-to-big); under a budget the matched chunks
come first. Walk the hits in rank order and keep each matched chunk whole while it fits in
what is left of the budget; the first one that does not fit is cut at the last sentence end
or line break that fits (a word boundary if none does; table rows and list items are lines,
so they stay whole) and packing stops there; a cut head under MIN_CUT characters is left out,
except for the top hit's, which is always kept. Then, in rank order, what is left of the
budget grows the kept hits back to their passages: a whole passage when it fits, else the
matched chunk and the head of the text after it. A hit without a known matched chunk counts
its whole passage as matched.

Measured on syllabusqa-dev (2,272 questions with gold spans, dbsf, top 5, 4,000 characters):
span_hit 0.873 at 3,966 characters on average with this rule; 0.841 at 3,954 packing whole
passages (no matched chunks first); 0.860 at 3,413 with the matched chunks alone. Top 8
instead of top 5 gains little (0.877); smaller chunks (128 instead of 256 word-pieces, same
rule) lose (0.849). Those are with chunk vectors; with unit vectors searched (late chunking,
core/embedding/late_chunking.py) the same rule gives 0.884 at 3,968.

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

# Less room than this is not worth a few words of the following text.
MIN_GROWTH = 80

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
    kept: list[tuple[SearchHit, str]] = []
    room = budget
    for hit in hits:
        matched = hit.chunk.matched or hit.chunk.text
        if len(matched) <= room:
            kept.append((hit, matched))
            room -= len(matched)
            continue
        head = truncate(matched, room)
        if not kept or len(head) >= MIN_CUT:
            kept.append((hit, head))
            room -= len(head)
        break
    packed = []
    for hit, text in kept:
        grown = _grow(hit.chunk.text, text, room) if text == hit.chunk.matched else text
        room -= len(grown) - len(text)
        packed.append(hit if grown == hit.chunk.text else _with_text(hit, grown))
    return packed


def _grow(passage: str, matched: str, room: int) -> str:
    """The matched text grown back towards its passage within `room` more characters: the
    whole passage when it fits, else the matched text and the head of what follows it."""
    if len(passage) - len(matched) <= room:
        return passage
    after = passage[passage.find(matched) + len(matched) :]
    body = after.lstrip("\n")
    gap = after[: len(after) - len(body)]
    if room - len(gap) < MIN_GROWTH:
        return matched
    head = truncate(body, room - len(gap))
    return matched + gap + head if head else matched


def _with_text(hit: SearchHit, text: str) -> SearchHit:
    return replace(hit, chunk=replace(hit.chunk, text=text))


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
