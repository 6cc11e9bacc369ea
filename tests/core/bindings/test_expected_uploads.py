"""Files announced by /ingest or /notes, remembered in the session store for the next
messages: the same contract in process memory and in real Redis (under a test prefix)."""

from __future__ import annotations

import pytest
from redis.asyncio import Redis
from support.clock import FakeClock

from core.context import Context
from core.sessions import MemorySessionStore, RedisSessionStore, SessionStore, session_key
from core.uploads import EXPECT_FILES_FOR_S, ExpectedUploads


@pytest.fixture
def uploads(session_store: SessionStore, redis_prefix: str) -> ExpectedUploads:
    return ExpectedUploads(session_store, redis_prefix)


def ctx(user: str = "telegram:42", chat: str | None = "-100", course: str = "calc101") -> Context:
    return Context(platform="telegram", course_id=course, user_id=user, chat_id=chat)


async def test_nothing_is_expected_until_a_command_announces_files(
    uploads: ExpectedUploads,
) -> None:
    assert await uploads.pending(ctx()) is None


async def test_announced_kind_is_remembered_and_the_latest_wins(uploads: ExpectedUploads) -> None:
    await uploads.expect(ctx(), private=True)
    assert await uploads.pending(ctx()) is True

    await uploads.expect(ctx(), private=False)
    assert await uploads.pending(ctx()) is False


async def test_done_forgets_the_announcement(uploads: ExpectedUploads) -> None:
    await uploads.expect(ctx(), private=False)
    await uploads.done(ctx())
    assert await uploads.pending(ctx()) is None
    await uploads.done(ctx())  # twice is harmless
    assert await uploads.pending(ctx()) is None


async def test_announcements_are_per_user_chat_and_course(uploads: ExpectedUploads) -> None:
    await uploads.expect(ctx(), private=True)
    await uploads.expect(ctx(chat=None), private=False)

    assert await uploads.pending(ctx()) is True
    assert await uploads.pending(ctx(chat=None)) is False
    assert await uploads.pending(ctx(user="telegram:43")) is None
    assert await uploads.pending(ctx(chat="-200")) is None
    assert await uploads.pending(ctx(course="phys201")) is None
    other_platform = Context(platform="discord", course_id="calc101", user_id="telegram:42")
    assert await uploads.pending(other_platform) is None


async def test_prefixes_keep_deployments_apart(
    session_store: SessionStore, redis_prefix: str
) -> None:
    await ExpectedUploads(session_store, redis_prefix).expect(ctx(), private=True)
    assert await ExpectedUploads(session_store, f"{redis_prefix}:other").pending(ctx()) is None


async def test_announcement_expires_after_ten_minutes_in_memory() -> None:
    clock = FakeClock()
    uploads = ExpectedUploads(MemorySessionStore(clock=clock), "p")
    await uploads.expect(ctx(), private=True)

    clock.now += EXPECT_FILES_FOR_S - 1
    assert await uploads.pending(ctx()) is True
    clock.now += 1
    assert await uploads.pending(ctx()) is None


async def test_announcement_in_redis_has_a_ten_minute_ttl(
    redis_client: Redis, redis_prefix: str
) -> None:
    uploads = ExpectedUploads(RedisSessionStore(redis_client), redis_prefix)
    await uploads.expect(ctx(), private=False)

    key = session_key(redis_prefix, "upload", "telegram", "-100", "calc101", "telegram:42")
    assert 0 < await redis_client.ttl(key) <= EXPECT_FILES_FOR_S
    direct = session_key(redis_prefix, "upload", "telegram", "direct", "calc101", "telegram:42")
    assert not await redis_client.exists(direct)
