"""Keyword vectors for the sparse half of hybrid search.

Terms are tokenised, lower-cased, stripped of stop words and stemmed; a document's weights
are BM25-saturated term frequencies. Qdrant's IDF modifier supplies the other half of BM25,
so the same collection scores like BM25 without a home-made inverted index."""

from __future__ import annotations

import re
import threading
import unicodedata
import zlib
from collections import Counter
from dataclasses import dataclass

import snowballstemmer
from snowballstemmer.basestemmer import BaseStemmer

K1 = 1.2
B = 0.75
# A typical chunk's length in terms; used as BM25's average document length.
AVERAGE_TERMS = 120.0

_WORD = re.compile(r"\w+", re.UNICODE)
_STOP_WORDS = frozenset(
    [
        "a",
        "about",
        "above",
        "after",
        "again",
        "against",
        "all",
        "am",
        "an",
        "and",
        "any",
        "are",
        "as",
        "at",
        "be",
        "because",
        "been",
        "before",
        "being",
        "below",
        "between",
        "both",
        "but",
        "by",
        "can",
        "could",
        "did",
        "do",
        "does",
        "doing",
        "down",
        "during",
        "each",
        "few",
        "for",
        "from",
        "further",
        "had",
        "has",
        "have",
        "having",
        "he",
        "her",
        "here",
        "hers",
        "herself",
        "him",
        "himself",
        "his",
        "how",
        "i",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "itself",
        "just",
        "me",
        "more",
        "most",
        "my",
        "myself",
        "no",
        "nor",
        "not",
        "now",
        "of",
        "off",
        "on",
        "once",
        "only",
        "or",
        "other",
        "our",
        "ours",
        "ourselves",
        "out",
        "over",
        "own",
        "same",
        "she",
        "should",
        "so",
        "some",
        "such",
        "than",
        "that",
        "the",
        "their",
        "theirs",
        "them",
        "themselves",
        "then",
        "there",
        "these",
        "they",
        "this",
        "those",
        "through",
        "to",
        "too",
        "under",
        "until",
        "up",
        "very",
        "was",
        "we",
        "were",
        "what",
        "when",
        "where",
        "which",
        "while",
        "who",
        "whom",
        "why",
        "will",
        "with",
        "would",
        "you",
        "your",
        "yours",
        "yourself",
        "yourselves",
    ]
)


@dataclass(frozen=True, slots=True)
class SparseVector:
    indices: list[int]
    values: list[float]


# Stems remembered per encoder: stemming in pure Python was most of sparse encoding
# (about 1 ms per chunk), and a course repeats a few thousand words. Cleared when full.
STEM_CACHE_SIZE = 200_000


class SparseEncoder:
    """Safe to share between the event loop (queries) and worker threads (ingestion): the
    snowball stemmer keeps state while it stems, so each thread gets its own; the stem cache
    is a plain dict (a word stemmed twice by two threads gives the same stem)."""

    def __init__(self) -> None:
        self._local = threading.local()
        self._stems: dict[str, str] = {}

    def _stemmer(self) -> BaseStemmer:
        stemmer = getattr(self._local, "stemmer", None)
        if stemmer is None:
            stemmer = self._local.stemmer = snowballstemmer.stemmer("english")
        return stemmer

    def terms(self, text: str) -> list[str]:
        words = _WORD.findall(unicodedata.normalize("NFKC", text).lower())
        kept = [w for w in words if w not in _STOP_WORDS and (len(w) > 1 or w.isdigit())]
        # A local copy of what is needed: another thread may clear the shared cache meanwhile.
        found = {word: stem for word in kept if (stem := self._stems.get(word)) is not None}
        missing = [word for word in dict.fromkeys(kept) if word not in found]
        if missing:
            stemmed = dict(zip(missing, self._stemmer().stemWords(missing), strict=True))
            if len(self._stems) > STEM_CACHE_SIZE:
                self._stems.clear()
            self._stems.update(stemmed)
            found.update(stemmed)
        return [found[word] for word in kept]

    def encode_document(self, text: str) -> SparseVector:
        counts = Counter(self.terms(text))
        length = sum(counts.values()) or 1
        norm = K1 * (1 - B + B * length / AVERAGE_TERMS)
        return _vector({term: tf * (K1 + 1) / (tf + norm) for term, tf in counts.items()})

    def encode_query(self, text: str) -> SparseVector:
        return _vector(dict.fromkeys(self.terms(text), 1.0))


def term_id(term: str) -> int:
    """A stable 32-bit id per term (the same across processes and machines)."""
    return zlib.crc32(term.encode("utf-8"))


def _vector(weights: dict[str, float]) -> SparseVector:
    merged: dict[int, float] = {}
    for term, weight in weights.items():
        key = term_id(term)
        merged[key] = max(merged.get(key, 0.0), weight)
    indices = sorted(merged)
    return SparseVector(indices=indices, values=[merged[i] for i in indices])
