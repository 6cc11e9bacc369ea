"""The study-set service: retrieval in the asker's scope, extractive without a model, the
model's sets with one (and the extractive set when it fails), the fallback labelled, the
cache (a second request touches neither retriever nor model; `fresh` replaces the set; the
audience is part of the key), and one clear line for what cannot be served."""

from __future__ import annotations

import json
import socket
from collections.abc import Callable
from dataclasses import replace

import pytest
from support.fake_ollama import FakeOllama, scripted

from core.content_kind import ContentKind
from core.context import Audience, Context
from core.embedding.minilm_onnx import MiniLMOnnxEmbedder
from core.errors import BadInputError
from core.generation import MaterialStore, Writing
from core.generation.ollama_model import OllamaStructuredModel
from core.index import ChunkRecord, SearchHit
from core.retrieval import Retriever
from core.study import NOT_FROM_MATERIAL, Quiz, StudySets, feeds_mistake_log
from core.study.service import GLOSSARY_HITS


class CountingRetriever:
    def __init__(self, inner: Retriever | None = None, hits: list[SearchHit] | None = None) -> None:
        self.inner, self.hits, self.calls = inner, hits or [], []

    async def retrieve(
        self, ctx: Context, question: str, k: int = 5, content: ContentKind | None = None
    ) -> list[SearchHit]:
        self.calls.append((ctx, question, k))
        if self.inner is not None:
            return await self.inner.retrieve(ctx, question, k, content=content)
        return self.hits[:k]


@pytest.fixture
async def sample_sets(
    sample_retriever: Retriever, store: MaterialStore, embedder: MiniLMOnnxEmbedder
) -> tuple[StudySets, CountingRetriever]:
    counting = CountingRetriever(sample_retriever)
    return StudySets(counting, store, embedder=embedder), counting


@pytest.fixture
def rule_hits(
    chunk: Callable[..., ChunkRecord], hits: Callable[..., list[SearchHit]]
) -> list[SearchHit]:
    return hits(
        chunk(
            "Power rule: (x^n)' = n x^(n-1).", section="The Power Rule", file_name="l2.pdf", page=3
        ),
        chunk(
            "Product rule: (fg)' = f'g + fg'.",
            section="The Product Rule",
            file_name="l2.pdf",
            number=1,
        ),
    )


def quiz_reply(count: int, passage: int) -> str:
    items = [
        {
            "question": f"Question {n} on the rules of derivatives?",
            "options": ["alpha", "bravo", "gamma", "delta"],
            "correct": n % 4,
            "passage": passage,
        }
        for n in range(count)
    ]
    return json.dumps({"items": items})


async def test_a_quiz_without_a_model_is_extractive_and_then_cached(
    sample_sets: tuple[StudySets, CountingRetriever], alice: Context
) -> None:
    sets, retriever = sample_sets
    first = await sets.quiz(alice, "derivatives")
    assert not first.cached and first.value.grounded and first.value.made_by == "extractive"
    assert len(first.value.items) >= 5
    assert retriever.calls == [(alice, "derivatives", GLOSSARY_HITS)]
    again = await sets.quiz(alice, "  Derivatives ")  # the topic as the cache normalises it
    assert again.cached and again.material_id == first.material_id
    assert again.value == first.value
    assert len(retriever.calls) == 1


async def test_fresh_replaces_the_cached_set(
    sample_sets: tuple[StudySets, CountingRetriever], alice: Context, store: MaterialStore
) -> None:
    sets, retriever = sample_sets
    first = await sets.flashcards(alice, "derivatives")
    assert len(first.value.cards) >= 8
    renewed = await sets.flashcards(alice, "derivatives", fresh=True)
    assert not renewed.cached and renewed.material_id != first.material_id
    assert await store.get(first.material_id) is None
    assert len(retriever.calls) == 2
    assert (await sets.flashcards(alice, "derivatives")).material_id == renewed.material_id


async def test_count_and_audience_are_part_of_the_cache_key(
    sample_sets: tuple[StudySets, CountingRetriever], alice: Context
) -> None:
    sets, retriever = sample_sets
    five = await sets.quiz(alice, "derivatives", count=5)
    assert len(five.value.items) == 5 and five.value.reason == ""
    shared = replace(alice, audience=Audience.SHARED)
    assert not (await sets.quiz(shared, "derivatives", count=5)).cached
    assert not (await sets.quiz(alice, "derivatives")).cached
    assert len(retriever.calls) == 3


async def test_a_mind_map_and_its_picture(
    sample_sets: tuple[StudySets, CountingRetriever], alice: Context
) -> None:
    sets, _ = sample_sets
    served = await sets.mindmap(alice, "derivatives")
    labels = [node.label for node in served.value.root.children]
    assert "lecture-02-derivatives.pdf" in labels
    png = await sets.mindmap_png(served.value)
    assert png.startswith(b"\x89PNG\r\n\x1a\n")


