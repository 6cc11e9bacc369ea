"""The context budget: how many characters of ranked passages an answerer gets to read.

One rule, used by the answer path and by `coursebot eval --budget`. A hit's passage is its
matched chunk with the chunks around it on its page or in its section (small-to-big); under a
budget the packing works on chunks, so no text is read twice:

1. Walk the hits in rank order and keep each matched chunk whole while it fits in what is
   left of the budget; the first one that does not fit is cut at the last sentence end or
   line break that fits (a word boundary if none does; table rows and list items are lines,
   so they stay whole) and packing stops there; a cut head under MIN_CUT characters is left
   out, except for the top hit's, which is always kept.
2. In rank order, what is left grows the kept hits back to their passages: both neighbours
   when they fit, else the head of the chunk after. A neighbour already packed (another
   hit's matched chunk, or grown from one) costs nothing.
3. Chunks that follow each other on one page or in one section are read as one passage, in
   the document's order, cited like the best-ranked hit among them: top hits are often
   neighbours (for 89% of syllabusqa-dev's questions two of the top 5 are), and a fact across
   their boundary is whole only when they are read together. Passages come in the order of
   their best hit.

A hit without a known matched chunk counts its whole passage as matched and is read alone.

Measured on syllabusqa-dev (2,272 questions with gold spans, default variant, top 5, 4,000
characters): span_hit 0.873 at 3,966 characters on average with matched chunks first
(chunk vectors); 0.841 at 3,954 packing whole passages; 0.860 at 3,413 with the matched
chunks alone; top 8 instead of top 5 gains little (0.877); smaller chunks (128 instead of 256
word-pieces) lose (0.849). With unit vectors (late chunking) 0.884-0.885 at 3,968, and with
chunks read once and neighbours joined (2026-12-02) 0.894 (see README). Joining neighbours
across pages too would give 0.898, but a quote from the next page would be cited with the
first one's page.

The budget counts the passages' text (and the blank lines joining chunks), not the numbered
headers and fences the answer prompt wraps around each one (about 60 characters a
passage)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace

from core.index import SearchHit

# 1,000/200-character splitters give about this much in their top 5; more costs answer time
# on CPU-bound models and dilutes what the model reads (issue 17).
DEFAULT_CONTEXT_CHARS = 4000

# A head this short holds a fragment or two: it tells the answerer little and costs a
# source number (0.841 against 0.842 with no minimum, in the measurement above).
MIN_CUT = 200

# Less room than this is not worth a few words of the following text.
MIN_GROWTH = 80

# How chunking joins the chunks of a passage (ingestion/chunking.py), and so how packed
# chunks that follow each other are joined again.
JOIN = "\n\n"

# Where a cut may fall: after a sentence's end mark, or at a line break (table rows and list
# items are lines).
_BOUNDARY = re.compile(r"(?<=[.!?])\s|\n")

# A chunk's place: its document and index there. Chunks follow each other when their
# indexes do and they share a page, or a section where there are no pages (their `_Group`).
_Place = tuple[str, int]
_Group = tuple[str, int | None, str]


def passage_chars(hits: Sequence[SearchHit]) -> int:
    """Characters of the passages' text, the quantity a budget bounds."""
    return sum(len(hit.chunk.text) for hit in hits)


@dataclass(slots=True)
class _Piece:
    text: str
    group: _Group
    # The rank of the hit it was packed for, and whether retrieval matched it (a neighbour
    # was not).
    rank: int
    matched: bool


@dataclass(frozen=True, slots=True)
class _Kept:
    """A hit whose matched chunk was packed whole: its neighbours may follow it."""

    hit: SearchHit
    place: _Place
    before: str
    after: str


class _Packing:
    """Chunks packed so far, each once, and the room left."""

    def __init__(self, budget: int) -> None:
        self.room = budget
        self.pieces: dict[_Place, _Piece] = {}

    def cost(self, place: _Place, group: _Group, text: str) -> int:
        """Its characters, and a JOIN for each packed neighbour it will be read with."""
        document, index = place
        joins = sum(
            1
            for near in ((document, index - 1), (document, index + 1))
            if near in self.pieces and self.pieces[near].group == group
        )
        return len(text) + joins * len(JOIN)

    def add(self, place: _Place, piece: _Piece) -> None:
        self.room -= self.cost(place, piece.group, piece.text)
        self.pieces[place] = piece

    def passages(self, hits: Sequence[SearchHit]) -> list[SearchHit]:
        """The packed chunks as passages: runs of chunks that follow each other, joined,
        cited like their best-ranked hit, best first."""
        runs: list[list[tuple[_Place, _Piece]]] = []
        for place in sorted(self.pieces):
            piece = self.pieces[place]
            if runs:
                (document, index), last = runs[-1][-1]
                if place == (document, index + 1) and piece.group == last.group:
                    runs[-1].append((place, piece))
                    continue
            runs.append([(place, piece)])
        runs.sort(key=lambda run: min(piece.rank for _, piece in run))
        return [_passage(run, hits) for run in runs]


