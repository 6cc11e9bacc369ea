"""Image captions from an Ollama vision model, so figures become searchable text."""

from __future__ import annotations

from typing import Protocol

import ollama

from core.prompts import CAPTION_IMAGE
from ingestion.documents import ImageRef


class ImageCaptioner(Protocol):
    async def caption(self, image: ImageRef) -> str: ...


class OllamaCaptioner:
    def __init__(self, client: ollama.AsyncClient, model: str) -> None:
        self.client = client
        self.model = model

    async def caption(self, image: ImageRef) -> str:
        response = await self.client.chat(
            model=self.model,
            messages=[{"role": "user", "content": CAPTION_IMAGE, "images": [image.data]}],
        )
        return (response.message.content or "").strip()
