"""The session store contract, pinned for both implementations: in-process and real Redis."""

from __future__ import annotations

import asyncio

from redis.asyncio import Redis
from support.clock import FakeClock

from core.sessions import MemorySessionStore, RedisSessionStore, SessionStore, session_key
from core.sessions.store import Append


async def test_compare_and_set_creates_then_advances_versions(
    session_store: SessionStore, redis_prefix: str
) -> None:
    key = session_key(redis_prefix, "exercise", "math101", "alice")
    assert await session_store.get(key) is None
    assert await session_store.compare_and_set(key, '{"step": 1}', expected_version=0, ttl_s=60)
    first = await session_store.get(key)
    assert first is not None and first.version == 1 and first.value == '{"step": 1}'
    assert await session_store.compare_and_set(key, '{"step": 2}', expected_version=1, ttl_s=60)
    second = await session_store.get(key)
    assert second is not None and (second.version, second.value) == (2, '{"step": 2}')


async def test_stale_version_loses(session_store: SessionStore, redis_prefix: str) -> None:
    key = session_key(redis_prefix, "exercise", "c", "bob")
    assert await session_store.compare_and_set(key, "a", expected_version=0, ttl_s=60)
    assert not await session_store.compare_and_set(key, "b", expected_version=0, ttl_s=60)
    assert await session_store.compare_and_set(key, "c", expected_version=1, ttl_s=60)
    assert not await session_store.compare_and_set(key, "d", expected_version=1, ttl_s=60)
    current = await session_store.get(key)
    assert current is not None and current.value == "c"


async def test_concurrent_writers_each_win_exactly_once(
    session_store: SessionStore, redis_prefix: str
) -> None:
    key = session_key(redis_prefix, "counter", "c", "u")

    async def increment() -> None:
        while True:
            current = await session_store.get(key)
            version = current.version if current else 0
            value = int(current.value) if current else 0
            if await session_store.compare_and_set(key, str(value + 1), version, ttl_s=60):
                return

    await asyncio.gather(*(increment() for _ in range(20)))
    final = await session_store.get(key)
    assert final is not None and (final.value, final.version) == ("20", 20)


async def test_a_write_appends_to_outbox_lists_atomically(
    session_store: SessionStore, redis_prefix: str
) -> None:
    key = session_key(redis_prefix, "exercise", "c", "dora")
    outbox = session_key(redis_prefix, "outbox", "test")
    first = [Append(outbox, "m1"), Append(outbox, "m2")]
    assert await session_store.compare_and_set(key, "x", 0, 60, first)
    # A write that loses the race appends nothing.
    assert not await session_store.compare_and_set(key, "y", 0, 60, [Append(outbox, "m3")])
    assert await session_store.head(outbox, 10) == ["m1", "m2"]


async def test_an_entry_appended_on_its_own_goes_after_those_written_before(
    session_store: SessionStore, redis_prefix: str
) -> None:
    key = session_key(redis_prefix, "exercise", "c", "finn")
    outbox = session_key(redis_prefix, "outbox", "test3")
    assert await session_store.compare_and_set(key, "x", 0, 60, [Append(outbox, "m1")])
    await session_store.append(outbox, "held")
    assert await session_store.head(outbox, 10) == ["m1", "held"]


async def test_only_the_lock_holder_drops_outbox_entries(
    session_store: SessionStore, redis_prefix: str
) -> None:
    key = session_key(redis_prefix, "exercise", "c", "emil")
    outbox = session_key(redis_prefix, "outbox", "test2")
    lock = session_key(redis_prefix, "outbox", "test2", "lock")
    await session_store.compare_and_set(key, "x", 0, 60, [Append(outbox, "a"), Append(outbox, "b")])
    assert await session_store.lock(lock, "mine", 5000)
    assert not await session_store.lock(lock, "theirs", 5000)
    assert not await session_store.drop_head(outbox, ["a"], lock, "theirs")
    assert await session_store.drop_head(outbox, ["a"], lock, "mine")
    assert await session_store.head(outbox, 10) == ["b"]
    # Repeated (a client retrying a call whose reply was lost), it removes nothing more.
    assert not await session_store.drop_head(outbox, ["a"], lock, "mine")
    assert await session_store.head(outbox, 10) == ["b"]
    await session_store.unlock(lock, "mine")
    assert await session_store.lock(lock, "theirs", 5000)
    await session_store.delete(outbox)


async def test_delete_removes_the_session(session_store: SessionStore, redis_prefix: str) -> None:
    key = session_key(redis_prefix, "exercise", "c", "carol")
    await session_store.compare_and_set(key, "x", 0, ttl_s=60)
    await session_store.delete(key)
    assert await session_store.get(key) is None


async def test_memory_store_expires_after_ttl() -> None:
    clock = FakeClock()
    session_store = MemorySessionStore(clock=clock)
    assert await session_store.compare_and_set("k", "v", 0, ttl_s=10)
    clock.now += 9
    assert await session_store.get("k") is not None
    clock.now += 2
    assert await session_store.get("k") is None
    assert await session_store.compare_and_set("k", "fresh", 0, ttl_s=10)


async def test_redis_store_sets_the_ttl(redis_client: Redis, redis_prefix: str) -> None:
    session_store = RedisSessionStore(redis_client)
    key = session_key(redis_prefix, "exercise", "c", "dave")
    await session_store.compare_and_set(key, "x", 0, ttl_s=120)
    assert 0 < await redis_client.ttl(key) <= 120
    await redis_client.expire(key, 1)
    await asyncio.sleep(1.2)
    assert await session_store.get(key) is None