def pack(hits: Sequence[SearchHit], budget: int | None) -> list[SearchHit]:
    """The passages an answerer reads within `budget` characters (None: all of them, whole),
    best first; see the module docstring for the rule."""
    if budget is None:
        return list(hits)
    if budget < 1:
        raise ValueError(f"a context budget must be at least one character, not {budget}")
    packing = _Packing(budget)
    kept: list[_Kept] = []
    for rank, hit in enumerate(hits):
        place, group, (before, matched, after) = _where(hit), _group(hit), _parts(hit)
        if place in packing.pieces:
            continue
        if packing.cost(place, group, matched) <= packing.room:
            packing.add(place, _Piece(matched, group, rank, matched=True))
            kept.append(_Kept(hit, place, before, after))
            continue
        head = truncate(matched, packing.room - (packing.cost(place, group, "")))
        if not packing.pieces or len(head) >= MIN_CUT:
            packing.add(place, _Piece(head, group, rank, matched=True))
        break
    for keep in kept:
        _grow(packing, keep)
    return packing.passages(hits)


def _grow(packing: _Packing, keep: _Kept) -> None:
    """Both neighbours of a kept hit when they fit, else the head of the one after it."""
    document, index = keep.place
    group, rank = _group(keep.hit), packing.pieces[keep.place].rank
    missing = [
        (place, text)
        for place, text in (
            ((document, index - 1), keep.before),
            ((document, index + 1), keep.after),
        )
        if text and place not in packing.pieces
    ]
    if not missing:
        return
    if sum(packing.cost(place, group, text) for place, text in missing) <= packing.room:
        for place, text in missing:
            packing.add(place, _Piece(text, group, rank, matched=False))
        return
    after = (document, index + 1)
    if not keep.after or after not in dict(missing):
        return
    room = packing.room - packing.cost(after, group, "")
    head = truncate(keep.after, room) if room >= MIN_GROWTH else ""
    if head:
        packing.add(after, _Piece(head, group, rank, matched=False))


def _where(hit: SearchHit) -> _Place:
    if not hit.chunk.matched:  # a passage of unknown parts is read alone
        return (f"{hit.chunk.document_id}#{hit.chunk.id}", 0)
    return (hit.chunk.document_id, hit.chunk.chunk_index)


def _group(hit: SearchHit) -> _Group:
    chunk = hit.chunk
    document = chunk.document_id if chunk.matched else f"{chunk.document_id}#{chunk.id}"
    # a page's chunks are read together across the headings on it, as they were when a
    # page's chunks all carried the section it started in
    return (document, chunk.page, chunk.section if chunk.page is None else "")


def _parts(hit: SearchHit) -> tuple[str, str, str]:
    """The passage's text before the matched chunk, the matched chunk, and the text after it;
    the whole passage as matched when its parts are unknown."""
    passage, matched = hit.chunk.text, hit.chunk.matched
    start = passage.find(matched) if matched else -1
    if start < 0:
        return "", passage, ""
    before = passage[:start].removesuffix(JOIN)
    after = passage[start + len(matched) :].removeprefix(JOIN)
    return before, matched, after


def _passage(run: list[tuple[_Place, _Piece]], hits: Sequence[SearchHit]) -> SearchHit:
    """One passage of chunks that follow each other: its best-ranked hit, with their text,
    the matched chunks' texts as matched, and every matched chunk's unit scores."""
    ranks = sorted(piece.rank for _, piece in run if piece.matched)
    best = hits[ranks[0]]
    text = JOIN.join(piece.text for _, piece in run)
    if len(ranks) == 1 and text == best.chunk.text:
        return best
    matched = JOIN.join(piece.text for _, piece in run if piece.matched)
    units = sorted(
        (unit for rank in ranks for unit in hits[rank].unit_scores), key=lambda unit: -unit[1]
    )
    chunk = replace(best.chunk, text=text, matched=matched if best.chunk.matched else "")
    return replace(best, chunk=chunk, unit_scores=tuple(units))


def truncate(text: str, limit: int) -> str:
    """`text` if it fits in `limit` characters, else its longest head that ends at a sentence
    end or line break, else at a word boundary, else exactly `limit` characters."""
    if len(text) <= limit:
        return text
    if limit <= 0:
        return ""
    # One character more, so a boundary just after the limit still ends a head that fits.
    window = text[: limit + 1]
    ends = [m.start() for m in _BOUNDARY.finditer(window) if m.start() > 0]
    cut = ends[-1] if ends else max((m.start() for m in re.finditer(r"\s", window)), default=0)
    head = text[:cut].rstrip() if cut > 0 else ""
    return head or text[:limit]
