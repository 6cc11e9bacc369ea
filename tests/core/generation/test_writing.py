"""The writers' one settings object: a generation's deadline leaves each of its replies the
model's whole request timeout."""

from __future__ import annotations

from core.generation import Writing


class _Model:
    name = "m"

    async def chat_json(self, messages, schema):  # pragma: no cover - never asked
        raise AssertionError


def test_a_generation_may_take_one_request_timeout_per_reply() -> None:
    assert Writing.per_request(_Model(), 120).timeout_s == 360
    assert Writing.per_request(_Model(), 120, max_reasks=0).timeout_s == 120
