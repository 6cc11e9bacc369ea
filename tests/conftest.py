"""Shared fixtures: settings in a temporary data dir, the bundled embedder (loaded once),
real Redis under a key prefix of its own, and an in-memory Qdrant index."""

from __future__ import annotations

import os
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
from qdrant_client import AsyncQdrantClient
from redis.asyncio import Redis
from support.databases import PostgresDatabases, postgres_databases_for_session
from support.paths import REDIS_URL, REPO_ROOT, SAMPLE_COURSE, SHARED_DATASETS  # noqa: F401  (re-exported for tests)

from config import Settings
from core.embedding.minilm_onnx import MiniLMOnnxEmbedder
from core.index import ChunkIndex
from core.sessions import MemorySessionStore, RedisSessionStore, SessionStore

# Python 3.11's multiprocessing fork server ignores the sys.path it is handed and imports from
# its working directory (a test's tmp_path) and the installed copy: the grading workers ran
# another checkout's code than the test. It does inherit the environment.
os.environ["PYTHONPATH"] = os.pathsep.join(
    filter(None, [str(REPO_ROOT), os.environ.get("PYTHONPATH")])
)


@pytest.fixture(autouse=True)
def _clean_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No developer's COURSEBOT_* variables or .env leak into a test."""
    for key in list(os.environ):
        if key.startswith("COURSEBOT_"):
            monkeypatch.delenv(key)
    monkeypatch.chdir(tmp_path)


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    return Settings(_env_file=None, data_dir=tmp_path / "data")  # type: ignore[call-arg]


@pytest.fixture(scope="session")
def embedder() -> MiniLMOnnxEmbedder:
    return MiniLMOnnxEmbedder()


@pytest.fixture
def bundled_model(embedder: MiniLMOnnxEmbedder, monkeypatch: pytest.MonkeyPatch) -> None:
    """The bundled embedder, loaded once for the session, in every core a test opens."""
    from bot import composition

    async def loaded(*_args: object) -> MiniLMOnnxEmbedder:
        return embedder

    monkeypatch.setattr(composition, "embedder", loaded)


@pytest.fixture
async def index(embedder: MiniLMOnnxEmbedder) -> AsyncIterator[ChunkIndex]:
    chunk_index = ChunkIndex(
        AsyncQdrantClient(location=":memory:"), "test_chunks", embedder.dimensions, False
    )
    await chunk_index.ensure()
    yield chunk_index
    await chunk_index.close()


@pytest.fixture
def redis_prefix() -> str:
    return f"coursebot-test-{uuid.uuid4().hex[:12]}"


@pytest.fixture
async def redis_client(redis_prefix: str) -> AsyncIterator[Redis]:
    client = Redis.from_url(REDIS_URL, decode_responses=True)
    yield client
    keys = [key async for key in client.scan_iter(f"{redis_prefix}:*")]
    if keys:
        await client.delete(*keys)
    await client.aclose()


@pytest.fixture
def sample_course() -> Iterator[Path]:
    yield SAMPLE_COURSE


@pytest.fixture(scope="session")
def postgres_databases() -> Iterator[PostgresDatabases]:
    yield from postgres_databases_for_session()


@pytest.fixture(params=["memory", "redis"])
async def session_store(
    request: pytest.FixtureRequest, redis_client: Redis
) -> AsyncIterator[SessionStore]:
    """Each session store in turn: in-process, and real Redis (keys under this test's prefix)."""
    yield MemorySessionStore() if request.param == "memory" else RedisSessionStore(redis_client)
