"""Each inbound message is processed once, and a redelivery gets the same reply again.

A message's id is claimed (a short-lived "pending" record) before it is processed; the reply
is stored with the claim when processing ends, so a platform's retry or a second replica
gets that reply instead of a second effect or silence. When processing fails, the claim is
released and a redelivery is processed afresh."""

from __future__ import annotations

import base64
import json
from typing import Any

import structlog
from pydantic import TypeAdapter

from core.replies import REPLY_TYPES, DocumentReply, Notice, Reply
from core.requests import Response
from core.sessions import SessionStore, session_key

log = structlog.get_logger(__name__)

PENDING = "pending"
# Long enough for the slowest request (an ingestion); a crashed claim frees itself then.
PENDING_TTL_S = 900
# Telegram keeps undelivered updates for a day; Discord retries within seconds.
OUTCOME_TTL_S = 86400
STILL_WORKING = "I'm still working on that message; the answer follows shortly."

_BY_NAME = {cls.__name__: cls for cls in REPLY_TYPES}
# Built once: making an adapter costs milliseconds, using one microseconds.
_ADAPTERS: dict[type, TypeAdapter[Any]] = {cls: TypeAdapter(cls) for cls in REPLY_TYPES}


def dump_response(response: Response) -> str:
    items = []
    for reply in response.replies:
        data: dict[str, Any] = _ADAPTERS[type(reply)].dump_python(reply, mode="python")
        if isinstance(reply, DocumentReply):
            data["content"] = base64.b64encode(reply.content).decode()
        items.append({"type": type(reply).__name__, "data": data})
    return json.dumps({"private": response.private, "replies": items}, default=str)


def load_response(text: str) -> Response:
    stored = json.loads(text)
    replies: list[Reply] = []
    for item in stored["replies"]:
        cls = _BY_NAME[item["type"]]
        data = item["data"]
        if cls is DocumentReply:
            data["content"] = base64.b64decode(data["content"])
        replies.append(_ADAPTERS[cls].validate_python(data))
    return Response(tuple(replies), bool(stored["private"]))


class ReplyLedger:
    def __init__(self, store: SessionStore, prefix: str) -> None:
        self._store = store
        self._prefix = prefix

    async def claim(self, message_id: str) -> Response | None:
        """None when the message is new (now claimed); else the reply it already got."""
        key = self._key(message_id)
        if await self._store.compare_and_set(key, PENDING, 0, PENDING_TTL_S):
            return None
        stored = await self._store.get(key)
        if stored is None:  # expired between the two calls: claim it again
            return await self.claim(message_id)
        log.info("replayed message", message=message_id)
        if stored.value == PENDING:
            return Response.of(Notice(STILL_WORKING), private=True)
        return load_response(stored.value)

    async def finish(self, message_id: str, response: Response) -> None:
        key = self._key(message_id)
        await self._store.compare_and_set(key, dump_response(response), 1, OUTCOME_TTL_S)

    async def release(self, message_id: str) -> None:
        await self._store.delete(self._key(message_id))

    def _key(self, message_id: str) -> str:
        return session_key(self._prefix, "message", message_id)
