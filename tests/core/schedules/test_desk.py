"""`/schedule`, `/schedules`, `/unschedule` in the core: who may, what a chat may name, and
what the listing shows."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from core.context import Audience, Context, Member, Role
from core.database import create_engine, migrate
from core.errors import BadInputError, PermissionDeniedError
from core.requests import Place, Request
from core.schedules import Outcome, ScheduleDesk, ScheduleRules, ScheduleStore

GROUP = Place(Audience.SHARED, chat_id="-100", lookup=("chat:-100",), bind_key="chat:-100")
DM = Place(Audience.PRIVATE, chat_id="42")
TEACHER = Member(platform="telegram", user_id="telegram:42")


@pytest.fixture
def folders(tmp_path: Path) -> Path:
    root = tmp_path / "shared"
    (root / "calc" / "week1").mkdir(parents=True)
    (tmp_path / "secret").mkdir()
    return root


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[ScheduleStore]:
    url = f"sqlite:///{tmp_path / 'desk.db'}"
    await migrate(url)
    engine = create_engine(url)
    yield ScheduleStore(engine)
    await engine.dispose()


@pytest.fixture
def desk(store: ScheduleStore, folders: Path) -> ScheduleDesk:
    return ScheduleDesk(store, ScheduleRules(timedelta(minutes=15), folders))


def ctx(role: Role = Role.INSTRUCTOR, course: str = "calc", place: Place = GROUP) -> Context:
    # An instructor holds what a moderator does (core.permissions).
    roles = frozenset({role})
    return Context("telegram", course, "telegram:42", roles, place.chat_id, "m", place.audience)


def request(place: Place = GROUP, operator: bool = False) -> Request:
    return Request(TEACHER, place, "telegram:-100:1", operator=operator)


async def test_a_student_or_a_moderator_cannot_schedule(desk: ScheduleDesk) -> None:
    for role in (Role.STUDENT, Role.MODERATOR):
        with pytest.raises(PermissionDeniedError):
            await desk.add(request(), ctx(role), "ingest https://example.edu/a.pdf every 1d")
        with pytest.raises(PermissionDeniedError):
            await desk.listing(ctx(role))
        with pytest.raises(PermissionDeniedError):
            await desk.remove(ctx(role), 1)


async def test_a_chat_names_folders_under_the_shared_one_only(
    desk: ScheduleDesk, folders: Path
) -> None:
    made = await desk.add(request(), ctx(), "ingest calc/week1 every 1d")
    assert made.text == f"Schedule #1: ingest {folders.resolve() / 'calc/week1'}, every 1d."
    for outside in ("../secret", str(folders.parent / "secret"), "/etc", "calc/missing"):
        with pytest.raises(BadInputError, match="not a folder under"):
            await desk.add(request(), ctx(), f"ingest {outside} every 1d")
    (folders / "calc" / "escape").symlink_to(folders.parent / "secret")
    with pytest.raises(BadInputError, match="not a folder under"):
        await desk.add(request(), ctx(), "ingest calc/escape every 1d")


async def test_without_shared_folders_a_chat_schedules_urls_only(store: ScheduleStore) -> None:
    desk = ScheduleDesk(store, ScheduleRules())
    with pytest.raises(BadInputError, match="cannot be scheduled from a chat"):
        await desk.add(request(), ctx(), "ingest /srv/courses every 1d")
    with pytest.raises(BadInputError, match="Only http"):
        await desk.add(request(), ctx(), "ingest file:///etc/passwd every 1d")
    made = await desk.add(request(), ctx(), "ingest https://example.edu/syllabus.pdf every 12h")
    assert made.text == "Schedule #1: ingest https://example.edu/syllabus.pdf, every 12h."
    # The terminal (an operator) may name any folder.
    made = await desk.add(request(DM, operator=True), ctx(place=DM), "ingest /srv/x every 1m")
    assert made.text.startswith("Schedule #2: ingest /srv/x")


async def test_intervals_and_times_are_checked(desk: ScheduleDesk) -> None:
    with pytest.raises(BadInputError, match="shortest interval here is 15m"):
        await desk.add(request(), ctx(), "ingest https://example.edu/a.pdf every 1m")
    with pytest.raises(BadInputError, match="is not an interval"):
        await desk.add(request(), ctx(), "ingest https://example.edu/a.pdf every often")
    with pytest.raises(BadInputError, match="is not a day"):
        await desk.add(request(), ctx(), "quiz limits someday 09:00")
    with pytest.raises(BadInputError, match="is not a time of day"):
        await desk.add(request(), ctx(), "quiz limits mon 25:00")
    with pytest.raises(BadInputError, match="Usage: /schedule"):
        await desk.add(request(), ctx(), "dance every 1d")


async def test_quizzes_and_reminders_are_scheduled_where_they_are_posted(
    desk: ScheduleDesk, store: ScheduleStore
) -> None:
    with pytest.raises(BadInputError, match="course's group or channel"):
        await desk.add(request(DM), ctx(place=DM), "quiz limits mon 09:00")
    made = await desk.add(request(), ctx(), "quiz chain rule mon 9:05")
    assert made.text == "Schedule #1: quiz on chain rule, mon 09:05."
    [quiz] = await store.of_course("calc")
    assert (quiz.lane, quiz.chat_id, quiz.place_keys) == ("telegram", "-100", ("chat:-100",))
    assert (await desk.add(request(), ctx(), "quiz chain rule mon 09:05")).text == (
        "Schedule #1 does that already."
    )
    on = await desk.add(request(), ctx(), "reminders on")
    assert on.text.startswith("Schedule #2: exam reminders here")
    assert "already on" in (await desk.add(request(), ctx(), "reminders on")).text
    off = await desk.add(request(), ctx(), "reminders off")
    assert off.text == "Exam reminders are off here."
    assert [s.schedule_id for s in await store.of_course("calc")] == [1]


async def test_the_listing_shows_each_runs_outcome_and_unschedule_keeps_to_the_course(
    desk: ScheduleDesk, store: ScheduleStore
) -> None:
    await desk.add(request(), ctx(), "ingest https://example.edu/a.pdf every 1d")
    due = datetime(2026, 12, 7, 9, 0, tzinfo=UTC)
    assert await store.claim(1, due, "replica-a")
    assert not await store.claim(1, due, "replica-b")  # one replica per due run
    await store.finish(1, due, Outcome.FAILED, "https://example.edu/a.pdf answered 404.")
    listing = (await desk.listing(ctx())).text
    assert "#1 ingest https://example.edu/a.pdf, every 1d" in listing
    assert "2026-12-07 09:00 UTC failed: https://example.edu/a.pdf answered 404." in listing
    # Another course's instructor cannot see or remove it.
    assert "has no schedules" in (await desk.listing(ctx(course="physics"))).text
    with pytest.raises(BadInputError, match="has no schedule #1"):
        await desk.remove(ctx(course="physics"), 1)
    assert (await desk.remove(ctx(), 1)).text == "Schedule #1 removed."
    assert await store.runs(1) == []


async def test_a_course_has_a_bounded_number_of_schedules(store: ScheduleStore) -> None:
    desk = ScheduleDesk(store, ScheduleRules(max_per_course=2))
    for number in (1, 2):
        await desk.add(request(), ctx(), f"ingest https://example.edu/{number}.pdf every 1d")
    with pytest.raises(BadInputError, match="A course may have 2 schedules"):
        await desk.add(request(), ctx(), "ingest https://example.edu/3.pdf every 1d")
    with pytest.raises(BadInputError, match="A course may have 2 schedules"):
        await desk.add(request(), ctx(), "reminders on")
    # Other courses have their own room.
    await desk.add(request(), ctx(course="physics"), "ingest https://example.edu/1.pdf every 1d")


async def test_quizzes_are_refused_where_no_bot_posts_them(store: ScheduleStore) -> None:
    desk = ScheduleDesk(store, ScheduleRules(post_platforms=frozenset({"discord"})))
    with pytest.raises(BadInputError, match="posted by the chat bots"):
        await desk.add(request(), ctx(), "quiz limits mon 09:00")
