"""Whether a citation's section label names the heading a reader sees above the cited text
(`section_label_accuracy`), as pure functions over loaded passages.

A gold case says which heading stands above a gold span's first line (labelled by reading the
PDF). The passage that holds the span is found with the span-hit rule of `metrics` (80% of the
span's tokens), on the span's page when passages have pages; a span that straddles passages
counts for the one holding its start. A label names the heading when its last or
second-to-last level is the heading, compared without case, spacing, punctuation or
numbering ("Section 10: Grading", "10. Grading" and "GRADING:" all name "Grading")."""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Protocol

from core.evaluation.metrics import SPAN_COVERAGE, span_coverage, tokens
from core.replies import SECTION_SEPARATOR, section_levels

# The levels of a label that may name the heading: its last two.
NAMING_LEVELS = 2
# The span's first tokens, found in order, mark where it starts.
START_TOKENS = 6
# "Section 10:", "Part II.", "10.", "2.3", "IV.", "B)", "4)" before a heading's words.
_NUMBERING = re.compile(
    r"^\s*(?:(?:section|part|chapter|unit|module)\s+)?"
    r"(?:\d+(?:\.\d+)*[.):]?|[ivxlc]+[.):]|[a-z][.)])\s*[:.\-\u2013\u2014]?\s+",
    re.IGNORECASE,
)


class Passage(Protocol):
    """What the measure reads of a loaded passage (a chunk or a block)."""

    @property
    def text(self) -> str: ...

    @property
    def page(self) -> int | None: ...


@dataclass(frozen=True, slots=True)
class SectionLabelCase:
    """One labelled gold span: which question's which span, in which file and on which page
    it starts, and the heading above it (with that heading's own parent, when it has one)."""

    question_id: str
    span_index: int
    file: str
    page: int
    heading: str
    parent: str | None = None


class MissCause(StrEnum):
    """Why a chunk's label does not name the gold heading, told from the loaded blocks'
    sections: where along load -> chunk the heading was lost. Checked in this order."""

    SPAN_NOT_FOUND = "span not found in the chunks"
    CHUNK_LABEL = (
        "span's block has the heading, but its chunk is named after another section"
        " (the one its page or its first block is in)"
    )
    NO_LABEL = "chunk has no section label"
    PARENT_ONLY = "label names the heading's parent, not the heading"
    MERGED = "heading detected joined with other text (a neighbouring line or heading)"
    PARTIAL = "only part of the heading detected (a heading over two lines cut)"
    OTHER_SECTION = "heading detected, but the span's block is in another section"
    NOT_DETECTED = "heading never detected (no block's section names it)"


@dataclass(frozen=True, slots=True)
class SectionLabelResult:
    """The label of the chunk holding the case's span (None: no chunk holds it) and whether it
    names the gold heading; the same for the loaded block holding the span's start (what the
    loader got right before chunking); when the chunk misses, why."""

    case: SectionLabelCase
    label: str | None
    hit: bool
    cause: MissCause | None = None
    block_label: str | None = None
    block_hit: bool = False


def heading_key(text: str) -> str:
    """A heading as compared: NFKC, numbering dropped, then the span-hit normalisation (case
    folded, punctuation and spacing collapsed). A heading that is only numbering keeps it."""
    text = unicodedata.normalize("NFKC", text).strip()
    unnumbered = _NUMBERING.sub("", text, count=1)
    return " ".join(tokens(unnumbered) or tokens(text))


def label_names(label: str, heading: str) -> bool:
    """Whether the label's last or second-to-last level is the heading."""
    wanted = heading_key(heading)
    return bool(wanted) and any(
        heading_key(level) == wanted for level in section_levels(label)[-NAMING_LEVELS:]
    )


def holder(span: str, passages: Sequence[Passage], page: int | None) -> int | None:
    """The index of the passage that holds the span (on `page` when passages have pages): of
    those the span hits, the first where the span starts; if it straddles passages, the first
    holding its start; None when no passage has either."""
    span_tokens = tokens(span)
    if not span_tokens:
        return None
    on_page = [i for i, p in enumerate(passages) if page is None or p.page == page]
    candidates = on_page or list(range(len(passages)))
    bag = Counter(span_tokens)
    start = span_tokens[:START_TOKENS]
    hits = [
        i
        for i in candidates
        if span_coverage(bag, Counter(tokens(passages[i].text))) >= SPAN_COVERAGE
    ]
    starting = [i for i in candidates if _contains(tokens(passages[i].text), start)]
    for index in hits:
        if index in starting:
            return index
    if hits:
        return hits[0]
    return starting[0] if starting else None


def _contains(words: list[str], run: list[str]) -> bool:
    width = len(run)
    return any(words[i : i + width] == run for i in range(len(words) - width + 1))


def judge(
    case: SectionLabelCase,
    span: str,
    chunks: Sequence[Passage],
    chunk_labels: Sequence[str],
    blocks: Sequence[Passage],
    block_labels: Sequence[str],
) -> SectionLabelResult:
    """Score one case against a document's chunks and its blocks; `*_labels` are the section
    labels of the chunks and of the blocks, in the same order."""
    in_block = holder(span, blocks, case.page)
    block_label = None if in_block is None else block_labels[in_block]
    block_hit = block_label is not None and label_names(block_label, case.heading)
    in_chunk = holder(span, chunks, case.page)
    if in_chunk is None:
        return SectionLabelResult(
            case, None, False, MissCause.SPAN_NOT_FOUND, block_label, block_hit
        )
    label = chunk_labels[in_chunk]
    if label_names(label, case.heading):
        return SectionLabelResult(case, label, True, None, block_label, block_hit)
    if block_hit:
        cause = MissCause.CHUNK_LABEL
    else:
        cause = _loader_cause(case, label, block_label or "", block_labels)
    return SectionLabelResult(case, label, False, cause, block_label, block_hit)


def _loader_cause(
    case: SectionLabelCase, label: str, block_label: str, block_labels: Sequence[str]
) -> MissCause:
    """Why neither the chunk nor the span's block names the heading."""
    if not section_levels(label):
        return MissCause.NO_LABEL
    if case.parent and label_names(label, case.parent):
        return MissCause.PARENT_ONLY
    wanted = heading_key(case.heading).split()
    levels = [
        heading_key(level).split() for other in block_labels for level in section_levels(other)
    ]
    if any(len(level) > len(wanted) and _contains(level, wanted) for level in levels):
        return MissCause.MERGED
    near = [
        heading_key(level).split()
        for level in section_levels(f"{label}{SECTION_SEPARATOR}{block_label}")
    ]
    if any(0 < len(level) < len(wanted) and _contains(wanted, level) for level in near):
        return MissCause.PARTIAL
    if any(label_names(other, case.heading) for other in block_labels):
        return MissCause.OTHER_SECTION
    return MissCause.NOT_DETECTED


def block_label_accuracy(results: Sequence[SectionLabelResult]) -> float | None:
    """Share of cases whose span's block (before chunking) has a section naming the gold
    heading: what the loader gets right, apart from how chunks are labelled."""
    if not results:
        return None
    return sum(result.block_hit for result in results) / len(results)


def section_label_accuracy(results: Sequence[SectionLabelResult]) -> float | None:
    """Share of cases whose chunk's label names the gold heading; None without cases."""
    if not results:
        return None
    return sum(result.hit for result in results) / len(results)
