"""Course bindings on SQLite and PostgreSQL: a rebind replaces, bindings are per platform, the
most specific chat wins, a user's last course is overwritten, `courses` lists every course of
a platform once, and all of it survives a restart (a new engine on the same database)."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from sqlalchemy import select

from core.bindings import CourseBindings
from core.bindings.models import ChatBinding
from core.database import create_engine


@pytest.fixture
async def bindings(migrated_url: str) -> AsyncIterator[CourseBindings]:
    engine = create_engine(migrated_url)
    yield CourseBindings(engine)
    await engine.dispose()


async def test_unbound_chat_and_unknown_user_have_no_course(bindings: CourseBindings) -> None:
    assert await bindings.bound_course("telegram", ["-100"]) is None
    assert await bindings.bound_course("telegram", []) is None
    assert await bindings.last_course("telegram", "telegram:42") is None
    assert await bindings.courses("telegram") == []


async def test_rebinding_a_chat_replaces_its_course(
    bindings: CourseBindings, migrated_url: str
) -> None:
    await bindings.bind("telegram", "-100", "calc101", "telegram:1")
    await bindings.bind("telegram", "-100", "phys201", "telegram:2")

    assert await bindings.bound_course("telegram", ["-100"]) == "phys201"
    engine = create_engine(migrated_url)
    try:
        async with engine.connect() as connection:
            query = select(
                ChatBinding.chat_id,
                ChatBinding.course_id,
                ChatBinding.bound_by,
                ChatBinding.bound_at,
            )
            rows = (await connection.execute(query)).all()
    finally:
        await engine.dispose()
    assert [(chat, course, by) for chat, course, by, _ in rows] == [
        ("-100", "phys201", "telegram:2")
    ]
    assert rows[0].bound_at.tzinfo is not None


async def test_bindings_are_per_platform(bindings: CourseBindings) -> None:
    await bindings.bind("telegram", "123", "calc101", "telegram:1")
    await bindings.bind("discord", "123", "phys201", "discord:1")

    assert await bindings.bound_course("telegram", ["123"]) == "calc101"
    assert await bindings.bound_course("discord", ["123"]) == "phys201"
    assert await bindings.bound_course("console", ["123"]) is None


async def test_most_specific_bound_chat_wins(bindings: CourseBindings) -> None:
    await bindings.bind("discord", "guild-1", "calc101", "discord:1")

    # Only the server is bound: its channels inherit its course.
    assert await bindings.bound_course("discord", ["channel-7", "guild-1"]) == "calc101"

    await bindings.bind("discord", "channel-7", "phys201", "discord:1")
    assert await bindings.bound_course("discord", ["channel-7", "guild-1"]) == "phys201"
    # The order given is the order of preference, not the order of binding.
    assert await bindings.bound_course("discord", ["guild-1", "channel-7"]) == "calc101"
    assert await bindings.bound_course("discord", ["channel-8", "guild-1"]) == "calc101"


async def test_remembered_course_is_overwritten_and_per_platform(
    bindings: CourseBindings,
) -> None:
    await bindings.remember_course("telegram", "42", "calc101")
    await bindings.remember_course("telegram", "42", "phys201")
    await bindings.remember_course("discord", "42", "chem110")

    assert await bindings.last_course("telegram", "42") == "phys201"
    assert await bindings.last_course("discord", "42") == "chem110"
    assert await bindings.last_course("telegram", "43") is None


async def test_courses_are_the_sorted_union_for_one_platform(bindings: CourseBindings) -> None:
    await bindings.bind("telegram", "-100", "phys201", "telegram:1")
    await bindings.bind("telegram", "-200", "calc101", "telegram:1")
    await bindings.remember_course("telegram", "telegram:5", "calc101")
    await bindings.remember_course("telegram", "telegram:6", "bio150")
    await bindings.bind("discord", "guild-1", "zoo300", "discord:1")
    await bindings.remember_course("discord", "discord:9", "art100")

    assert await bindings.courses("telegram") == ["bio150", "calc101", "phys201"]
    assert await bindings.courses("discord") == ["art100", "zoo300"]
    assert await bindings.courses("console") == []


async def test_bindings_survive_a_restart(migrated_url: str) -> None:
    first = create_engine(migrated_url)
    store = CourseBindings(first)
    await store.bind("discord", "guild-1", "calc101", "discord:1")
    await store.remember_course("discord", "discord:9", "phys201")
    await first.dispose()

    second = create_engine(migrated_url)
    try:
        restarted = CourseBindings(second)
        assert await restarted.bound_course("discord", ["channel-7", "guild-1"]) == "calc101"
        assert await restarted.last_course("discord", "discord:9") == "phys201"
        assert await restarted.courses("discord") == ["calc101", "phys201"]
    finally:
        await second.dispose()
