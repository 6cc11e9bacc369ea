"""A fast stand-in embedder for tests that exercise the pipeline over many files, where the
vectors' meaning does not matter. Tests about retrieval use the real bundled model."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from support.fake_ollama import hashed_vector

from core.embedding.token_counter import TokenCounter


class HashEmbedder:
    name = "hash"
    identity = "hash"
    dimensions = 32
    max_tokens = 256

    def __init__(self) -> None:
        self._counter = TokenCounter()
        self.calls = 0

    def count_tokens(self, text: str) -> int:
        return self._counter(text)

    async def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.calls += 1
        return np.asarray([hashed_vector(t, self.dimensions) for t in texts], dtype=np.float32)
