"""The embedder contract shared by ingestion (documents) and retrieval (queries)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import numpy as np


class Embedder(Protocol):
    """Turns text into L2-normalised dense vectors."""

    name: str
    # What an index records as the writer of its vectors (the model, and its file if bundled).
    identity: str
    dimensions: int
    max_tokens: int

    async def embed(self, texts: Sequence[str]) -> np.ndarray:
        """One row per text, float32, unit length."""

    def count_tokens(self, text: str) -> int:
        """How many of the model's input tokens `text` takes (text past max_tokens is unseen)."""
