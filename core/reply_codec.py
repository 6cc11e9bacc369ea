"""Replies as JSON, for what is stored with a message: the reply ledger and the reply an
exercise step gave (so a redelivered answer gets it again instead of a second grading)."""

from __future__ import annotations

import base64
import json
from collections.abc import Sequence
from typing import Any

from pydantic import TypeAdapter

from core.replies import REPLY_TYPES, DocumentReply, Reply

_BY_NAME = {cls.__name__: cls for cls in REPLY_TYPES}
# Built once: making an adapter costs milliseconds, using one microseconds.
_ADAPTERS: dict[type, TypeAdapter[Any]] = {cls: TypeAdapter(cls) for cls in REPLY_TYPES}


def to_data(replies: Sequence[Reply]) -> list[dict[str, Any]]:
    items = []
    for reply in replies:
        data: dict[str, Any] = _ADAPTERS[type(reply)].dump_python(reply, mode="python")
        if isinstance(reply, DocumentReply):
            data["content"] = base64.b64encode(reply.content).decode()
        items.append({"type": type(reply).__name__, "data": data})
    return items


def from_data(items: Sequence[dict[str, Any]]) -> list[Reply]:
    replies: list[Reply] = []
    for item in items:
        cls = _BY_NAME[item["type"]]
        data = dict(item["data"])
        if cls is DocumentReply:
            data["content"] = base64.b64decode(data["content"])
        replies.append(_ADAPTERS[cls].validate_python(data))
    return replies


def dumps(replies: Sequence[Reply], **extra: Any) -> str:
    return json.dumps({**extra, "replies": to_data(replies)}, default=str)
