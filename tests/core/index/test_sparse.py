"""The sparse (BM25) encoder: stems are cached, and the cache never changes a vector."""

import snowballstemmer

from core.index import sparse
from core.index.sparse import SparseEncoder

TEXT = "Students running experiments ran the experiment; grading runs weekly."


def test_cached_stems_are_the_stemmers_stems():
    encoder = SparseEncoder()
    words = ["students", "running", "experiments", "ran", "experiment", "grading", "runs", "weekly"]
    expected = snowballstemmer.stemmer("english").stemWords(words)
    first = encoder.terms(TEXT)
    assert first == expected  # TEXT has no stop words
    assert encoder.terms(TEXT) == first  # now from the cache


def test_a_full_cache_is_cleared_and_gives_the_same_vectors(monkeypatch):
    monkeypatch.setattr(sparse, "STEM_CACHE_SIZE", 3)
    encoder = SparseEncoder()
    fresh = SparseEncoder().encode_document(TEXT)
    for _ in range(3):
        assert encoder.encode_document(TEXT) == fresh
        encoder.encode_document("other words entirely, many of them")
