"""The reply ledger: a message is processed once, a redelivery gets the stored reply, and a
failure releases the claim so a redelivery is processed anew. On both session stores."""

from __future__ import annotations

import uuid

from core.ledger import ReplyLedger, dump_response, load_response
from core.material import FileResult, FileStatus, IngestReport
from core.replies import (
    Answer,
    Citation,
    DocumentReply,
    IngestSummary,
    Notice,
    SourceEntry,
    SourceList,
    StepPrompt,
)
from core.requests import Response
from core.sessions import SessionStore


def _ledger(store: SessionStore) -> ReplyLedger:
    return ReplyLedger(store, f"test-ledger-{uuid.uuid4().hex[:8]}")


async def test_a_replay_gets_the_stored_reply(session_store: SessionStore) -> None:
    ledger = _ledger(session_store)
    response = Response.of(Notice("graded once"), private=True)
    assert await ledger.claim("m-1") is None
    await ledger.finish("m-1", response)
    assert await ledger.claim("m-1") == response


async def test_a_claim_left_pending_is_taken_over(session_store: SessionStore) -> None:
    ledger = _ledger(session_store)
    assert await ledger.claim("m-2") is None  # and never finished nor released
    assert await ledger.claim("m-2") is None
    response = Response.of(Notice("done"))
    await ledger.finish("m-2", response)
    assert await ledger.claim("m-2") == response


async def test_a_released_claim_is_processed_again(session_store: SessionStore) -> None:
    ledger = _ledger(session_store)
    assert await ledger.claim("m-3") is None
    await ledger.release("m-3")
    assert await ledger.claim("m-3") is None


def test_every_reply_type_survives_the_round_trip() -> None:
    response = Response(
        (
            Answer("It is [1].", (Citation("a.pdf", 3, "Intro", "d1", True),), support=0.7),
            Notice("text", title="title"),
            SourceList("c", (SourceEntry("d1", "a.pdf", "slides", 4, False),)),
            DocumentReply("chart.png", b"\x89PNG\x00\xff", "image/png", "caption"),
            StepPrompt("Ex", 1, 3, "What is 2+2?", "✓ yes"),
            IngestSummary(IngestReport([FileResult("a.pdf", FileStatus.ADDED, 3, 2)])),
        ),
        private=True,
    )
    assert load_response(dump_response(response)) == response
