"""The language-model layer's contract: the chat model every role uses, and the one typed error
for every failure. The Ollama client behind it (`core.llm.ollama_chat`) is imported only where
a model is configured: llama-index takes seconds to import, and the embedded default runs
without a model."""

from __future__ import annotations

from typing import Protocol


class LlmUnavailableError(RuntimeError):
    """The model did not answer (timeout, connection refused, server error)."""


class LlmTimeoutError(LlmUnavailableError):
    """The model did not answer in time."""


class ChatModel(Protocol):
    name: str

    async def complete(self, system: str, user: str) -> str:
        """The model's reply to one system + user exchange."""
