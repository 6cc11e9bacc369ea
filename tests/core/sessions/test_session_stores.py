"""The session store contract, pinned for both implementations: in-process and real Redis."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
from redis.asyncio import Redis

from core.sessions import MemorySessionStore, RedisSessionStore, SessionStore, session_key


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture(params=["memory", "redis"])
async def store(request: pytest.FixtureRequest, redis_client: Redis) -> AsyncIterator[SessionStore]:
    if request.param == "memory":
        yield MemorySessionStore()
    else:
        yield RedisSessionStore(redis_client)


async def test_compare_and_set_creates_then_advances_versions(
    store: SessionStore, redis_prefix: str
) -> None:
    key = session_key(redis_prefix, "exercise", "math101", "alice")
    assert await store.get(key) is None
    assert await store.compare_and_set(key, '{"step": 1}', expected_version=0, ttl_s=60)
    first = await store.get(key)
    assert first is not None and first.version == 1 and first.value == '{"step": 1}'
    assert await store.compare_and_set(key, '{"step": 2}', expected_version=1, ttl_s=60)
    second = await store.get(key)
    assert second is not None and (second.version, second.value) == (2, '{"step": 2}')


async def test_stale_version_loses(store: SessionStore, redis_prefix: str) -> None:
    key = session_key(redis_prefix, "exercise", "c", "bob")
    assert await store.compare_and_set(key, "a", expected_version=0, ttl_s=60)
    assert not await store.compare_and_set(key, "b", expected_version=0, ttl_s=60)
    assert await store.compare_and_set(key, "c", expected_version=1, ttl_s=60)
    assert not await store.compare_and_set(key, "d", expected_version=1, ttl_s=60)
    current = await store.get(key)
    assert current is not None and current.value == "c"


async def test_concurrent_writers_each_win_exactly_once(
    store: SessionStore, redis_prefix: str
) -> None:
    key = session_key(redis_prefix, "counter", "c", "u")

    async def increment() -> None:
        while True:
            current = await store.get(key)
            version = current.version if current else 0
            value = int(current.value) if current else 0
            if await store.compare_and_set(key, str(value + 1), version, ttl_s=60):
                return

    await asyncio.gather(*(increment() for _ in range(20)))
    final = await store.get(key)
    assert final is not None and (final.value, final.version) == ("20", 20)


async def test_claim_succeeds_once(store: SessionStore, redis_prefix: str) -> None:
    key = session_key(redis_prefix, "seen", "telegram", "update-17")
    assert await store.claim(key, ttl_s=60)
    assert not await store.claim(key, ttl_s=60)


async def test_delete_removes_the_session(store: SessionStore, redis_prefix: str) -> None:
    key = session_key(redis_prefix, "exercise", "c", "carol")
    await store.compare_and_set(key, "x", 0, ttl_s=60)
    await store.delete(key)
    assert await store.get(key) is None


async def test_memory_store_expires_after_ttl() -> None:
    clock = FakeClock()
    store = MemorySessionStore(clock=clock)
    assert await store.compare_and_set("k", "v", 0, ttl_s=10)
    clock.now += 9
    assert await store.get("k") is not None
    clock.now += 2
    assert await store.get("k") is None
    assert await store.compare_and_set("k", "fresh", 0, ttl_s=10)


async def test_redis_store_sets_the_ttl(redis_client: Redis, redis_prefix: str) -> None:
    store = RedisSessionStore(redis_client)
    key = session_key(redis_prefix, "exercise", "c", "dave")
    await store.compare_and_set(key, "x", 0, ttl_s=120)
    assert 0 < await redis_client.ttl(key) <= 120
    await redis_client.expire(key, 1)
    await asyncio.sleep(1.2)
    assert await store.get(key) is None


async def test_memory_store_warns_once_that_sessions_are_not_durable() -> None:
    from structlog.testing import capture_logs

    store = MemorySessionStore()
    with capture_logs() as logs:
        await store.compare_and_set("a", "1", 0, ttl_s=10)
        await store.claim("b", ttl_s=10)
    warnings = [e for e in logs if "won't survive a restart" in e["event"]]
    assert len(warnings) == 1 and warnings[0]["log_level"] == "warning"
