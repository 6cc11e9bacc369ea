"""Structure-aware chunking: one chunk per slide or page when it fits, per heading section for
documents without pages; large tables split by rows with the header repeated; list items,
sentences and formulas (`$…$`, `$$…$$`, `\\(…\\)`, `\\[…\\]`) are never cut, unless one alone is
longer than a chunk. Every chunk fits the embedder's input with its context header."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from itertools import groupby, pairwise

from core.plain_math import formula_spans
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


@dataclass(frozen=True, slots=True)
class _Piece:
    text: str
    tokens: int
    kind: BlockKind


def chunk_document(
    document: LoadedDocument, course_id: str, count_tokens: TokenCounter, max_tokens: int
) -> list[Chunk]:
    chunks: list[Chunk] = []
    for (page, section_path), blocks in _groups(document.blocks):
        section = section_label(section_path, document.title)
        header = " · ".join(part for part in (course_id, document.title, section) if part)
        budget = max_tokens - _RESERVED_TOKENS - count_tokens(header)
        texts = list(_pack(_pieces(list(blocks), count_tokens, budget), budget))
        for position, text in enumerate(texts):
            neighbours = texts[max(position - 1, 0) : position + 2]
            chunks.append(
                Chunk(
                    text=text,
                    embed_text=f"{header}\n{text}",
                    page=page,
                    section=section,
                    index=len(chunks),
                    passage="\n\n".join(neighbours),
                )
            )
    return chunks


def _groups(
    blocks: list[Block],
) -> Iterator[tuple[tuple[int | None, tuple[str, ...]], Iterable[Block]]]:
    """Paged formats group by page (the section of the page's first block names the chunk);
    others group by heading section."""
    paged = any(block.page is not None for block in blocks)
    if paged:
        for page, page_blocks in groupby(blocks, key=lambda b: b.page):
            page_list = list(page_blocks)
            yield (page, page_list[0].section), page_list
    else:
        for section, section_blocks in groupby(blocks, key=lambda b: b.section):
            yield (None, section), section_blocks


def section_label(path: tuple[str, ...], title: str) -> str:
    """How a citation names a block's section (chunks and catalog facts alike): the document's
    own title heads every path in most Markdown files and the citation names the file already,
    so the part that says where in it."""
    if path and path[0] == title:
        path = path[1:]
    return " > ".join(path)


def _pieces(blocks: list[Block], count_tokens: TokenCounter, budget: int) -> Iterator[_Piece]:
    """Blocks, with any block over the budget split at the finest boundary that keeps meaning."""
    for block in blocks:
        tokens = count_tokens(block.text)
        if tokens <= budget:
            yield _Piece(block.text, tokens, block.kind)
        elif block.kind is BlockKind.TABLE and block.table is not None:
            yield from _table_pieces(block, count_tokens, budget)
        else:
            yield from _sentence_pieces(block.text, block.kind, count_tokens, budget)


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


def _pack(pieces: Iterable[_Piece], budget: int) -> Iterator[str]:
    """Greedy packing of whole pieces into chunks of at most `budget` tokens."""
    current: list[_Piece] = []
    used = 0
    for piece in pieces:
        if current and used + piece.tokens > budget:
            yield _join(current)
            current, used = [], 0
        current.append(piece)
        used += piece.tokens
    if current:
        yield _join(current)


def _join(pieces: list[_Piece]) -> str:
    parts = [pieces[0].text]
    for previous, piece in pairwise(pieces):
        list_run = previous.kind is BlockKind.LIST_ITEM and piece.kind is BlockKind.LIST_ITEM
        parts.append(("\n" if list_run else "\n\n") + piece.text)
    return "".join(parts)
