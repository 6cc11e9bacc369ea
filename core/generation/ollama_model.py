"""A `StructuredModel` over Ollama: the chat model of `core.llm` (one client, one retry
and error policy), with the JSON schema sent as the request's `format`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Unpack

from llama_index.core.llms import ChatMessage, MessageRole

from core.generation.structured import Message
from core.llm.ollama_chat import OllamaChatModel, OllamaOptions

_ROLES = {
    "system": MessageRole.SYSTEM,
    "user": MessageRole.USER,
    "assistant": MessageRole.ASSISTANT,
}


class OllamaStructuredModel:
    def __init__(self, *, temperature: float = 0.2, **options: Unpack[OllamaOptions]) -> None:
        self._chat = OllamaChatModel(temperature=temperature, **options)
        self.name = self._chat.name

    async def chat_json(self, messages: Sequence[Message], schema: dict[str, Any]) -> str:
        chat = [ChatMessage(role=_ROLES[m.role], content=m.content) for m in messages]
        # A timeout is an `LlmTimeoutError`, which the structured layer reports as its own.
        return await self._chat.chat(chat, format=schema)
