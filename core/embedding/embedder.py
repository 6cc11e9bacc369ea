"""The embedder contract shared by ingestion (documents) and retrieval (queries)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

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


@runtime_checkable
class UnitEmbedder(Embedder, Protocol):
    """An embedder that also gives each text's unit vectors (late chunking,
    `core.embedding.late_chunking`) from the same forward pass. The index stores them where
    the embedder can make them, and retrieval scores a chunk by its best unit."""

    async def embed_with_units(self, texts: Sequence[str]) -> tuple[np.ndarray, list[np.ndarray]]:
        """`embed`'s rows, and per text its unit vectors (units x dimensions, unit length)."""


def writes_units(embedder: Embedder) -> bool:
    return isinstance(embedder, UnitEmbedder)


async def embed_for_index(
    embedder: Embedder, texts: Sequence[str], units: bool
) -> tuple[np.ndarray, list[np.ndarray]]:
    """The texts' vectors and, when the index keeps unit vectors (`units`) and the embedder
    makes them, each text's unit vectors from the same pass (else none): what ingestion and
    reindexing write."""
    if units and isinstance(embedder, UnitEmbedder):
        return await embedder.embed_with_units(texts)
    return await embedder.embed(texts), []
