"""A `StructuredModel` over Ollama (llama-index's client, like `core.llm`): the JSON schema
goes as the chat request's `format`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import httpx
import ollama
import structlog
from llama_index.core.llms import ChatMessage, MessageRole
from llama_index.llms.ollama import Ollama
from tenacity import (
    AsyncRetrying,
    retry_if_exception_type,
    stop_after_attempt,
    wait_exponential,
)

from core.generation.structured import GenerationTimeoutError, Message
from core.llm import LlmUnavailableError

log = structlog.get_logger(__name__)

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
        self.attempts = attempts
        # context_window set explicitly: otherwise llama-index asks the server with a
        # blocking show() call.
        self._llm = Ollama(
            model=model,
            base_url=host,
            request_timeout=timeout_s,
            context_window=context_window,
            temperature=temperature,
        )

    async def chat_json(self, messages: Sequence[Message], schema: dict[str, Any]) -> str:
        chat = [ChatMessage(role=_ROLES[m.role], content=m.content) for m in messages]
        try:
            # Only a refused or dropped connection is retried here (the ollama client turns
            # httpx's ConnectError into ConnectionError); a timeout already cost the whole
            # wait, and an invalid reply is the structured layer's to re-ask.
            async for attempt in AsyncRetrying(
                stop=stop_after_attempt(self.attempts),
                wait=wait_exponential(multiplier=0.2, max=2),
                retry=retry_if_exception_type(
                    (httpx.ConnectError, httpx.RemoteProtocolError, ConnectionError)
                ),
                reraise=True,
            ):
                with attempt:
                    response = await self._llm.achat(chat, format=schema)
        except httpx.TimeoutException as error:
            log.warning("llm timed out", model=self.name)
            raise GenerationTimeoutError(f"{self.name} did not answer in time") from error
        except (httpx.HTTPError, ollama.ResponseError, ConnectionError) as error:
            log.warning("llm failed", model=self.name, error=str(error))
            raise LlmUnavailableError(f"{self.name} is not reachable") from error
        return response.message.content or ""
