"""A chat model over Ollama (llama-index's client), with a timeout, retries on connection
failures, and `core.llm`'s typed errors for every failure."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NotRequired, TypedDict

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

from core.llm import LlmTimeoutError, LlmUnavailableError

log = structlog.get_logger(__name__)


class OllamaOptions(TypedDict):
    """How to reach one Ollama model: what every client over it is built from."""

    host: str
    model: str
    timeout_s: float
    context_window: int
    attempts: NotRequired[int]


class OllamaChatModel:
    def __init__(
        self,
        *,
        host: str,
        model: str,
        timeout_s: float,
        context_window: int,
        attempts: int = 3,
        temperature: float = 0.1,
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

    async def complete(self, system: str, user: str) -> str:
        messages = [
            ChatMessage(role=MessageRole.SYSTEM, content=system),
            ChatMessage(role=MessageRole.USER, content=user),
        ]
        return (await self.chat(messages)).strip()

    async def chat(self, messages: Sequence[ChatMessage], **options: Any) -> str:
        """The reply's text to `messages` (`options` such as a JSON schema `format` go to
        Ollama as they are); every failure is an `LlmUnavailableError`."""
        try:
            # Retry only what a second try can fix: a refused or dropped connection (the
            # ollama client turns httpx's ConnectError into a builtin ConnectionError). A
            # timeout already cost the user the whole wait.
            async for attempt in AsyncRetrying(
                stop=stop_after_attempt(self.attempts),
                wait=wait_exponential(multiplier=0.2, max=2),
                retry=retry_if_exception_type(
                    (httpx.ConnectError, httpx.RemoteProtocolError, ConnectionError)
                ),
                reraise=True,
            ):
                with attempt:
                    response = await self._llm.achat(list(messages), **options)
        except httpx.TimeoutException as error:
            log.warning("llm timed out", model=self.name)
            raise LlmTimeoutError(f"{self.name} did not answer in time") from error
        except (httpx.HTTPError, ollama.ResponseError, ConnectionError) as error:
            log.warning("llm failed", model=self.name, error=str(error))
            raise LlmUnavailableError(f"{self.name} is not reachable") from error
        return response.message.content or ""
