"""Builds the core from settings: the only place that knows which engines are configured."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import structlog
from qdrant_client import AsyncQdrantClient

from config import Settings
from core.course_bot import CourseBot
from core.embedding.embedder import Embedder
from core.embedding.minilm_onnx import MiniLMOnnxEmbedder
from core.index import ChunkIndex, SparseEncoder
from core.retrieval import Retriever
from core.sessions import MemorySessionStore, RedisSessionStore, SessionStore

log = structlog.get_logger(__name__)


def qdrant_client(settings: Settings) -> AsyncQdrantClient:
    if settings.qdrant_url is not None:
        api_key = settings.qdrant_api_key.get_secret_value() if settings.qdrant_api_key else None
        return AsyncQdrantClient(url=str(settings.qdrant_url), api_key=api_key)
    path = settings.data_dir / "qdrant"
    path.mkdir(parents=True, exist_ok=True)
    return AsyncQdrantClient(path=str(path))


def session_store(settings: Settings) -> SessionStore:
    if settings.redis_url is not None:
        return RedisSessionStore.from_url(str(settings.redis_url))
    log.warning(
        "sessions are kept in this process only and won't survive a restart; "
        "set COURSEBOT_REDIS_URL to keep them"
    )
    return MemorySessionStore()


def embedder(settings: Settings) -> Embedder:
    return MiniLMOnnxEmbedder()


async def open_index(settings: Settings, dimensions: int) -> ChunkIndex:
    index = ChunkIndex(
        qdrant_client(settings),
        settings.qdrant_collection,
        dimensions,
        payload_indexes=settings.qdrant_url is not None,
    )
    await index.ensure()
    return index


@asynccontextmanager
async def open_core(settings: Settings) -> AsyncIterator[CourseBot]:
    """The core wired to the configured engines, closed on exit."""
    dense = embedder(settings)
    index = await open_index(settings, dense.dimensions)
    bot = CourseBot(
        index=index,
        retriever=Retriever(index, dense, SparseEncoder()),
        sessions=session_store(settings),
    )
    try:
        yield bot
    finally:
        await bot.close()
