"""Embeddings from an Ollama model, when COURSEBOT_OLLAMA_EMBED_MODEL is set."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import ollama

from core.embedding.token_counter import TokenCounter

# Chunks for server-side models may be larger than MiniLM's 256 word-pieces; most Ollama
# embedding models read 512 tokens or more.
OLLAMA_MAX_TOKENS = 512


class OllamaEmbedder:
    max_tokens = OLLAMA_MAX_TOKENS

    def __init__(self, client: ollama.AsyncClient, model: str, dimensions: int) -> None:
        self.client = client
        self.model = model
        self.name = f"ollama:{model}"
        self.identity = self.name
        self.dimensions = dimensions
        self._counter = TokenCounter()

    @classmethod
    async def connect(cls, client: ollama.AsyncClient, model: str) -> OllamaEmbedder:
        """Ask the model once to learn its vector size."""
        probe = await client.embed(model=model, input=["dimension probe"])
        return cls(client, model, len(probe.embeddings[0]))

    def count_tokens(self, text: str) -> int:
        return self._counter(text)

    async def embed(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dimensions), dtype=np.float32)
        response = await self.client.embed(model=self.model, input=list(texts))
        vectors = np.asarray(response.embeddings, dtype=np.float32)
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        return vectors / np.clip(norms, 1e-12, None)
