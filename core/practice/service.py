"""Guided-exercise sessions: the pure state machine driven by chat messages, with the state
in the session store (Redis when configured) under compare-and-set, each inbound message
handled once, and every wrong attempt logged with its skill.

Replays never reach this service: the facade's reply ledger answers a redelivered message
with the reply it already got, so nothing is graded twice. The state is read, the answer
graded, the transition computed and written back only if nobody
wrote in between; otherwise it starts again from the new state, so concurrent answers
become one transition each, in order.

An exercise runs in one place, the one it started in (a direct message, a group, a Discord
thread the adapter moved it to): only there are the student's lines its answers and its
commands answered. Elsewhere her lines are questions as usual, and a group never sees the
verdicts of an exercise she does in a direct message."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta

import structlog

from core.context import Context
from core.errors import BadInputError
from core.exercises import (
    Attempt,
    ChoiceAnswer,
    CompareWith,
    Completed,
    Ended,
    Event,
    ExerciseDefinition,
    ExerciseFormatError,
    ExerciseState,
    Expire,
    Feedback,
    Grader,
    Hint,
    Invalid,
    Quit,
    RecordMistake,
    ShowHint,
    ShowSolution,
    ShowStep,
    Skip,
    Start,
    Status,
    Step,
    Transition,
    current_step,
    transition,
)
from core.exercises.families import (
    Family,
    Level,
    base_id,
    drawn_instance,
    match_families,
    split_base_id,
)
from core.exercises.parameters import instance_id, instance_seed, split_instance_id
from core.mistakes import MistakeEntry
from core.mistakes.outbox import MistakeOutbox
from core.practice.catalog import ExerciseCatalog, exercise_file_name
from core.practice.exercise_writer import ExerciseWriter, generated_material_id
from core.practice.fit import NO_GENERATOR, FamilyFit
from core.practice.sheets import course_sheet, family_sheet, worked_solution
from core.progress import StepReport
from core.replies import ExerciseSheet, Notice, Reply, StepPrompt
from core.reply_codec import from_data, to_data
from core.sessions import SessionStore, Versioned, session_key

log = structlog.get_logger(__name__)

Clock = Callable[[], datetime]
# Kept a day past expiry so a returning student hears that the exercise expired.
_EXPIRY_GRACE = timedelta(days=1)
_MAX_RACES = 20
_MAX_DRAWS = 5

NO_SESSION = "You have no exercise open. Start one with /practice TOPIC or /practice ID."
ELSEWHERE = (
    "Your exercise '{exercise}' runs in {where}: answer it there (or send /quit there). "
    "Here, your messages are questions as usual."
)


def _now() -> datetime:
    return datetime.now(UTC)


class PracticeService:
    def __init__(
        self,
        *,
        store: SessionStore,
        catalog: ExerciseCatalog,
        grader: Grader,
        outbox: MistakeOutbox,
        prefix: str,
        ttl: timedelta,
        clock: Clock = _now,
        writer: ExerciseWriter | None = None,
        fit: FamilyFit | None = None,
    ) -> None:
        """Without `fit`, a family is drawn on its words alone (benchmarks of the sessions);
        with it, only on a subject the course teaches."""
        self.store = store
        self.fit = fit
        self.catalog = catalog
        self.writer = writer
        self.grader = grader
        self.outbox = outbox
        self.prefix = prefix
        self.ttl = ttl
        self.clock = clock

    # Commands --------------------------------------------------------------------------

    async def start(self, ctx: Context, query: str, *, fresh: bool = False) -> list[Reply]:
        """`/practice TOPIC|ID [--new]`. A parametric exercise always starts a freshly drawn
        instance; `fresh` (`--new`) also replaces an open instance of the same exercise."""
        query = query.strip()
        if not query:
            names = ", ".join(e.id for e in await self.catalog.all(ctx)) or "none yet"
            raise BadInputError(f"Which exercise? Use /practice TOPIC or /practice ID ({names}).")
        if generated_material_id(query.strip()) is not None:
            # One the model wrote for her: the writer asks the visibility policy (a private
            # one is refused in a shared place), and its sheet comes before the first step.
            written = await self.catalog.written(ctx, query.strip())
            if written is None:
                raise BadInputError(f"I found no guided exercise about '{query}' in this course.")
            return await self._begin(ctx, written.definition, fresh=fresh, sheet=written.sheet())
        definition = await self.catalog.find(ctx, query)
        if definition is not None:
            return await self._begin(ctx, definition, fresh=fresh)
        # A built-in family's draw by its id (`product-rule-hard`); topics are /exercise's.
        named = split_base_id(query.lower())
        if named is None:
            raise BadInputError(
                f"I found no guided exercise about '{query}' in this course. "
                "For a drawn one, use /exercise TOPIC [easy|medium|hard]."
            )
        return await self._begin_family(ctx, [named[0]], named[1])

    async def exercise(
        self, ctx: Context, topic: str, difficulty: str = "medium", *,
        report: StepReport | None = None, job: str | None = None,
    ) -> list[Reply]:  # fmt: skip
        """`/exercise TOPIC [easy|medium|hard]`: a new exercise on the topic, written by the
        model and verified when one is configured (its steps told to `report`; stored once
        by the job `job`), else a drawn instance of the course's parametric exercise on it;
        its sheet (solution hidden), then its first step."""
        topic = topic.strip()
        if not topic:
            raise BadInputError("Which topic? Use /exercise TOPIC [easy|medium|hard].")
        busy = await self._busy(ctx)
        if busy is not None:  # before writing one: that costs a model call
            return [busy]
        if self.writer is not None and self.writer.available:
            written = await self.writer.write(ctx, topic, difficulty, report=report, job=job)
            return await self._begin(ctx, written.definition, fresh=False, sheet=written.sheet())
        named = await self._named_course_exercise(ctx, topic)
        if named is not None:
            return await self._begin(ctx, named, fresh=False, sheet=True)
        families = await self._families(ctx, topic)
        if families:
            return await self._begin_family(ctx, families, _level(difficulty))
        definition = await self.catalog.find(ctx, topic, parametric=True)
        if definition is None:
            raise BadInputError(await self._no_family(ctx, topic))
        return await self._begin(ctx, definition, fresh=False, sheet=True)

    async def solution(self, ctx: Context) -> list[Reply]:
        """`/solution`: the worked solution of the student's current (or last) exercise."""
        stored = await self.store.get(self._key(ctx))
        state = self._state(stored)
        if state is None or stored is None:
            return [Notice(NO_SESSION)]
        _check_here(ctx, _Record.of(stored))
        written = await self.catalog.written(ctx, state.exercise_id)
        if written is not None:
            return [Notice(written.solution, title=f"Solution: {written.definition.title}")]
        definition = await self.catalog.get(ctx, state.exercise_id)
        if definition is None:
            return [Notice("That exercise was removed from the course. " + NO_SESSION)]
        return [Notice(worked_solution(definition), title=f"Solution: {definition.title}")]

    async def generate(
        self, ctx: Context, topic: str, difficulty: str = "medium"
    ) -> tuple[ExerciseDefinition, ExerciseSheet]:
        """The exercise this student would get next on `topic`, without starting it: written
        (and stored) by the model when one is configured, else the next parametric draw."""
        if self.writer is not None and self.writer.available:
            written = await self.writer.write(ctx, topic, difficulty)
            return written.definition, written.sheet()
        definition = await self._named_course_exercise(ctx, topic)
        families = await self._families(ctx, topic) if definition is None else []
        if families:
            level = _level(difficulty)
            family = await self._least_practised(ctx, families, level)
            key = self._attempts_key(ctx, base_id(family, level))
            stored = await self.store.get(key)
            attempt = int(stored.value) + 1 if stored else 1
            drawn = await self._family_draw(ctx, family, level, attempt)
            return drawn, family_sheet(drawn, level.value)
        if definition is None:
            definition = await self.catalog.find(ctx, topic, parametric=True)
        if definition is None:
            raise BadInputError(await self._no_family(ctx, topic))
        stored = await self.store.get(self._attempts_key(ctx, definition.id))
        attempt = int(stored.value) + 1 if stored else 1
        instance = await self._instance(ctx, definition, attempt)
        return instance, course_sheet(instance, exercise_file_name(definition.id), drawn=True)

    async def _families(self, ctx: Context, topic: str) -> list[Family]:
        """The built-in families `topic` asks for, once the course is found to teach it
        (`fit`); `BadInputError` with one line when it does not."""
        families = match_families(topic)
        if families and self.fit is not None:
            return await self.fit.offered(ctx, topic, families)
        return families

    async def _no_family(self, ctx: Context, topic: str) -> str:
        if self.fit is None:
            return f"{NO_GENERATOR.format(topic=topic)}."
        return await self.fit.no_family(ctx, topic)

    async def _named_course_exercise(self, ctx: Context, topic: str) -> ExerciseDefinition | None:
        """The course's own parametric exercise when `topic` is its id: it is drawn before any
        built-in family, by `/exercise` and `generate exercise` alike."""
        named = await self.catalog.get(ctx, topic)
        return named if named is not None and named.parametric else None

    async def _begin_family(
        self, ctx: Context, families: list[Family], level: Level
    ) -> list[Reply]:
        """A fresh draw of the family the student has practised least at this level among
        `families` (all those "derivatives" names, in turn), with its sheet."""
        family = await self._least_practised(ctx, families, level)
        attempt = await self._next_attempt(ctx, base_id(family, level))
        drawn = await self._family_draw(ctx, family, level, attempt)
        return await self._begin(ctx, drawn, fresh=False, sheet=family_sheet(drawn, level.value))

    async def _least_practised(self, ctx: Context, families: list[Family], level: Level) -> Family:
        counts = []
        for family in families:
            stored = await self.store.get(self._attempts_key(ctx, base_id(family, level)))
            counts.append(int(stored.value) if stored else 0)
        return families[counts.index(min(counts))]

    async def _family_draw(
        self, ctx: Context, family: Family, level: Level, attempt: int
    ) -> ExerciseDefinition:
        base = base_id(family, level)
        seed = instance_seed(ctx.course_id, ctx.user_id, base, attempt)
        drawn = await asyncio.to_thread(drawn_instance, instance_id(base, seed))
        assert drawn is not None
        return drawn.definition

    async def _busy(self, ctx: Context) -> Notice | None:
        stored = await self.store.get(self._key(ctx))
        if self._already_applied(ctx, stored) is not None:
            return None  # this very message started it (a retried job): `_begin` answers
        current = self._state(stored)
        if current is None or current.status is not Status.IN_PROGRESS or self._expired(current):
            return None
        return _busy_notice(ctx, _Record.of(stored))  # type: ignore[arg-type]

    async def _begin(
        self,
        ctx: Context,
        definition: ExerciseDefinition,
        *,
        fresh: bool,
        sheet: ExerciseSheet | bool = False,
    ) -> list[Reply]:
        """Start `definition` (a fresh draw of a parametric one); with `sheet`, its sheet
        (True: the course exercise's own) comes before the first step."""
        base = definition
        key = self._key(ctx)
        for _ in range(_MAX_RACES):
            stored = await self.store.get(key)
            if (done := self._already_applied(ctx, stored)) is not None:
                return done
            current = self._state(stored)
            busy = current is not None and current.status is Status.IN_PROGRESS
            same = current is not None and _base_id(current.exercise_id) == base.id
            if (
                current is not None
                and busy
                and not self._expired(current)
                and not (fresh and same and base.parametric)
            ):
                return [_busy_notice(ctx, _Record.of(stored))]  # type: ignore[arg-type]
            if base.parametric:
                definition = await self._draw(ctx, base)
            page = (
                course_sheet(definition, exercise_file_name(base.id), drawn=base.parametric)
                if sheet is True
                else sheet
            )
            now = self.clock()
            moved = transition(ExerciseState.new(definition, now), Start(now), definition, None)
            # The sheet is kept with the step's replies: this message again (a redelivery, a
            # retried job) gets both, not the step alone.
            replies = await self._commit(
                ctx, key, stored, moved, definition, place_of(ctx),
                shown=(page,) if isinstance(page, ExerciseSheet) else (),
            )  # fmt: skip
            if replies is not None:
                return replies
        raise RuntimeError("session kept changing while starting an exercise")

    async def answer(self, ctx: Context, text: str) -> list[Reply]:
        """`/answer TEXT`: refused (an error) when no exercise is open."""
        return await self._apply(ctx, lambda now: Attempt(text, now), refuse_absent=True) or []

    async def answer_if_open(self, ctx: Context, text: str) -> list[Reply] | None:
        """The replies to `text` as an answer, or None when no exercise is open (one read)."""
        return await self._apply(ctx, lambda now: Attempt(text, now), optional=True)

    async def hint(self, ctx: Context) -> list[Reply]:
        return await self._apply(ctx, Hint) or []

    async def skip(self, ctx: Context) -> list[Reply]:
        return await self._apply(ctx, Skip) or []

    async def quit(self, ctx: Context) -> list[Reply]:
        return await self._apply(ctx, Quit) or []

    async def status(self, ctx: Context) -> list[Reply]:
        stored = await self.store.get(self._key(ctx))
        state = self._state(stored)
        if stored is None or state is None or state.status is not Status.IN_PROGRESS:
            return [Notice(NO_SESSION)]
        _check_here(ctx, _Record.of(stored))
        definition = await self.catalog.get(ctx, state.exercise_id)
        total = len(definition.steps) if definition else "?"
        return [
            Notice(
                f"{state.exercise_id}: step {state.step_index + 1} of {total}, "
                f"{state.attempts} wrong attempt(s) and {state.hints_shown} hint(s) on this step."
            )
        ]

    async def move(self, ctx: Context, chat_id: str) -> None:
        """The exercise the message `ctx` started goes on in the shared chat `chat_id` of the
        same platform (a Discord thread opened for it). Only that very start is moved."""
        key = self._key(ctx)
        for _ in range(_MAX_RACES):
            stored = await self.store.get(key)
            if stored is None or ctx.message_id is None:
                return
            record = _Record.of(stored)
            if record.applied != ctx.message_id or record.place != place_of(ctx):
                return
            there = ExercisePlace(f"{ctx.platform}:{chat_id}", private=False)
            moved = replace(record, place=there)
            ttl_s = int((self.ttl + _EXPIRY_GRACE).total_seconds())
            if await self.store.compare_and_set(key, moved.to_json(), stored.version, ttl_s):
                return
        raise RuntimeError("session kept changing while moving an exercise")

    async def in_progress(self, ctx: Context) -> bool:
        state = self._state(await self.store.get(self._key(ctx)))
        return state is not None and state.status is Status.IN_PROGRESS

    async def _draw(self, ctx: Context, base: ExerciseDefinition) -> ExerciseDefinition:
        """The student's next instance of `base`: the attempt count goes up by one
        (compare-and-set), and the seed follows from it."""
        return await self._instance(ctx, base, await self._next_attempt(ctx, base.id))

    async def _next_attempt(self, ctx: Context, exercise_id: str) -> int:
        """This student's count of draws of `exercise_id`, one up (compare-and-set)."""
        key = self._attempts_key(ctx, exercise_id)
        ttl_s = int(timedelta(days=365).total_seconds())
        for _ in range(_MAX_RACES):
            stored = await self.store.get(key)
            attempt = int(stored.value) + 1 if stored else 1
            if await self.store.compare_and_set(
                key, str(attempt), stored.version if stored else 0, ttl_s
            ):
                return attempt
        raise RuntimeError("attempt count kept changing while drawing an exercise")

    async def _instance(
        self, ctx: Context, base: ExerciseDefinition, attempt: int
    ) -> ExerciseDefinition:
        # Sample instances were checked at ingestion; a rare draw that breaks a rule (a hint
        # that happens to equal the answer) is replaced by the next seed.
        error: ExerciseFormatError | None = None
        for extra in range(_MAX_DRAWS):
            seed = instance_seed(ctx.course_id, ctx.user_id, base.id, attempt + 1000 * extra)
            try:
                return await self.catalog.instance(ctx, base, seed)
            except ExerciseFormatError as failed:
                error = failed
        raise BadInputError(f"I could not draw a valid instance of '{base.id}': {error}")

    def _attempts_key(self, ctx: Context, exercise_id: str) -> str:
        return session_key(
            self.prefix, "exercise-attempts", ctx.course_id, ctx.user_id, exercise_id
        )

    # The loop --------------------------------------------------------------------------

    async def _apply(
        self,
        ctx: Context,
        make_event: Callable[[datetime], Event],
        *,
        optional: bool = False,
        refuse_absent: bool = False,
    ) -> list[Reply] | None:
        """The replies to `make_event` on the open exercise. With none open: None when
        `optional`, an error when `refuse_absent`, else a notice saying so."""
        key = self._key(ctx)
        for _ in range(_MAX_RACES):
            stored = await self.store.get(key)
            if (done := self._already_applied(ctx, stored)) is not None:
                return done
            state = self._state(stored)
            if stored is None or state is None or state.status is not Status.IN_PROGRESS:
                if refuse_absent:
                    raise BadInputError(NO_SESSION)
                return None if optional else [Notice(NO_SESSION)]
            record = _Record.of(stored)
            if optional and _elsewhere(ctx, record) is not None:
                return None  # a line said elsewhere is a question there, not an answer
            _check_here(ctx, record)
            definition = await self.catalog.get(ctx, state.exercise_id)
            if definition is None:
                await self.store.delete(key)
                return [Notice("That exercise was removed from the course. " + NO_SESSION)]
            now = self.clock()
            event = Expire(now) if self._expired(state) else make_event(now)
            grade = None
            if isinstance(event, Attempt):
                step = current_step(state, definition)
                if step is not None:
                    grade = await self.grader.grade(step, event.text, person=ctx.user_id)
            moved = transition(state, event, definition, grade)
            if moved.invalid is not None:
                return self._replies(ctx, moved, definition)[0]
            # A session stored before exercises had a place runs where it is next used.
            place = record.place or place_of(ctx)
            replies = await self._commit(ctx, key, stored, moved, definition, place)
            if replies is not None:
                return replies
            # Someone else moved the session on: read it again.
        raise RuntimeError("session kept changing while handling a message")

    async def _commit(
        self,
        ctx: Context,
        key: str,
        stored: Versioned | None,
        moved: Transition,
        definition: ExerciseDefinition,
        place: ExercisePlace,
        *,
        shown: Sequence[Reply] = (),
    ) -> list[Reply] | None:
        """Write the new state, this message's replies (`shown` first) and its mistakes (to
        the outbox) in one atomic step; None when the session changed meanwhile. Attempts
        and hints are used up only by a transition that was written."""
        replies, mistakes = self._replies(ctx, moved, definition)
        replies = [*shown, *replies]
        record = _Record(moved.state, ctx.message_id, tuple(replies), place)
        ttl_s = int((self.ttl + _EXPIRY_GRACE).total_seconds())
        version = stored.version if stored else 0
        appends = self.outbox.appends(mistakes)
        if not await self.store.compare_and_set(key, record.to_json(), version, ttl_s, appends):
            return None
        if mistakes:
            # Beside the reply, not before it: a stalled database must not hold the answer.
            self.outbox.flush_soon()
        return replies

    def _already_applied(self, ctx: Context, stored: Versioned | None) -> list[Reply] | None:
        """The replies this very message got, if it already moved the session (its first
        delivery's reply was lost on the way back)."""
        if stored is None or ctx.message_id is None:
            return None
        record = _Record.of(stored)
        return list(record.replies) if record.applied == ctx.message_id else None

    # Effects to replies ----------------------------------------------------------------

    def _replies(
        self, ctx: Context, moved: Transition, definition: ExerciseDefinition
    ) -> tuple[list[Reply], list[MistakeEntry]]:
        """What the student sees, and the mistakes to log, for a transition."""
        replies: list[Reply] = []
        mistakes: list[MistakeEntry] = []
        pending: list[str] = []
        for effect in moved.effects:
            match effect:
                case ShowStep(step_index=index):
                    step = definition.steps[index]
                    replies.append(
                        StepPrompt(
                            exercise_title=definition.title,
                            step_number=index + 1,
                            step_count=len(definition.steps),
                            prompt=_prompt_text(step),
                            feedback="\n".join(pending),
                        )
                    )
                    pending = []
                case Feedback(text=text, correct=correct):
                    mark = "" if correct is None else "✓ " if correct else "✗ "
                    pending.append(mark + text)
                case ShowHint(hint_number=number, text=text):
                    pending.append(f"Hint {number}: {text}")
                case ShowSolution(text=text):
                    pending.append(f"Solution: {text}")
                case CompareWith(text=text):
                    pending.append(f"Compare yours with the model answer: {text}")
                case RecordMistake():
                    mistakes.append(self._mistake(ctx, definition, effect))
                case Completed(summary=summary):
                    pending.append(f"Exercise complete! {summary.describe()}")
                case Ended(status=status, summary=summary):
                    why = "expired after a long pause" if status is Status.EXPIRED else "ended"
                    pending.append(f"The exercise {why}. {summary.describe()}")
                case Invalid(message=message):
                    pending.append(message)
        if pending:
            replies.append(Notice("\n".join(pending)))
        return replies, mistakes

    def _mistake(
        self, ctx: Context, definition: ExerciseDefinition, mistake: RecordMistake
    ) -> MistakeEntry:
        key = f"{ctx.platform}:{ctx.chat_id or '-'}:{ctx.message_id}" if ctx.message_id else None
        return MistakeEntry(
            course_id=ctx.course_id,
            student_id=ctx.user_id,
            # Every instance of a parametric exercise counts as that exercise.
            exercise_id=base_exercise_id(definition.id),
            step_index=mistake.step_index,
            skill=mistake.skill,
            answer=mistake.answer,
            detail=mistake.detail,
            platform=ctx.platform,
            idempotency_key=key,
            created_at=self.clock(),
        )

    # Helpers ---------------------------------------------------------------------------

    def _key(self, ctx: Context) -> str:
        return session_key(self.prefix, "exercise", ctx.course_id, ctx.user_id)

    def _expired(self, state: ExerciseState) -> bool:
        return self.clock() - state.updated_at > self.ttl

    @staticmethod
    def _state(stored: Versioned | None) -> ExerciseState | None:
        return _Record.of(stored).state if stored else None


