"""Guided-exercise sessions end to end: the sample exercises ingested into Qdrant, the state
in real Redis (own key prefix) or in process, mistakes in SQLite."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from qdrant_client import AsyncQdrantClient
from redis.asyncio import Redis
from support.paths import REDIS_URL

from core.context import Audience, Context
from core.database import create_engine, migrate
from core.errors import BadInputError
from core.exercises import Grader
from core.exercises.parameters import instance_seed, split_instance_id
from core.index import ChunkIndex, SparseEncoder
from core.mistakes import MistakeLog
from core.mistakes.outbox import MistakeOutbox
from core.outages import Outages
from core.practice import ExerciseCatalog, PracticeService
from core.replies import ExerciseSheet, Notice, StepPrompt
from core.sessions import MemorySessionStore, RedisSessionStore, SessionStore, session_key
from ingestion import Ingestor, SourceFile

EXERCISE = "derivative-product-rule"
TTL = timedelta(days=7)


class Clock:
    def __init__(self) -> None:
        self.now = datetime(2026, 11, 2, 9, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now


@dataclass
class World:
    index: ChunkIndex
    catalog: ExerciseCatalog
    mistakes: MistakeLog
    clock: Clock
    prefix: str

    def service(self, store: SessionStore) -> PracticeService:
        return PracticeService(
            store=store,
            catalog=self.catalog,
            grader=Grader(),
            outbox=MistakeOutbox(store, self.prefix, self.mistakes, Outages()),
            prefix=self.prefix,
            ttl=TTL,
            clock=self.clock,
        )


@pytest.fixture
async def world(
    embedder, sample_course: Path, tmp_path: Path, redis_prefix: str
) -> AsyncIterator[World]:
    index = ChunkIndex(
        AsyncQdrantClient(location=":memory:"), "practice", embedder.dimensions, False
    )
    await index.ensure()
    ingestor = Ingestor(index=index, embedder=embedder, sparse=SparseEncoder(), max_bytes=1 << 20)
    files = sorted((sample_course / "exercises").glob("*.exercise.yaml"))
    report = await ingestor.ingest([SourceFile.at(p) for p in files], "math101")
    assert report.failed == []
    url = f"sqlite+aiosqlite:///{tmp_path / 'mistakes.db'}"
    await migrate(url)
    mistakes = MistakeLog(create_engine(url))
    yield World(index, ExerciseCatalog(index, embedder), mistakes, Clock(), redis_prefix)
    await mistakes.close()
    await index.close()


@pytest.fixture(params=["redis", "memory"])
async def store(request: pytest.FixtureRequest, redis_client: Redis) -> AsyncIterator[SessionStore]:
    yield RedisSessionStore(redis_client) if request.param == "redis" else MemorySessionStore()


counter = iter(range(1, 1_000_000))


def msg(user: str = "alice", message_id: str | None = None) -> Context:
    return Context(
        platform="test",
        course_id="math101",
        user_id=user,
        chat_id="chat-1",
        message_id=message_id or f"m{next(counter)}",
    )


def text(replies) -> str:
    parts = []
    for reply in replies:
        if isinstance(reply, StepPrompt):
            parts.append(
                f"{reply.feedback}\n[step {reply.step_number}/{reply.step_count}] {reply.prompt}"
            )
        else:
            parts.append(reply.text)
    return "\n".join(parts)


async def test_a_whole_exercise_with_a_mistake_a_hint_and_a_skip(
    world: World, store: SessionStore
) -> None:
    practice = world.service(store)
    started = await practice.start(msg(), EXERCISE)
    assert isinstance(started[0], StepPrompt) and started[0].step_number == 1
    assert started[0].step_count == 4

    wrong = text(await practice.answer(msg(), "x^2"))
    assert "✗" in wrong and "Hint 1:" in wrong and "2x" not in wrong
    assert "[step" not in wrong  # still on step 1

    right = await practice.answer(msg(), "2*x")
    assert isinstance(right[0], StepPrompt) and right[0].step_number == 2
    assert "✓" in right[0].feedback

    hint = text(await practice.hint(msg()))
    assert "Hint 1:" in hint

    skipped = await practice.skip(msg())
    assert "Solution:" in skipped[0].feedback and skipped[0].step_number == 3

    await practice.answer(msg(), "x(2 sin(x) + x cos(x))")  # an equivalent form
    done = text(await practice.answer(msg(), "-9.87"))
    assert "Exercise complete!" in done
    assert not await practice.in_progress(msg())

    await practice.outbox.settled()  # the mistake went to the database beside the reply
    [skill] = await world.mistakes.by_skill("math101")
    assert (skill.skill, skill.count) == ("power-rule", 1)
    assert skill.examples[0].answer == "x^2" and skill.examples[0].student_id == "alice"


async def test_session_survives_a_restart(world: World, redis_client: Redis) -> None:
    before = world.service(RedisSessionStore(redis_client))
    await before.start(msg("bob"), EXERCISE)
    await before.answer(msg("bob"), "2x")
    # New core objects and a new Redis connection: the same session carries on.
    fresh_client = Redis.from_url(REDIS_URL, decode_responses=True)
    try:
        after = world.service(RedisSessionStore(fresh_client))
        assert "step 2 of 4" in text(await after.status(msg("bob")))
        reply = await after.answer(msg("bob"), "cos(x)")
        assert reply[0].step_number == 3
    finally:
        await fresh_client.aclose()


async def test_two_replicas_answering_at_once_lose_and_double_nothing(
    world: World, redis_client: Redis
) -> None:
    first_client = Redis.from_url(REDIS_URL, decode_responses=True)
    second_client = Redis.from_url(REDIS_URL, decode_responses=True)
    try:
        one = world.service(RedisSessionStore(first_client))
        two = world.service(RedisSessionStore(second_client))
        await one.start(msg("carol"), EXERCISE)
        # Two correct answers for steps 1 and 2 and a wrong one arrive together on two
        # replicas: each is applied exactly once, against the state the other left.
        results = await asyncio.gather(
            one.answer(msg("carol"), "2x"),
            two.answer(msg("carol"), "nonsense+"),
            two.answer(msg("carol"), "2x"),
        )
        status = text(await one.status(msg("carol")))
        state_changes = sum(1 for r in results if r and isinstance(r[0], StepPrompt))
        step = int(status.split("step ")[1].split(" ")[0])
        assert step == 1 + state_changes
        assert 1 <= state_changes <= 2
    finally:
        await first_client.aclose()
        await second_client.aclose()


async def test_concurrent_skips_advance_one_step_each(world: World, redis_client: Redis) -> None:
    clients = [Redis.from_url(REDIS_URL, decode_responses=True) for _ in range(3)]
    try:
        replicas = [world.service(RedisSessionStore(c)) for c in clients]
        await replicas[0].start(msg("dan"), EXERCISE)
        await asyncio.gather(*(r.skip(msg("dan")) for r in replicas))
        assert "step 4 of 4" in text(await replicas[0].status(msg("dan")))
    finally:
        for client in clients:
            await client.aclose()


async def test_an_idle_session_expires(world: World, store: SessionStore) -> None:
    practice = world.service(store)
    await practice.start(msg("erin"), EXERCISE)
    world.clock.now += TTL + timedelta(minutes=1)
    reply = text(await practice.answer(msg("erin"), "2x"))
    assert "expired after a long pause" in reply
    assert not await practice.in_progress(msg("erin"))
    assert await world.mistakes.by_skill("math101") == []


async def test_find_by_topic_quit_and_errors(world: World, store: SessionStore) -> None:
    practice = world.service(store)
    started = await practice.start(msg("fay"), "limits")
    assert isinstance(started[0], StepPrompt) and "limit" in started[0].exercise_title.lower()
    busy = await practice.start(msg("fay"), EXERCISE)
    assert isinstance(busy[0], Notice) and "already have" in busy[0].text
    ended = text(await practice.quit(msg("fay")))
    assert "ended" in ended
    assert "no exercise open" in text(await practice.hint(msg("fay")))
    with pytest.raises(BadInputError, match="no guided exercise about 'medieval poetry'"):
        await practice.start(msg("fay"), "medieval poetry")
    with pytest.raises(BadInputError, match=EXERCISE):
        await practice.start(msg("fay"), "")


async def test_other_students_and_courses_are_separate(world: World, store: SessionStore) -> None:
    practice = world.service(store)
    await practice.start(msg("gus"), EXERCISE)
    assert not await practice.in_progress(msg("hal"))
    other_course = replace(msg("gus"), course_id="physics")
    assert not await practice.in_progress(other_course)
    with pytest.raises(BadInputError):
        await practice.start(other_course, EXERCISE)


async def test_choice_steps_list_their_options(world: World, store: SessionStore) -> None:
    practice = world.service(store)
    [step] = await practice.start(msg("ivy"), "limits-basics")
    assert isinstance(step, StepPrompt)
    assert "\nA) " in step.prompt and "\nB) " in step.prompt


async def test_a_parametric_exercise_draws_a_fresh_instance_per_attempt(
    world: World, store: SessionStore
) -> None:
    practice = world.service(store)
    first = await practice.start(msg("pat"), "power-rule-drill")
    assert isinstance(first[0], StepPrompt)
    busy = text(await practice.start(msg("pat"), "power-rule-drill"))
    assert "already have 'power-rule-drill-v" in busy
    fresh = await practice.start(msg("pat"), "power-rule-drill", fresh=True)
    assert isinstance(fresh[0], StepPrompt)
    state_id = text(await practice.status(msg("pat"))).split(":")[0]
    base, seed = split_instance_id(state_id) or ("", 0)
    assert base == "power-rule-drill"
    assert seed == instance_seed("math101", "pat", "power-rule-drill", 2)
    # The catalog resolves the instance id, so its own answers are graded right.
    instance = await world.catalog.get(msg("pat"), state_id)
    assert instance is not None
    answered = await practice.answer(msg("pat"), instance.steps[0].answer.expected_text())
    assert isinstance(answered[0], StepPrompt) and answered[0].step_number == 2


async def test_exercise_command_starts_a_generated_exercise_on_a_topic(
    world: World, store: SessionStore
) -> None:
    practice = world.service(store)
    # No built-in family is named by these words: the course's parametric exercise is drawn.
    started = await practice.exercise(msg("lee"), "limit-difference-of-squares", "hard")
    sheet, first = started[0], started[1]
    assert isinstance(sheet, ExerciseSheet) and sheet.verified
    assert sheet.exercise_id.startswith("limit-difference-of-squares-v")
    assert sheet.sources[0].file_name == "limit-difference-of-squares.exercise.yaml"
    # The hidden solution is the instance's own answers, not the template's placeholders.
    assert "{{" not in sheet.solution and sheet.solution.startswith("Step 1:")
    assert isinstance(first, StepPrompt)
    assert "(x^2 -" in first.prompt
    # /solution shows it again while the exercise is open.
    shown = await practice.solution(msg("lee"))
    assert shown[0].text == sheet.solution  # type: ignore[union-attr]
    with pytest.raises(BadInputError, match=r"^This course has no exercise generator for 'astro"):
        await practice.exercise(msg("kim"), "astronomy")


async def test_exercise_command_draws_a_family_at_the_level_asked(
    world: World, store: SessionStore
) -> None:
    practice = world.service(store)
    started = await practice.exercise(msg("liv"), "Limits", "hard")
    sheet = started[0]
    assert isinstance(sheet, ExerciseSheet) and sheet.verified and not sheet.sources
    assert sheet.exercise_id.startswith("limit-by-factoring-hard-v")
    await practice.quit(msg("liv"))
    # An area's families are drawn in turn: the least drawn at that level first.
    drawn = set()
    for _ in range(4):
        [sheet, *_] = await practice.exercise(msg("liv"), "derivatives", "easy")
        assert isinstance(sheet, ExerciseSheet) and "-easy-v" in sheet.exercise_id
        drawn.add(sheet.exercise_id.split("-easy-v")[0])
        await practice.quit(msg("liv"))
    assert drawn == {"product-rule", "quotient-rule", "chain-rule", "derivative-at-a-point"}


def dm_msg(user: str = "alice") -> Context:
    return replace(msg(user), chat_id=f"dm-{user}", audience=Audience.PRIVATE)


async def test_an_exercise_is_answered_only_where_it_runs(
    world: World, store: SessionStore
) -> None:
    """Issue 28.10: a line she wrote in the group was graded as an answer to the exercise
    she does in a direct message, and the group saw its "✗ ... Hint 2"."""
    practice = world.service(store)
    await practice.start(dm_msg(), EXERCISE)
    assert "✗" in text(await practice.answer(dm_msg(), "x^2"))

    assert await practice.answer_if_open(msg(), "what is a limit?") is None  # a question
    for command in (practice.hint, practice.skip, practice.quit, practice.status):
        with pytest.raises(BadInputError, match=r"^Your exercise 'derivative-product-rule' runs"):
            await command(msg())
    for refused in (practice.answer(msg(), "2*x"), practice.solution(msg())):
        with pytest.raises(BadInputError, match="our direct messages"):
            await refused
    # A new exercise in the group: she hears she has one open, and where.
    with pytest.raises(BadInputError, match=r"You already have an exercise open.*direct"):
        await practice.start(msg(), EXERCISE)
    # Nothing of it moved: still step 1, one wrong attempt, answered in the DM.
    assert "step 1 of 4, 1 wrong attempt(s)" in text(await practice.status(dm_msg()))
    assert (await practice.answer(dm_msg(), "2*x"))[0].step_number == 2
    # Another chat on another platform with the same chat id is another place too.
    assert await practice.answer_if_open(replace(dm_msg(), platform="other"), "0") is None


async def test_an_exercise_moved_to_a_thread_is_answered_there_only(
    world: World, store: SessionStore
) -> None:
    practice = world.service(store)
    started = msg(message_id="start-1")
    await practice.start(started, EXERCISE)
    thread = replace(msg(), chat_id="thread-9")
    await practice.move(msg(), "thread-9")  # not the message that started it: ignored
    with pytest.raises(BadInputError, match="runs in the chat where you started it"):
        await practice.status(thread)
    await practice.move(started, "thread-9")
    assert await practice.answer_if_open(msg(), "2*x") is None
    assert (await practice.answer(thread, "2*x"))[0].step_number == 2
    await practice.move(started, "thread-10")  # once answered, it stays
    assert "step 2 of 4" in text(await practice.status(thread))


async def test_a_session_stored_before_places_still_loads(
    world: World, store: SessionStore
) -> None:
    """Sessions written before exercises had a place (no "place" in the record) carry on:
    where only the student reads, and from then on there; never as a group's answers."""
    practice = world.service(store)
    await practice.start(dm_msg(), EXERCISE)
    key = session_key(world.prefix, "exercise", "math101", "alice")
    stored = await store.get(key)
    assert stored is not None
    record = json.loads(stored.value)
    del record["place"]
    assert await store.compare_and_set(key, json.dumps(record), stored.version, 3600)

    assert await practice.answer_if_open(msg(), "2*x") is None
    assert "step 1 of 4" in text(await practice.status(dm_msg()))
    assert (await practice.answer(dm_msg(), "2*x"))[0].step_number == 2
    assert await practice.answer_if_open(msg(), "cos(x)") is None
