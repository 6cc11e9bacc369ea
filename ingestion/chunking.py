"""Structure-aware chunking: one chunk per slide or page when it fits, per heading section for
documents without pages, and a page's sections are chunks of their own: every chunk is named
by the heading above it. Large tables split by rows with the header repeated; list items,
sentences and formulas (`$…$`, `$$…$$`, `\\(…\\)`, `\\[…\\]`) are never cut, unless one alone
is longer than a chunk. Every chunk fits the embedder's input with its context header."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, replace
from itertools import groupby, pairwise

from core.content_kind import ContentKind, classify_document
from core.plain_math import formula_spans
from core.replies import SECTION_SEPARATOR
from core.text import split_outside_math, split_sentences
from ingestion.documents import Block, BlockKind, LoadedDocument

TokenCounter = Callable[[str], int]

_SPACES = re.compile(r"\s+")

# [CLS] and [SEP], plus slack for the few tokens joining pieces can add.
_RESERVED_TOKENS = 6


@dataclass(frozen=True, slots=True)
class Chunk:
    """`embed_text` (a short context header and the chunk's own text) is what the embedder
    reads; `passage` is what a hit shows to users and the answer model: the chunk with its
    neighbours on the same page or in the same section, so an answer that starts just before
    the matched text or ends just after it is still whole ("small-to-big" retrieval)."""

    text: str
    embed_text: str
    page: int | None
    section: str
    index: int
    passage: str = ""
    # Teaching or course logistics, read with the rest of its document (core.content_kind).
    content_kind: ContentKind = ContentKind.UNKNOWN


@dataclass(frozen=True, slots=True)
class _Piece:
    text: str
    tokens: int
    kind: BlockKind
    section: tuple[str, ...] = ()


def chunk_document(
    document: LoadedDocument, course_id: str, count_tokens: TokenCounter, max_tokens: int
) -> list[Chunk]:
    chunks: list[Chunk] = []
    for page, group in _groups(document.blocks):
        blocks = list(group)
        headers = {
            block.section: _header(course_id, document.title, block.section) for block in blocks
        }
        # one budget for the group, room left for the longest header any chunk of it gets
        budget = max_tokens - _RESERVED_TOKENS - max(map(count_tokens, headers.values()))
        packed = list(_pack(_pieces(blocks, count_tokens, budget), budget))
        texts = [text for text, _ in packed]
        for position, (text, section_path) in enumerate(packed):
            neighbours = texts[max(position - 1, 0) : position + 2]
            chunks.append(
                Chunk(
                    text=text,
                    embed_text=f"{headers[section_path]}\n{text}",
                    page=page,
                    section=section_label(section_path, document.title),
                    index=len(chunks),
                    passage="\n\n".join(neighbours),
                )
            )
    kinds = classify_document([(chunk.text, chunk.section) for chunk in chunks])
    return [replace(chunk, content_kind=kind) for chunk, kind in zip(chunks, kinds, strict=True)]


def _header(course_id: str, title: str, section: tuple[str, ...]) -> str:
    """The context line the embedder reads before a chunk's text."""
    return " · ".join(part for part in (course_id, title, section_label(section, title)) if part)


def _groups(blocks: list[Block]) -> Iterator[tuple[int | None, Iterable[Block]]]:
    """Paged formats group by page, others by heading section."""
    paged = any(block.page is not None for block in blocks)
    if paged:
        yield from groupby(blocks, key=lambda b: b.page)
    else:
        for _, section_blocks in groupby(blocks, key=lambda b: b.section):
            yield None, section_blocks


def section_label(path: tuple[str, ...], title: str) -> str:
    """How a citation names a block's section (chunks and catalog facts alike): the document's
    own title heads every path in most Markdown files and the citation names the file already,
    so the part that says where in it."""
    if path and path[0] == title:
        path = path[1:]
    return SECTION_SEPARATOR.join(path)


def _pieces(blocks: list[Block], count_tokens: TokenCounter, budget: int) -> Iterator[_Piece]:
    """Blocks, with any block over the budget split at the finest boundary that keeps meaning."""
    for block in blocks:
        tokens = count_tokens(block.text)
        if tokens <= budget:
            pieces: Iterable[_Piece] = [_Piece(block.text, tokens, block.kind)]
        elif block.kind is BlockKind.TABLE and block.table is not None:
            pieces = _table_pieces(block, count_tokens, budget)
        else:
            pieces = _sentence_pieces(block.text, block.kind, count_tokens, budget)
        for piece in pieces:
            yield replace(piece, section=block.section)


def _table_pieces(block: Block, count_tokens: TokenCounter, budget: int) -> Iterator[_Piece]:
    assert block.table is not None
    table = block.table
    rows: list[tuple[str, ...]] = []
    for row in table.rows:
        candidate = table.render((*rows, row))
        if rows and count_tokens(candidate) > budget:
            text = table.render(tuple(rows))
            yield _Piece(text, count_tokens(text), BlockKind.TABLE)
            rows = []
        rows.append(row)
    if rows:
        text = table.render(tuple(rows))
        tokens = count_tokens(text)
        if tokens <= budget:
            yield _Piece(text, tokens, BlockKind.TABLE)
        else:  # a single row larger than the budget: keep its sentences whole instead
            yield from _sentence_pieces(text, BlockKind.TABLE, count_tokens, budget)


def _sentence_pieces(
    text: str, kind: BlockKind, count_tokens: TokenCounter, budget: int
) -> Iterator[_Piece]:
    units: list[str] = []
    for sentence in split_sentences(text):
        if count_tokens(sentence) <= budget:
            units.append(sentence)
        else:  # a "sentence" longer than the whole budget: lines, then words
            units.extend(_hard_split(sentence, count_tokens, budget))
    current: list[str] = []
    for unit in units:
        candidate = " ".join([*current, unit])
        if current and count_tokens(candidate) > budget:
            joined = " ".join(current)
            yield _Piece(joined, count_tokens(joined), kind)
            current = []
        current.append(unit)
    if current:
        joined = " ".join(current)
        yield _Piece(joined, count_tokens(joined), kind)


def _hard_split(text: str, count_tokens: TokenCounter, budget: int) -> Iterator[str]:
    """Words, a formula (in math marks or in plain text) counting as one word: only a
    formula longer than the whole budget is cut, at its own spaces."""
    words: list[str] = []
    for word in split_outside_math(_SPACES, text, formula_spans(text)):
        if not word:
            continue
        if " " in word and count_tokens(word) > budget:
            words.extend(word.split())
        else:
            words.append(word)
    current: list[str] = []
    for word in words:
        if current and count_tokens(" ".join([*current, word])) > budget:
            yield " ".join(current)
            current = []
        current.append(word)
    if current:
        yield " ".join(current)


def _pack(pieces: Iterable[_Piece], budget: int) -> Iterator[tuple[str, tuple[str, ...]]]:
    """Greedy packing of whole pieces into chunks of at most `budget` tokens, each with its
    section: a heading starts a new chunk, so a chunk's label is the heading above every
    line of it (on syllabusqa-dev, 0.899 span_hit@5 and 0.658 answer_span_hit against 0.889
    and 0.650 when a page's sections shared chunks)."""
    current: list[_Piece] = []
    used = 0
    for piece in pieces:
        if current and (used + piece.tokens > budget or piece.section != current[-1].section):
            yield _join(current), current[0].section
            current, used = [], 0
        current.append(piece)
        used += piece.tokens
    if current:
        yield _join(current), current[0].section


def _join(pieces: list[_Piece]) -> str:
    parts = [pieces[0].text]
    for previous, piece in pairwise(pieces):
        list_run = previous.kind is BlockKind.LIST_ITEM and piece.kind is BlockKind.LIST_ITEM
        parts.append(("\n" if list_run else "\n\n") + piece.text)
    return "".join(parts)