async def test_a_topic_the_material_does_not_cover_is_refused_without_a_model(
    sample_sets: tuple[StudySets, CountingRetriever], alice: Context
) -> None:
    sets, _ = sample_sets
    with pytest.raises(BadInputError) as refused:
        await sets.quiz(alice, "photosynthesis")
    message = str(refused.value)
    assert "\n" not in message
    assert message == (
        "The course material has nothing on 'photosynthesis', and without a language model "
        "I cannot write a quiz from outside it."
    )


@pytest.mark.parametrize("topic", ["", "   "])
async def test_an_empty_topic_is_refused_in_one_line(
    store: MaterialStore, alice: Context, topic: str
) -> None:
    retriever = CountingRetriever()
    with pytest.raises(BadInputError, match="Which topic"):
        await StudySets(retriever, store).flashcards(alice, topic)
    assert retriever.calls == []


async def test_the_model_writes_the_set_from_the_passages_and_is_cached(
    store: MaterialStore,
    alice: Context,
    model: OllamaStructuredModel,
    fake_ollama: FakeOllama,
    rule_hits: list[SearchHit],
) -> None:
    fake_ollama.chat_reply = scripted(quiz_reply(4, passage=1))
    sets = StudySets(CountingRetriever(hits=rule_hits), store, writing=Writing(model))
    served = await sets.quiz(alice, "rule", count=4)
    assert served.value.made_by == "llama3.1:8b" and served.value.grounded
    assert all(item.source is not None for item in served.value.items)
    assert feeds_mistake_log(served.value)
    again = await sets.quiz(alice, "rule", count=4)
    assert again.cached
    assert len(fake_ollama.requests_to("/api/chat")) == 1


async def test_without_material_the_model_writes_a_labelled_fallback(
    store: MaterialStore, alice: Context, model: OllamaStructuredModel, fake_ollama: FakeOllama
) -> None:
    fake_ollama.chat_reply = scripted(quiz_reply(4, passage=0))
    sets = StudySets(CountingRetriever(hits=[]), store, writing=Writing(model))
    served = await sets.quiz(alice, "photosynthesis", count=4)
    assert not served.value.grounded and NOT_FROM_MATERIAL in served.value.reason
    assert not feeds_mistake_log(served.value)
    material = await store.get(served.material_id)
    assert material is not None and material.grounded is False


async def test_when_the_model_is_down_the_material_is_used_directly(
    store: MaterialStore,
    alice: Context,
    rule_hits: list[SearchHit],
    chunk: Callable[..., ChunkRecord],
) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    down = OllamaStructuredModel(
        host=f"http://127.0.0.1:{port}",
        model="llama3.1:8b",
        timeout_s=2,
        context_window=8192,
        attempts=1,
    )
    sets = StudySets(CountingRetriever(hits=rule_hits), store, writing=Writing(down))
    served = await sets.flashcards(alice, "rule")
    assert served.value.made_by == "extractive"
    assert served.value.reason.startswith("the language model could not write this set")
    assert {card.front for card in served.value.cards} == {"Power rule", "Product rule"}


async def test_a_stored_quiz_is_found_again_by_id_within_its_course(
    sample_sets: tuple[StudySets, CountingRetriever], alice: Context
) -> None:
    sets, _ = sample_sets
    in_group = replace(alice, audience=Audience.SHARED)
    served = await sets.quiz(in_group, "derivatives")
    bob = replace(in_group, user_id="bob")
    loaded = await sets.load(bob, served.material_id)
    assert isinstance(loaded, Quiz) and loaded == served.value
    # One made in her direct messages is hers: the model may have read her notes there.
    in_dm = await sets.quiz(alice, "derivatives")
    assert await sets.load(bob, in_dm.material_id) is None
    assert await sets.load(alice, in_dm.material_id) == in_dm.value
    assert await sets.load(replace(alice, course_id="other"), served.material_id) is None
    assert await sets.load(alice, served.material_id + 1000) is None


async def test_a_set_from_private_notes_is_its_owners_alone(
    store: MaterialStore,
    alice: Context,
    chunk: Callable[..., ChunkRecord],
    hits: Callable[..., list[SearchHit]],
) -> None:
    notes = hits(
        chunk(
            "Power rule: (x^n)' = n x^(n-1).",
            section="Rules",
            file_name="mine.md",
            owner_id="alice",
        ),
        chunk(
            "Product rule: (fg)' = f'g + fg'.",
            section="Rules",
            file_name="mine.md",
            number=1,
            owner_id="alice",
        ),
    )
    sets = StudySets(CountingRetriever(hits=notes), store)
    served = await sets.flashcards(alice, "rule")
    assert await sets.load(alice, served.material_id) is not None
    assert await sets.load(replace(alice, user_id="bob"), served.material_id) is None
