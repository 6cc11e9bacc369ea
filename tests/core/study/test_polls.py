"""The poll registry: which quiz question a platform's poll asks, kept for some days."""

from __future__ import annotations

from datetime import timedelta

from core.context import Audience
from core.sessions import MemorySessionStore
from core.study.polls import PollRef, PollRegistry


async def test_a_poll_is_found_by_platform_and_id_until_it_expires() -> None:
    now = [0.0]
    registry = PollRegistry(MemorySessionStore(clock=lambda: now[0]), "t", timedelta(days=7))
    ref = PollRef("calc101", 12, 3, "-100", Audience.SHARED, ("chat:-100",))
    await registry.remember("telegram", "poll-1", ref)
    await registry.remember("telegram", "poll-1", ref)  # a resent quiz only refreshes it
    assert await registry.find("telegram", "poll-1") == ref
    assert await registry.find("discord", "poll-1") is None
    assert await registry.find("telegram", "poll-2") is None
    now[0] += timedelta(days=8).total_seconds()
    assert await registry.find("telegram", "poll-1") is None
