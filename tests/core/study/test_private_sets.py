"""A study set the model wrote in a student's private audience, from passages that include her
notes, is hers alone whatever the model cites: a classmate's /card SET N (ids are sequential)
gets nothing."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest
from support.fake_ollama import FakeOllama, scripted

from core.content_kind import ContentKind
from core.context import Audience, Context
from core.errors import BadInputError
from core.generation import MaterialStore, Writing
from core.generation.ollama_model import OllamaStructuredModel
from core.index import ChunkRecord, SearchHit
from core.replies import FlashcardTurn
from core.sessions import MemorySessionStore
from core.study import StudySets
from core.study.desk import StudyDesk

SECRET = (
    "Alice's locker combination is 4417 and she meets Dr. Ng on Tuesdays about her grade appeal"
)


class FixedRetriever:
    def __init__(self, hits: list[SearchHit]) -> None:
        self.hits = hits

    async def retrieve(
        self, ctx: Context, question: str, k: int = 5, content: ContentKind | None = None
    ) -> list[SearchHit]:
        # The real retriever: her notes only in her private audience.
        return [
            h
            for h in self.hits
            if not h.chunk.private or (ctx.private_audience and h.chunk.owner_id == ctx.user_id)
        ][:k]


async def test_a_set_made_where_the_model_read_her_notes_is_hers_whatever_it_cites(
    chunk: Callable[..., ChunkRecord],
    hits: Callable[..., list[SearchHit]],
    store: MaterialStore,
    model: OllamaStructuredModel,
    fake_ollama: FakeOllama,
) -> None:
    public = chunk("Power rule: (x^n)' = n x^(n-1).", section="Power rule", file_name="l2.pdf")
    private = chunk(
        # Her notes teach (study sets on a subject read teaching material only).
        "Power rule practice: the derivative of x^5 is 5x^4, since d/dx x^n = n x^(n-1). "
        f"{SECRET}.",
        file_name="alice-notes.md",
        number=1,
        owner_id="alice",
    )
    assert private.private and not public.private
    # The model mixes the two passages and cites the first: it is the model's citation,
    # not what it was shown, that decides whether the set is private.
    cards = [
        {
            "front": f"Card {n}: what does the power rule say about x^{n}?",
            "back": f"{n} x^{n - 1}. Note: {SECRET}.",
            "passage": 1,
        }
        for n in range(2, 12)
    ]
    fake_ollama.chat_reply = scripted(json.dumps({"cards": cards}))
    sets = StudySets(FixedRetriever(hits(public, private)), store, writing=Writing(model))
    alice = Context(platform="t", course_id="sample", user_id="alice", audience=Audience.PRIVATE)
    served = await sets.flashcards(alice, "power rule")
    assert not served.cached and served.value.cards
    # (her own DM: the model was indeed shown her notes)
    shown = json.dumps(fake_ollama.requests[-1])
    assert "4417" in shown

    # Bob, another student of the course, anywhere (a group even), presses or forges /card.
    desk = _desk(sets)
    bob = Context(platform="t", course_id="sample", user_id="bob", audience=Audience.SHARED)
    with pytest.raises(BadInputError, match="not available to you"):
        await desk.card(bob, served.material_id, 1, back=True)
    # Alice herself still reads it.
    [turn] = await desk.card(alice, served.material_id, 1, back=True)
    assert isinstance(turn, FlashcardTurn) and "4417" in (turn.back or "")


async def test_her_own_private_set_is_not_opened_where_others_read(
    chunk: Callable[..., ChunkRecord],
    hits: Callable[..., list[SearchHit]],
    store: MaterialStore,
    model: OllamaStructuredModel,
    fake_ollama: FakeOllama,
) -> None:
    public = chunk("Power rule: (x^n)' = n x^(n-1).", section="Power rule", file_name="l2.pdf")
    cards = [
        {"front": f"Card {n}: the power rule for x^{n}?", "back": f"{n} x^{n - 1}.", "passage": 1}
        for n in range(2, 12)
    ]
    fake_ollama.chat_reply = scripted(json.dumps({"cards": cards}))
    sets = StudySets(FixedRetriever(hits(public)), store, writing=Writing(model))
    alice = Context(platform="t", course_id="sample", user_id="alice", audience=Audience.PRIVATE)
    served = await sets.flashcards(alice, "power rule")
    desk = _desk(sets)
    in_group = Context(platform="t", course_id="sample", user_id="alice", audience=Audience.SHARED)
    with pytest.raises(BadInputError, match="direct message"):
        await desk.card(in_group, served.material_id, 1, back=True)


def _desk(sets: StudySets) -> StudyDesk:
    # Only cards are turned here: no quiz is answered, so no outbox is reached.
    return StudyDesk(sets, store=MemorySessionStore(), outbox=None, quiz_answers=None, prefix="x")  # type: ignore[arg-type]
