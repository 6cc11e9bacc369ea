"""Each inbound message gets one outcome, and a redelivery gets the same reply again.

A message's id is claimed (a "pending" record) before it is processed; the reply is stored
with the claim when processing ends, so a platform's retry or a second replica gets that
reply instead of a second effect or silence. When processing fails, the claim is released
and a redelivery is processed afresh; a claim left pending (the store went away before it
could be released) is taken over by the next delivery."""

from __future__ import annotations

import json

import structlog

from core.reply_codec import dumps, from_data
from core.requests import Response
from core.sessions import SessionStore, session_key

log = structlog.get_logger(__name__)

PENDING = "pending"
PENDING_TTL_S = 900
# Telegram keeps undelivered updates for a day; Discord retries within seconds.
OUTCOME_TTL_S = 86400


def dump_response(response: Response) -> str:
    return dumps(response.replies, private=response.private)


def load_response(text: str) -> Response:
    stored = json.loads(text)
    return Response(tuple(from_data(stored["replies"])), bool(stored["private"]))


class ReplyLedger:
    def __init__(self, store: SessionStore, prefix: str) -> None:
        self._store = store
        self._prefix = prefix

    async def claim(self, message_id: str) -> Response | None:
        """None when the message is new (now claimed); else the reply it already got.
        Callers pass `Request.key` (the sender and the message id), so an id that another
        person's message happened to share never gets that person's reply."""
        key = self._key(message_id)
        if await self._store.compare_and_set(key, PENDING, 0, PENDING_TTL_S):
            return None
        stored = await self._store.get(key)
        if stored is None:  # expired between the two calls: claim it again
            return await self.claim(message_id)
        if stored.value == PENDING:
            # Its first delivery failed without releasing the claim (the store went away),
            # or is still at work: process it. What must not happen twice (an exercise
            # step) guards itself by recording the message it applied.
            log.info("pending message taken over", message=message_id)
            return None
        log.info("replayed message", message=message_id)
        return load_response(stored.value)

    async def finish(self, message_id: str, response: Response) -> None:
        key = self._key(message_id)
        await self._store.compare_and_set(key, dump_response(response), 1, OUTCOME_TTL_S)

    async def release(self, message_id: str) -> None:
        await self._store.delete(self._key(message_id))

    def _key(self, message_id: str) -> str:
        return session_key(self._prefix, "message", message_id)