@dataclass(frozen=True, slots=True)
class _Record:
    """What is stored for a session: the exercise state, the message that last moved it
    with the replies it got (so a redelivery of that message gets them again), and the place
    it runs in (None for a session stored before exercises had one)."""

    state: ExerciseState
    applied: str | None = None
    replies: tuple[Reply, ...] = ()
    place: ExercisePlace | None = None

    @classmethod
    def of(cls, stored: Versioned) -> _Record:
        data = json.loads(stored.value)
        if "state" not in data:  # written before replies were kept with the state
            return cls(ExerciseState.from_json(stored.value))
        place = data.get("place")
        return cls(
            ExerciseState.from_json(json.dumps(data["state"])),
            data.get("applied"),
            tuple(from_data(data.get("replies", []))),
            ExercisePlace(place["key"], place["private"]) if place else None,
        )

    def to_json(self) -> str:
        state = json.loads(self.state.to_json())
        place = {"key": self.place.key, "private": self.place.private} if self.place else None
        return json.dumps(
            {
                "state": state,
                "applied": self.applied,
                "replies": to_data(self.replies),
                "place": place,
            }
        )


@dataclass(frozen=True, slots=True)
class ExercisePlace:
    """Where an exercise runs: the chat (platform and chat id) and whether only the student
    reads it."""

    key: str
    private: bool


