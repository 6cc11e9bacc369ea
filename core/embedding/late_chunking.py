"""Late chunking: one vector per unit of a chunk (a sentence, a list item, a block), pooled
from the token states of the chunk's own forward pass, so each unit's vector is read in the
context of the whole chunk and costs no model call of its own.

Retrieval scores a chunk by its best unit against the question (Qdrant's MaxSim over a
multivector): a chunk that holds the fact in one sentence among many unrelated ones is not
averaged away. Measured on syllabusqa-dev (2,272 questions with gold spans, 4,000-character
budget, the 20 best fused candidates reordered offline): the best unit alone ranks them to
span_hit 0.863 where the pooled chunk vector gives 0.809; fused with the sparse scores
(DBSF), 0.891 against 0.871 for the pooled vector fused the same way."""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

# A unit ends after a sentence's end mark, at a blank line (a block), before a list item's
# bullet or number and before a table row (a line starting with "|"), so a row is scored on
# its own. A PDF paragraph's wrapped lines stay in one unit. (Not splitting after a list
# number's "1." made no difference: 0.882 against 0.884.)
_UNIT_END = re.compile(
    r"(?<=[.!?])\s+|\n[ \t]*\n\s*|\n(?=[ \t]*(?:[•●○◦▪■*–—-]|\d{1,2}[.)])\s|[ \t]*\|)"
)
# More units than this in one chunk are folded into the last one (a chunk is 256 word-pieces,
# so this is only reached by runs of one-word lines).
MAX_UNITS = 32


def unit_spans(text: str) -> list[tuple[int, int]]:
    """The character ranges of the text's units, in order; blank ones left out."""
    spans: list[tuple[int, int]] = []
    start = 0
    for end in _UNIT_END.finditer(text):
        if text[start : end.start()].strip():
            spans.append((start, end.start()))
        start = end.end()
    if text[start:].strip():
        spans.append((start, len(text)))
    if len(spans) > MAX_UNITS:
        spans = [*spans[: MAX_UNITS - 1], (spans[MAX_UNITS - 1][0], spans[-1][1])]
    return spans


def pool_units(
    hidden: np.ndarray, offsets: Sequence[tuple[int, int]], spans: Sequence[tuple[int, int]]
) -> np.ndarray:
    """Unit-length vectors for the first spans, one each, from one text's token states
    (`hidden`: tokens x dimensions; `offsets`: each token's character range, special tokens
    (0, 0)). They stop at the first span without tokens (past the model's truncation, or one
    the tokenizer drops whole), so the vectors are always those of the first len(vectors)
    spans: a reader pairs them with `unit_spans` of the same text. A text with no unit gets
    the mean of all its tokens."""
    starts = np.array([start for start, _ in offsets])
    ends = np.array([end for _, end in offsets])
    real = ends > starts
    vectors = []
    for low, high in spans:
        inside = real & (starts >= low) & (ends <= high)
        if not inside.any():
            break
        vectors.append(hidden[inside].mean(axis=0))
    if not vectors:
        vectors.append(hidden.mean(axis=0))
    units = np.array(vectors, dtype=np.float32)
    return units / np.clip(np.linalg.norm(units, axis=1, keepdims=True), 1e-12, None)
