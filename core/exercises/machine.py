"""A guided exercise as a pure state machine.

    not started --Start--> step 1 --right answer / Skip--> step 2 ... --> completed
                           step i --wrong answer--> step i (attempts + 1, next hint shown)
                           step i --Hint--> step i (next hint shown)
    not started or step i --Quit--> quit,  --Expire--> expired

`transition(state, event, definition, grade)` returns the next state and the effects the
caller acts on (show a step, show a hint, log a mistake, announce the end). It does no I/O,
reads no clock and calls no grader: the caller grades an `Attempt` first and passes the
result in, and every event carries its own time. An event that makes no sense in the state
(an answer after the end, a second start) gives an `Invalid` effect and the unchanged state,
never an exception."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field

from core.exercises.definitions import ExerciseDefinition, Step
from core.exercises.grading import GradeResult

# The history keeps the most recent entries; summaries come from `finished`, not from it.
MAX_HISTORY = 200
MAX_RECORDED_ANSWER_CHARS = 500


class Status(StrEnum):
    NOT_STARTED = "not_started"
    IN_PROGRESS = "in_progress"
    COMPLETED = "completed"
    QUIT = "quit"
    EXPIRED = "expired"

    @property
    def finished(self) -> bool:
        return self in (Status.COMPLETED, Status.QUIT, Status.EXPIRED)


class StepOutcome(StrEnum):
    SOLVED = "solved"
    SKIPPED = "skipped"
    # The grader could not tell; the student compared her answer with the model answer.
    COMPARED = "compared"


# Events ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Start:
    at: datetime


@dataclass(frozen=True, slots=True)
class Attempt:
    text: str
    at: datetime


@dataclass(frozen=True, slots=True)
class Hint:
    at: datetime


@dataclass(frozen=True, slots=True)
class Skip:
    at: datetime


@dataclass(frozen=True, slots=True)
class Quit:
    at: datetime


@dataclass(frozen=True, slots=True)
class Expire:
    """The session was idle too long; the caller decides when (for instance a store's TTL)."""

    at: datetime


Event = Start | Attempt | Hint | Skip | Quit | Expire


# State -----------------------------------------------------------------------------------


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class StepRecord(_Frozen):
    """How a finished step went."""

    step_index: int
    outcome: StepOutcome
    wrong_attempts: int
    hints_shown: int


class HistoryEntry(_Frozen):
    at: datetime
    event: str
    step_index: int
    answer: str | None = None
    correct: bool | None = None


class ExerciseState(_Frozen):
    """One student's progress through one exercise; small enough to keep in a session store
    as JSON. `attempts` and `hints_shown` count on the current step only."""

    exercise_id: str
    # The definition's fingerprint when the exercise began: a changed file is detected.
    fingerprint: str
    status: Status = Status.NOT_STARTED
    step_index: int = 0
    attempts: int = 0
    hints_shown: int = 0
    started_at: datetime
    updated_at: datetime
    finished: tuple[StepRecord, ...] = ()
    history: tuple[HistoryEntry, ...] = ()
    format_version: int = Field(default=1)

    @classmethod
    def new(cls, definition: ExerciseDefinition, at: datetime) -> ExerciseState:
        return cls(
            exercise_id=definition.id,
            fingerprint=definition.fingerprint(),
            started_at=at,
            updated_at=at,
        )

    def to_json(self) -> str:
        return self.model_dump_json()

    @classmethod
    def from_json(cls, text: str | bytes) -> ExerciseState:
        return cls.model_validate_json(text)


# Effects ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ShowStep:
    step_index: int


@dataclass(frozen=True, slots=True)
class ShowHint:
    step_index: int
    # Counted from 1; `last` when no further hint exists (asking again repeats this one).
    hint_number: int
    text: str
    last: bool


@dataclass(frozen=True, slots=True)
class Feedback:
    """A grade's detail, or a note such as "step skipped". `correct` is None for notes."""

    text: str
    correct: bool | None = None


@dataclass(frozen=True, slots=True)
class ShowSolution:
    """Shown after a skip: the step's `solution`, or its expected answer when it has none."""

    step_index: int
    text: str


@dataclass(frozen=True, slots=True)
class CompareWith:
    """The grader could not decide: the model answer, for the student to compare hers with.
    Nothing is logged as a mistake and the exercise moves on."""

    step_index: int
    text: str


@dataclass(frozen=True, slots=True)
class RecordMistake:
    step_index: int
    skill: str
    answer: str
    detail: str


@dataclass(frozen=True, slots=True)
class ExerciseSummary:
    exercise_id: str
    title: str
    status: Status
    step_count: int
    solved: int
    solved_first_try: int
    skipped: int
    compared: int
    wrong_attempts: int
    hints_used: int
    # Skills of the steps answered wrongly at least once or skipped, in step order.
    skills_to_review: tuple[str, ...]
    duration_s: float

    def describe(self) -> str:
        parts = [f"{self.solved} of {self.step_count} steps solved"]
        if self.solved:
            parts.append(f"{self.solved_first_try} at the first try")
        if self.skipped:
            parts.append(f"{self.skipped} skipped")
        if self.compared:
            parts.append(f"{self.compared} compared with the model answer")
        parts.append(f"{self.hints_used} hint{'s' if self.hints_used != 1 else ''} used")
        text = f"{self.title}: " + ", ".join(parts) + "."
        if self.skills_to_review:
            text += f" Worth reviewing: {', '.join(self.skills_to_review)}."
        return text


@dataclass(frozen=True, slots=True)
class Completed:
    summary: ExerciseSummary


@dataclass(frozen=True, slots=True)
class Ended:
    """The exercise stopped before its last step: quit or expired."""

    status: Status
    summary: ExerciseSummary


class InvalidReason(StrEnum):
    NOT_STARTED = "not_started"
    ALREADY_STARTED = "already_started"
    FINISHED = "finished"
    EXERCISE_CHANGED = "exercise_changed"


@dataclass(frozen=True, slots=True)
class Invalid:
    """The event does not apply in this state; `message` is worded for the student."""

    reason: InvalidReason
    message: str


Effect = (
    ShowStep
    | ShowHint
    | Feedback
    | ShowSolution
    | CompareWith
    | RecordMistake
    | Completed
    | Ended
    | Invalid
)


@dataclass(frozen=True, slots=True)
class Transition:
    state: ExerciseState
    effects: tuple[Effect, ...]

    @property
    def invalid(self) -> Invalid | None:
        return next((effect for effect in self.effects if isinstance(effect, Invalid)), None)


# The machine -----------------------------------------------------------------------------


def transition(
    state: ExerciseState,
    event: Event,
    definition: ExerciseDefinition,
    grade: GradeResult | None,
) -> Transition:
    """The next state and effects. `grade` is the caller's grade of an `Attempt` to the current
    step (`current_step(state, definition)`); it is ignored for other events. Raises
    ValueError only for caller mistakes: a definition with another id, or an `Attempt` that
    should have been graded and was not."""
    if definition.id != state.exercise_id:
        raise ValueError(f"state is for '{state.exercise_id}', definition is '{definition.id}'")
    if state.status.finished:
        return _invalid(state, InvalidReason.FINISHED, _FINISHED_MESSAGE[state.status])
    if isinstance(event, Quit | Expire):
        return _end(state, event, definition)
    if state.fingerprint != definition.fingerprint():
        return _invalid(
            state,
            InvalidReason.EXERCISE_CHANGED,
            "This exercise was changed by the instructor since you started it; "
            "please start it again.",
        )
    if state.status is Status.NOT_STARTED:
        if isinstance(event, Start):
            started = state.model_copy(
                update={
                    "status": Status.IN_PROGRESS,
                    "started_at": event.at,
                    "updated_at": event.at,
                }
            )
            return Transition(_log(started, event, "start"), (ShowStep(0),))
        return _invalid(state, InvalidReason.NOT_STARTED, "This exercise has not started yet.")
    if isinstance(event, Start):
        return _invalid(
            state,
            InvalidReason.ALREADY_STARTED,
            f"You are already on step {state.step_index + 1} of this exercise.",
        )
    step = definition.steps[state.step_index]
    if isinstance(event, Hint):
        return _hint(state, event, step)
    if isinstance(event, Skip):
        return _skip(state, event, definition, step)
    if grade is None:
        raise ValueError("an Attempt must be graded before the transition")
    return _answer(state, event, definition, step, grade)


def current_step(state: ExerciseState, definition: ExerciseDefinition) -> Step | None:
    """The step an answer would be graded against, or None when no answer is expected."""
    if state.status is not Status.IN_PROGRESS or state.fingerprint != definition.fingerprint():
        return None
    if not 0 <= state.step_index < definition.step_count:
        return None
    return definition.steps[state.step_index]


_FINISHED_MESSAGE = {
    Status.COMPLETED: "This exercise is already completed. Start it again to have another go.",
    Status.QUIT: "You left this exercise. Start it again to have another go.",
    Status.EXPIRED: "This exercise expired after a long pause. Start it again to have another go.",
}


def _answer(
    state: ExerciseState,
    event: Attempt,
    definition: ExerciseDefinition,
    step: Step,
    grade: GradeResult,
) -> Transition:
    logged = _log(state, event, "answer", answer=event.text, correct=grade.correct)
    if grade.correct:
        return _advance(
            logged, event, definition, StepOutcome.SOLVED, (Feedback(grade.detail, True),)
        )
    if grade.undecided:
        compared: tuple[Effect, ...] = (
            Feedback(grade.detail),
            CompareWith(state.step_index, step.answer.expected_text()),
        )
        return _advance(logged, event, definition, StepOutcome.COMPARED, compared)
    attempts = state.attempts + 1
    number = min(max(attempts, state.hints_shown + 1), len(step.hints))
    wrong = logged.model_copy(
        update={
            "attempts": attempts,
            "hints_shown": max(state.hints_shown, number),
            "updated_at": event.at,
        }
    )
    effects: tuple[Effect, ...] = (
        Feedback(grade.detail, False),
        RecordMistake(state.step_index, step.skill, event.text, grade.detail),
        _show_hint(state.step_index, step, number),
    )
    return Transition(wrong, effects)


def _hint(state: ExerciseState, event: Hint, step: Step) -> Transition:
    number = min(state.hints_shown + 1, len(step.hints))
    hinted = _log(state, event, "hint").model_copy(
        update={"hints_shown": number, "updated_at": event.at}
    )
    return Transition(hinted, (_show_hint(state.step_index, step, number),))


def _skip(
    state: ExerciseState, event: Skip, definition: ExerciseDefinition, step: Step
) -> Transition:
    solution = step.solution or f"The expected answer was: {step.answer.expected_text()}"
    effects: tuple[Effect, ...] = (
        Feedback(f"Step {state.step_index + 1} skipped."),
        ShowSolution(state.step_index, solution),
    )
    return _advance(_log(state, event, "skip"), event, definition, StepOutcome.SKIPPED, effects)


def _advance(
    state: ExerciseState,
    event: Attempt | Skip,
    definition: ExerciseDefinition,
    outcome: StepOutcome,
    effects: tuple[Effect, ...],
) -> Transition:
    record = StepRecord(
        step_index=state.step_index,
        outcome=outcome,
        wrong_attempts=state.attempts,
        hints_shown=state.hints_shown,
    )
    following = state.step_index + 1
    done = following >= definition.step_count
    moved = state.model_copy(
        update={
            "status": Status.COMPLETED if done else Status.IN_PROGRESS,
            "step_index": state.step_index if done else following,
            "attempts": 0,
            "hints_shown": 0,
            "finished": (*state.finished, record),
            "updated_at": event.at,
        }
    )
    if done:
        return Transition(moved, (*effects, Completed(summarise(moved, definition))))
    return Transition(moved, (*effects, ShowStep(following)))


def _end(state: ExerciseState, event: Quit | Expire, definition: ExerciseDefinition) -> Transition:
    status = Status.QUIT if isinstance(event, Quit) else Status.EXPIRED
    ended = _log(state, event, status.value).model_copy(
        update={"status": status, "updated_at": event.at}
    )
    return Transition(ended, (Ended(status, summarise(ended, definition)),))


def summarise(state: ExerciseState, definition: ExerciseDefinition) -> ExerciseSummary:
    solved = [r for r in state.finished if r.outcome is StepOutcome.SOLVED]
    skipped = [r for r in state.finished if r.outcome is StepOutcome.SKIPPED]
    compared = sum(1 for r in state.finished if r.outcome is StepOutcome.COMPARED)
    wrong = sum(r.wrong_attempts for r in state.finished)
    hints = sum(r.hints_shown for r in state.finished)
    struggled = [
        r.step_index for r in state.finished if r.wrong_attempts or r.outcome is StepOutcome.SKIPPED
    ]
    if state.status is not Status.COMPLETED and (state.attempts or state.hints_shown):
        wrong += state.attempts
        hints += state.hints_shown
        if state.attempts:
            struggled.append(state.step_index)
    skills = [definition.steps[i].skill for i in struggled if i < definition.step_count]
    return ExerciseSummary(
        exercise_id=definition.id,
        title=definition.title,
        status=state.status,
        step_count=definition.step_count,
        solved=len(solved),
        solved_first_try=sum(1 for r in solved if r.wrong_attempts == 0),
        skipped=len(skipped),
        compared=compared,
        wrong_attempts=wrong,
        hints_used=hints,
        skills_to_review=tuple(dict.fromkeys(skills)),
        duration_s=max(0.0, (state.updated_at - state.started_at).total_seconds()),
    )


def _show_hint(step_index: int, step: Step, number: int) -> ShowHint:
    return ShowHint(step_index, number, step.hints[number - 1], last=number == len(step.hints))


def _invalid(state: ExerciseState, reason: InvalidReason, message: str) -> Transition:
    return Transition(state, (Invalid(reason, message),))


def _log(
    state: ExerciseState,
    event: Event,
    name: str,
    *,
    answer: str | None = None,
    correct: bool | None = None,
) -> ExerciseState:
    entry = HistoryEntry(
        at=event.at,
        event=name,
        step_index=state.step_index,
        answer=answer[:MAX_RECORDED_ANSWER_CHARS] if answer is not None else None,
        correct=correct,
    )
    history = (*state.history, entry)[-MAX_HISTORY:]
    return state.model_copy(update={"history": history, "updated_at": event.at})