def place_of(ctx: Context) -> ExercisePlace:
    return ExercisePlace(f"{ctx.platform}:{ctx.chat_id or '-'}", ctx.private_audience)


def _check_here(ctx: Context, record: _Record) -> None:
    """Refuse (for the asker alone) a command about an exercise that runs elsewhere."""
    elsewhere = _elsewhere(ctx, record)
    if elsewhere is not None:
        raise BadInputError(elsewhere)


def _elsewhere(ctx: Context, record: _Record) -> str | None:
    """Why a message about the exercise is not taken here, or None when it runs here. A
    session stored before exercises had a place is taken only where the student alone
    reads: it may have started in a direct message."""
    place = record.place
    if place is None:
        if ctx.private_audience:
            return None
        where = "a direct message with me"
    elif place == place_of(ctx):
        return None
    else:
        where = "our direct messages" if place.private else "the chat where you started it"
    return ELSEWHERE.format(exercise=record.state.exercise_id, where=where)


def _level(difficulty: str) -> Level:
    try:
        return Level(difficulty.strip().lower())
    except ValueError:
        raise BadInputError(
            f"'{difficulty}' is not a difficulty: use easy, medium or hard."
        ) from None


def _busy_notice(ctx: Context, record: _Record) -> Notice:
    elsewhere = _elsewhere(ctx, record)
    if elsewhere is not None:
        raise BadInputError(f"You already have an exercise open. {elsewhere}")
    return Notice(
        f"You already have '{record.state.exercise_id}' open: answer it, or send /skip, /hint "
        "or /quit."
    )


def _base_id(exercise_id: str) -> str:
    instance = split_instance_id(exercise_id)
    return instance[0] if instance else exercise_id


def base_exercise_id(exercise_id: str) -> str:
    instance = split_instance_id(exercise_id)
    return instance[0] if instance else exercise_id


def _prompt_text(step: Step) -> str:
    """The step's prompt, with the options listed when the answer is a choice."""
    if not isinstance(step.answer, ChoiceAnswer):
        return step.prompt
    options = "\n".join(f"{chr(65 + n)}) {text}" for n, text in enumerate(step.answer.options))
    return f"{step.prompt}\n{options}"
