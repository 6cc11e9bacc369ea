"""Fixtures for generated material: the fake Ollama server with the real client pointed at
it, and a migrated database per backend (SQLite and PostgreSQL) for the store."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import pytest
from sqlalchemy import delete
from support.databases import BACKENDS, migrated_database
from support.fake_ollama import FakeOllama, running_fake_ollama

from core.database import create_engine
from core.generation import GenerationStats, MaterialStore
from core.generation.models import GeneratedMaterialRow
from core.generation.ollama_model import OllamaStructuredModel


@pytest.fixture(scope="module")
def _fake_server() -> Iterator[FakeOllama]:
    # One server per module: stopping one waits out its half-second poll.
    with running_fake_ollama() as fake:
        yield fake


@pytest.fixture
def fake_ollama(_fake_server: FakeOllama) -> FakeOllama:
    """The module's fake Ollama, reset to its defaults for this test."""
    defaults = FakeOllama()
    _fake_server.chat_reply = defaults.chat_reply
    _fake_server.generate_reply = defaults.generate_reply
    _fake_server.delay_s = 0.0
    _fake_server.requests.clear()
    return _fake_server


@pytest.fixture
def model(fake_ollama: FakeOllama) -> OllamaStructuredModel:
    return OllamaStructuredModel(
        host=fake_ollama.url, model="llama3.1:8b", timeout_s=5, context_window=8192
    )


@pytest.fixture
def stats() -> GenerationStats:
    return GenerationStats()


@pytest.fixture(scope="session", params=BACKENDS)
def migrated_url(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> str:
    """A migrated database per backend, shared by the session's tests."""
    return migrated_database(request, tmp_path_factory.mktemp("generated"), "generated")


@pytest.fixture
async def store(migrated_url: str) -> AsyncIterator[MaterialStore]:
    """A store over the shared migrated database, emptied first."""
    engine = create_engine(migrated_url)
    async with engine.begin() as connection:
        await connection.execute(delete(GeneratedMaterialRow))
    yield MaterialStore(engine)
    await engine.dispose()
