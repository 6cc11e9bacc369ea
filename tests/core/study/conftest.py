"""Fixtures for study sets: chunks written by hand, the sample course ingested through the
real pipeline, a migrated SQLite material store, and the fake Ollama with the real client."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path

import pytest
from support.fake_ollama import FakeOllama, running_fake_ollama

from core.context import Audience, Context
from core.database import create_engine, migrate
from core.embedding.minilm_onnx import MiniLMOnnxEmbedder
from core.generation import MaterialStore
from core.generation.ollama_model import OllamaStructuredModel
from core.index import ChunkIndex, ChunkRecord, SearchHit, SparseEncoder
from core.retrieval import Retriever
from ingestion import Ingestor, discover

COURSE = "sample"


def make_chunk(
    text: str,
    *,
    section: str = "",
    file_name: str = "notes.md",
    page: int | None = None,
    kind: str = "notes",
    number: int = 0,
    owner_id: str | None = None,
) -> ChunkRecord:
    return ChunkRecord(
        id=f"{file_name}#{number}",
        course_id=COURSE,
        document_id=f"{COURSE}/{file_name}",
        file_name=file_name,
        text=text,
        page=page,
        section=section,
        kind=kind,
        visibility="private" if owner_id else "public",
        owner_id=owner_id,
        chunk_index=number,
    )


ChunkMaker = Callable[..., ChunkRecord]


@pytest.fixture
def chunk() -> ChunkMaker:
    """Makes a chunk record from text (keywords: section, file_name, page, kind, number)."""
    return make_chunk


@pytest.fixture
def hits() -> Callable[..., list[SearchHit]]:
    """Search hits over chunk records, best first."""

    def make(*records: ChunkRecord) -> list[SearchHit]:
        return [SearchHit(record, 1.0 - n / 100) for n, record in enumerate(records)]

    return make


@pytest.fixture
def alice() -> Context:
    return Context(platform="test", course_id=COURSE, user_id="alice", audience=Audience.PRIVATE)


@pytest.fixture
async def sample_retriever(
    index: ChunkIndex, embedder: MiniLMOnnxEmbedder, sample_course: Path
) -> Retriever:
    """The sample course ingested by the real pipeline, behind the real retriever."""
    ingestor = Ingestor(index=index, embedder=embedder, sparse=SparseEncoder(), max_bytes=5 << 20)
    sources, problems = discover([sample_course])
    assert problems == []
    await ingestor.ingest(sources, COURSE)
    return Retriever(index, embedder, SparseEncoder())


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[MaterialStore]:
    url = f"sqlite:///{tmp_path / 'study.db'}"
    await migrate(url)
    engine = create_engine(url)
    yield MaterialStore(engine)
    await engine.dispose()


@pytest.fixture(scope="module")
def _fake_server() -> Iterator[FakeOllama]:
    with running_fake_ollama() as fake:
        yield fake


@pytest.fixture
def fake_ollama(_fake_server: FakeOllama) -> FakeOllama:
    """The module's fake Ollama, reset to its defaults for this test."""
    defaults = FakeOllama()
    _fake_server.chat_reply = defaults.chat_reply
    _fake_server.delay_s = 0.0
    _fake_server.requests.clear()
    return _fake_server


@pytest.fixture
def model(fake_ollama: FakeOllama) -> OllamaStructuredModel:
    return OllamaStructuredModel(
        host=fake_ollama.url, model="llama3.1:8b", timeout_s=5, context_window=8192
    )
