"""Course records on SQLite and PostgreSQL: a course is created once (the first creator
wins, even in a race) with its creator's instructor grant in the same transaction, staff
grants are per course and replace rather than repeat, a transfer leaves one instructor,
joining is idempotent, an invite code is made once and finds its course, and all of it
survives a restart (a new engine on the same database)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from core.context import Role
from core.courses import CourseRegistry, StaffGrant
from core.database import create_engine


@pytest.fixture
async def courses(migrated_url: str) -> AsyncIterator[CourseRegistry]:
    engine = create_engine(migrated_url)
    yield CourseRegistry(engine)
    await engine.dispose()


async def test_unknown_course_has_no_record_staff_or_members(courses: CourseRegistry) -> None:
    assert await courses.get("calc101") is None
    assert await courses.all() == []
    assert await courses.staff("calc101") == []
    assert await courses.staff_roles("calc101", ["telegram:1"]) == set()
    assert await courses.staff_roles("calc101", []) == set()
    assert await courses.staffed_courses([]) == set()
    assert not await courses.is_member("calc101", "telegram:1")
    assert await courses.joined_courses("telegram:1") == set()


async def test_created_course_has_its_creator_as_instructor(courses: CourseRegistry) -> None:
    assert await courses.create("calc101", "telegram:9", instructor="telegram:9", title="Calc")

    course = await courses.get("calc101")
    assert course is not None
    assert (course.course_id, course.title, course.created_by) == ("calc101", "Calc", "telegram:9")
    assert course.open is False and course.invite_code is None
    assert course.created_at.tzinfo is not None
    assert await courses.staff("calc101") == [
        StaffGrant("telegram:9", Role.INSTRUCTOR, "telegram:9")
    ]
    assert await courses.staff_roles("calc101", ["telegram:9", "x:1"]) == {Role.INSTRUCTOR}
    assert await courses.staffed_courses(["telegram:9"]) == {"calc101"}


async def test_the_first_creator_wins(courses: CourseRegistry) -> None:
    assert await courses.create("calc101", "telegram:9", instructor="telegram:9")
    assert not await courses.create("calc101", "telegram:10", instructor="telegram:10")

    course = await courses.get("calc101")
    assert course is not None and course.created_by == "telegram:9"
    # The loser's instructor grant went with its failed transaction.
    assert [g.principal for g in await courses.staff("calc101")] == ["telegram:9"]
    assert await courses.staff_roles("calc101", ["telegram:10"]) == set()


async def test_the_first_creator_wins_a_race(courses: CourseRegistry) -> None:
    creators = [f"telegram:{n}" for n in range(8)]
    created = await asyncio.gather(
        *(courses.create("calc101", who, instructor=who) for who in creators)
    )

    assert sorted(created) == [False] * 7 + [True]
    winner = creators[created.index(True)]
    course = await courses.get("calc101")
    assert course is not None and course.created_by == winner
    assert await courses.staff("calc101") == [StaffGrant(winner, Role.INSTRUCTOR, winner)]


async def test_ensure_creates_a_course_without_staff_once(courses: CourseRegistry) -> None:
    await courses.ensure("calc101", "console")
    await courses.ensure("calc101", "someone-else")
    await courses.ensure("bio150", "console")

    assert [c.course_id for c in await courses.all()] == ["bio150", "calc101"]
    course = await courses.get("calc101")
    assert course is not None and course.created_by == "console"
    assert await courses.staff("calc101") == []


async def test_grants_are_per_course_and_a_repeated_grant_replaces(
    courses: CourseRegistry,
) -> None:
    await courses.create("calc101", "telegram:9", instructor="telegram:9")
    await courses.create("phys201", "telegram:8", instructor="telegram:8")
    await courses.grant("calc101", "discord:role:42", Role.MODERATOR, "telegram:9")
    await courses.grant("calc101", "discord:role:42", Role.MODERATOR, "telegram:7")
    await courses.grant("calc101", "discord:role:42", Role.INSTRUCTOR, "telegram:9")

    assert await courses.staff("calc101") == [
        StaffGrant("discord:role:42", Role.INSTRUCTOR, "telegram:9"),
        StaffGrant("telegram:9", Role.INSTRUCTOR, "telegram:9"),
        StaffGrant("discord:role:42", Role.MODERATOR, "telegram:7"),
    ]
    assert await courses.staff_roles("calc101", ["discord:role:42"]) == {
        Role.INSTRUCTOR,
        Role.MODERATOR,
    }
    assert await courses.staff_roles("phys201", ["discord:role:42"]) == set()
    assert await courses.staffed_courses(["discord:role:42", "telegram:8"]) == {
        "calc101",
        "phys201",
    }


async def test_revoke_removes_one_role_of_one_principal(courses: CourseRegistry) -> None:
    await courses.create("calc101", "telegram:9", instructor="telegram:9")
    await courses.grant("calc101", "telegram:5", Role.MODERATOR, "telegram:9")
    await courses.grant("calc101", "telegram:5", Role.INSTRUCTOR, "telegram:9")

    assert await courses.revoke("calc101", "telegram:5", Role.INSTRUCTOR)
    assert not await courses.revoke("calc101", "telegram:5", Role.INSTRUCTOR)
    assert not await courses.revoke("phys201", "telegram:5", Role.MODERATOR)
    assert await courses.staff_roles("calc101", ["telegram:5"]) == {Role.MODERATOR}
    assert await courses.revoke("calc101", "telegram:5", Role.MODERATOR)
    assert await courses.staff_roles("calc101", ["telegram:5"]) == set()
    assert await courses.staffed_courses(["telegram:5"]) == set()


async def test_transfer_leaves_the_new_instructor_alone(courses: CourseRegistry) -> None:
    await courses.create("calc101", "telegram:9", instructor="telegram:9")
    await courses.create("phys201", "telegram:9", instructor="telegram:9")
    await courses.grant("calc101", "telegram:5", Role.MODERATOR, "telegram:9")
    await courses.grant("calc101", "telegram:6", Role.INSTRUCTOR, "telegram:9")

    await courses.transfer("calc101", "telegram:7", "console")

    assert await courses.staff("calc101") == [StaffGrant("telegram:7", Role.INSTRUCTOR, "console")]
    course = await courses.get("calc101")
    assert course is not None and course.created_by == "telegram:7"
    # Other courses keep their staff.
    assert await courses.staff_roles("phys201", ["telegram:9"]) == {Role.INSTRUCTOR}
    # Transferring to a current instructor works too.
    await courses.transfer("phys201", "telegram:9", "console")
    assert await courses.staff("phys201") == [StaffGrant("telegram:9", Role.INSTRUCTOR, "console")]


async def test_joining_is_idempotent_and_per_course(courses: CourseRegistry) -> None:
    await courses.create("calc101", "telegram:9")
    await courses.create("phys201", "telegram:9")
    await courses.join("calc101", "telegram:42", via="chat")
    await courses.join("calc101", "telegram:42", via="invite")  # joined already: no error
    await courses.join("phys201", "telegram:42", via="chosen")

    assert await courses.is_member("calc101", "telegram:42")
    assert not await courses.is_member("calc101", "telegram:43")
    assert await courses.joined_courses("telegram:42") == {"calc101", "phys201"}
    assert await courses.joined_courses("telegram:43") == set()
    # Belonging to a course is not staffing it.
    assert await courses.staff_roles("calc101", ["telegram:42"]) == set()


async def test_invite_code_is_made_once_and_finds_its_course(courses: CourseRegistry) -> None:
    await courses.create("calc101", "telegram:9")
    await courses.create("phys201", "telegram:9")

    code = await courses.invite_code("calc101")
    assert code.startswith("calc101-") and len(code) > len("calc101-")
    assert await courses.invite_code("calc101") == code
    other = await courses.invite_code("phys201")
    assert other != code
    assert await courses.by_invite(code) == "calc101"
    assert await courses.by_invite(other) == "phys201"
    assert await courses.by_invite("calc101-nope") is None
    assert await courses.by_invite("") is None
    assert await courses.by_invite(code.upper()) in (None, "calc101")  # never another course
    course = await courses.get("calc101")
    assert course is not None and course.invite_code == code


async def test_concurrent_first_uses_agree_on_one_code(courses: CourseRegistry) -> None:
    await courses.create("calc101", "telegram:9")

    codes = await asyncio.gather(*(courses.invite_code("calc101") for _ in range(6)))

    assert len(set(codes)) == 1
    assert await courses.by_invite(codes[0]) == "calc101"


async def test_open_and_close(courses: CourseRegistry) -> None:
    await courses.create("calc101", "telegram:9")
    await courses.create("phys201", "telegram:9")

    await courses.set_open("calc101", True)
    opened = await courses.get("calc101")
    assert opened is not None and opened.open
    closed = await courses.get("phys201")
    assert closed is not None and not closed.open
    await courses.set_open("calc101", False)
    reclosed = await courses.get("calc101")
    assert reclosed is not None and not reclosed.open


async def test_records_survive_a_restart(migrated_url: str) -> None:
    first = create_engine(migrated_url)
    store = CourseRegistry(first)
    await store.create("calc101", "telegram:9", instructor="telegram:9")
    await store.grant("calc101", "telegram:5", Role.MODERATOR, "telegram:9")
    await store.join("calc101", "telegram:42", via="chat")
    await store.set_open("calc101", True)
    code = await store.invite_code("calc101")
    await first.dispose()

    second = create_engine(migrated_url)
    try:
        restarted = CourseRegistry(second)
        course = await restarted.get("calc101")
        assert course is not None and course.open and course.invite_code == code
        assert await restarted.staff_roles("calc101", ["telegram:5"]) == {Role.MODERATOR}
        assert await restarted.is_member("calc101", "telegram:42")
        assert await restarted.by_invite(code) == "calc101"
    finally:
        await second.dispose()
