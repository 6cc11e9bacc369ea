"""A `StructuredModel` over Ollama: the chat model of `core.llm` (one client, one retry
and error policy), with the JSON schema sent as the request's `format`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from llama_index.core.llms import ChatMessage, MessageRole

from core.generation.structured import Message
from core.llm.ollama_chat import OllamaChatModel

_ROLES = {
    "system": MessageRole.SYSTEM,
    "user": MessageRole.USER,
    "assistant": MessageRole.ASSISTANT,
}


class OllamaStructuredModel:
    def __init__(
        self,
        *,
        host: str,
        model: str,
        timeout_s: float,
        context_window: int,
        attempts: int = 3,
        temperature: float = 0.2,
    ) -> None:
        self.name = model
        self._chat = OllamaChatModel(
            host=host,
            model=model,
            timeout_s=timeout_s,
            context_window=context_window,
            attempts=attempts,
            temperature=temperature,
        )

    async def chat_json(self, messages: Sequence[Message], schema: dict[str, Any]) -> str:
        chat = [ChatMessage(role=_ROLES[m.role], content=m.content) for m in messages]
        # A timeout is an `LlmTimeoutError`, which the structured layer reports as its own.
        return await self._chat.chat(chat, format=schema)
