"""The guided-exercise state machine: every transition, hint escalation, skip, quit, expiry,
events that do not apply, the completion summary, and the state's JSON round trip."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest

from core.exercises import (
    Attempt,
    CompareWith,
    Completed,
    Ended,
    ExerciseDefinition,
    ExerciseState,
    Expire,
    Feedback,
    GradeResult,
    Hint,
    Invalid,
    InvalidReason,
    Quit,
    RecordMistake,
    ShowHint,
    ShowSolution,
    ShowStep,
    Skip,
    Start,
    Status,
    Transition,
    current_step,
    transition,
)

T0 = datetime(2026, 10, 12, 10, 0, tzinfo=UTC)
RIGHT = GradeResult(True, "Correct.")
WRONG = GradeResult(False, "Not quite: that number is not right.")

DEFINITION = ExerciseDefinition.model_validate(
    {
        "id": "limits-basics",
        "title": "A limit of the form 0/0",
        "topic": "Limits",
        "skills": ["substitution", "simplification", "limits"],
        "steps": [
            {
                "prompt": "Substitute x = 3 into (x^2 - 9)/(x - 3).",
                "skill": "substitution",
                "hints": ["Work out the top and the bottom.", "Both are the same number."],
                "answer": {"kind": "choice", "options": ["0", "0/0", "9/0"], "correct": 1},
                "solution": "(9 - 9)/(3 - 3) = 0/0.",
            },
            {
                "prompt": "Explain how to simplify it.",
                "skill": "simplification",
                "hints": ["Factor the numerator.", "Difference of squares.", "Then cancel."],
                "answer": {
                    "kind": "free_text",
                    "model_answer": "Factor and cancel x - 3.",
                    "rubric": ["factors", "cancels"],
                    "keywords": ["factor", "cancel"],
                },
            },
            {
                "prompt": "Find the limit.",
                "skill": "limits",
                "hints": ["Substitute into x + 3."],
                "answer": {"kind": "numeric", "value": 6},
            },
        ],
    }
)


def at(minutes: float) -> datetime:
    return T0 + timedelta(minutes=minutes)


def started() -> ExerciseState:
    return transition(ExerciseState.new(DEFINITION, T0), Start(at(0)), DEFINITION, None).state


def run(state: ExerciseState, *steps: tuple[object, GradeResult | None]) -> Transition:
    result = Transition(state, ())
    for event, grade in steps:
        result = transition(result.state, event, DEFINITION, grade)  # type: ignore[arg-type]
    return result


def test_new_state_waits_for_start() -> None:
    state = ExerciseState.new(DEFINITION, T0)
    assert state.status is Status.NOT_STARTED
    assert state.exercise_id == "limits-basics"
    assert current_step(state, DEFINITION) is None


def test_start_shows_the_first_step() -> None:
    result = transition(ExerciseState.new(DEFINITION, at(-5)), Start(at(0)), DEFINITION, None)
    assert result.effects == (ShowStep(0),)
    assert result.state.status is Status.IN_PROGRESS
    assert result.state.step_index == 0
    assert result.state.started_at == at(0) == result.state.updated_at
    assert current_step(result.state, DEFINITION) == DEFINITION.steps[0]


def test_right_answer_moves_to_the_next_step() -> None:
    result = transition(started(), Attempt("B", at=at(1)), DEFINITION, RIGHT)
    assert result.effects == (Feedback("Correct.", True), ShowStep(1))
    assert result.state.step_index == 1
    assert result.state.attempts == 0
    assert result.state.updated_at == at(1)


def test_wrong_answer_counts_records_the_mistake_and_shows_the_first_hint() -> None:
    result = transition(started(), Attempt("A", at=at(1)), DEFINITION, WRONG)
    assert result.effects == (
        Feedback(WRONG.detail, False),
        RecordMistake(0, "substitution", "A", WRONG.detail),
        ShowHint(0, 1, "Work out the top and the bottom.", last=False),
    )
    assert result.state.step_index == 0
    assert result.state.attempts == 1
    assert result.state.hints_shown == 1


def test_hints_escalate_with_wrong_attempts_and_the_last_repeats() -> None:
    state = run(started(), (Attempt("A", at=at(1)), WRONG)).state
    second = transition(state, Attempt("C", at=at(2)), DEFINITION, WRONG)
    assert second.effects[-1] == ShowHint(0, 2, "Both are the same number.", last=True)
    third = transition(second.state, Attempt("A", at=at(3)), DEFINITION, WRONG)
    assert third.effects[-1] == ShowHint(0, 2, "Both are the same number.", last=True)
    assert third.state.attempts == 3
    assert third.state.hints_shown == 2


def test_requested_hints_escalate_and_do_not_count_as_attempts() -> None:
    state = run(started(), (Attempt("B", at=at(1)), RIGHT)).state
    first = transition(state, Hint(at(2)), DEFINITION, None)
    assert first.effects == (ShowHint(1, 1, "Factor the numerator.", last=False),)
    second = transition(first.state, Hint(at(3)), DEFINITION, None)
    assert second.effects == (ShowHint(1, 2, "Difference of squares.", last=False),)
    assert second.state.attempts == 0
    assert second.state.hints_shown == 2


def test_wrong_answer_after_a_requested_hint_shows_the_next_one() -> None:
    state = run(started(), (Hint(at(1)), None)).state
    result = transition(state, Attempt("A", at=at(2)), DEFINITION, WRONG)
    assert result.effects[-1] == ShowHint(0, 2, "Both are the same number.", last=True)


def test_asking_past_the_last_hint_repeats_it() -> None:
    state = run(started(), *[(Hint(at(i)), None) for i in range(1, 5)]).state
    result = transition(state, Hint(at(6)), DEFINITION, None)
    assert result.effects == (ShowHint(0, 2, "Both are the same number.", last=True),)
    assert result.state.hints_shown == 2


def test_skip_shows_the_solution_and_moves_on() -> None:
    result = transition(started(), Skip(at(1)), DEFINITION, None)
    assert result.effects == (
        Feedback("Step 1 skipped."),
        ShowSolution(0, "(9 - 9)/(3 - 3) = 0/0."),
        ShowStep(1),
    )
    assert result.state.step_index == 1


def test_skip_without_a_solution_shows_the_expected_answer() -> None:
    state = run(started(), (Skip(at(1)), None)).state
    result = transition(state, Skip(at(2)), DEFINITION, None)
    assert ShowSolution(1, "The expected answer was: Factor and cancel x - 3.") in result.effects


def test_an_undecided_answer_shows_the_model_answer_moves_on_and_logs_no_mistake() -> None:
    undecided = GradeResult(False, "I cannot tell whether that is right.", undecided=True)
    result = run(
        started(),
        (Attempt("B", at=at(1)), RIGHT),
        (Attempt("never factor, never cancel", at=at(2)), undecided),
    )
    assert result.effects == (
        Feedback(undecided.detail),
        CompareWith(1, "Factor and cancel x - 3."),
        ShowStep(2),
    )
    assert not any(isinstance(effect, RecordMistake) for effect in result.effects)
    done = run(result.state, (Attempt("6", at=at(3)), RIGHT)).effects[-1]
    assert isinstance(done, Completed)
    assert done.summary.compared == 1 and done.summary.solved == 2
    assert done.summary.skills_to_review == ()
    assert "1 compared with the model answer" in done.summary.describe()


def test_last_step_right_completes_with_a_summary() -> None:
    result = run(
        started(),
        (Attempt("A", at=at(1)), WRONG),
        (Attempt("B", at=at(2)), RIGHT),
        (Hint(at(3)), None),
        (Attempt("factor and cancel", at=at(4)), RIGHT),
        (Attempt("6", at=at(10)), RIGHT),
    )
    assert result.state.status is Status.COMPLETED
    assert result.effects[0] == Feedback("Correct.", True)
    completed = result.effects[-1]
    assert isinstance(completed, Completed)
    summary = completed.summary
    assert summary.status is Status.COMPLETED
    assert (summary.step_count, summary.solved, summary.solved_first_try, summary.skipped) == (
        3,
        3,
        2,
        0,
    )
    assert summary.wrong_attempts == 1
    assert summary.hints_used == 2
    assert summary.skills_to_review == ("substitution",)
    assert summary.duration_s == 600
    assert "3 of 3 steps solved" in summary.describe()
    assert current_step(result.state, DEFINITION) is None


def test_skipping_the_last_step_completes() -> None:
    result = run(started(), (Skip(at(1)), None), (Skip(at(2)), None), (Skip(at(3)), None))
    assert result.state.status is Status.COMPLETED
    summary = result.effects[-1].summary  # type: ignore[union-attr]
    assert (summary.solved, summary.skipped) == (0, 3)
    assert summary.skills_to_review == ("substitution", "simplification", "limits")


@pytest.mark.parametrize(
    ("event", "status"), [(Quit(at(5)), Status.QUIT), (Expire(at(90)), Status.EXPIRED)]
)
def test_quit_and_expire_end_with_a_partial_summary(event: object, status: Status) -> None:
    state = run(started(), (Attempt("B", at=at(1)), RIGHT), (Attempt("no", at=at(2)), WRONG)).state
    result = transition(state, event, DEFINITION, None)  # type: ignore[arg-type]
    assert result.state.status is status
    (ended,) = result.effects
    assert isinstance(ended, Ended)
    assert ended.status is status
    assert (ended.summary.solved, ended.summary.wrong_attempts) == (1, 1)
    assert ended.summary.skills_to_review == ("simplification",)


def test_quit_before_starting_is_allowed() -> None:
    result = transition(ExerciseState.new(DEFINITION, T0), Quit(at(1)), DEFINITION, None)
    assert result.state.status is Status.QUIT


@pytest.mark.parametrize(
    ("event", "reason"),
    [
        (Attempt("B", at=at(1)), InvalidReason.NOT_STARTED),
        (Hint(at(1)), InvalidReason.NOT_STARTED),
        (Skip(at(1)), InvalidReason.NOT_STARTED),
    ],
)
def test_events_before_start_are_invalid(event: object, reason: InvalidReason) -> None:
    state = ExerciseState.new(DEFINITION, T0)
    result = transition(state, event, DEFINITION, RIGHT)  # type: ignore[arg-type]
    assert result.state == state
    assert result.invalid is not None
    assert result.invalid.reason is reason
    assert result.effects == (result.invalid,)


def test_second_start_is_invalid() -> None:
    state = started()
    result = transition(state, Start(at(1)), DEFINITION, None)
    assert result.state == state
    assert result.effects == (
        Invalid(InvalidReason.ALREADY_STARTED, "You are already on step 1 of this exercise."),
    )


@pytest.mark.parametrize("ending", [Quit(at(1)), Expire(at(1)), "complete"])
@pytest.mark.parametrize(
    "event",
    [Attempt("6", at=at(9)), Hint(at(9)), Skip(at(9)), Start(at(9)), Quit(at(9)), Expire(at(9))],
)
def test_every_event_after_the_end_is_invalid(ending: object, event: object) -> None:
    if ending == "complete":
        state = run(started(), *[(Skip(at(i)), None) for i in range(1, 4)]).state
    else:
        state = transition(started(), ending, DEFINITION, None).state  # type: ignore[arg-type]
    result = transition(state, event, DEFINITION, None)  # type: ignore[arg-type]
    assert result.state == state
    assert result.invalid is not None
    assert result.invalid.reason is InvalidReason.FINISHED
    assert result.invalid.message


def test_a_changed_definition_invalidates_the_session_but_quit_still_works() -> None:
    state = started()
    changed = DEFINITION.model_copy(update={"title": "A renamed exercise"})
    result = transition(state, Attempt("B", at=at(1)), changed, RIGHT)
    assert result.invalid is not None
    assert result.invalid.reason is InvalidReason.EXERCISE_CHANGED
    assert current_step(state, changed) is None
    assert transition(state, Quit(at(2)), changed, None).state.status is Status.QUIT


def test_caller_mistakes_raise() -> None:
    with pytest.raises(ValueError, match="graded"):
        transition(started(), Attempt("B", at=at(1)), DEFINITION, None)
    other = DEFINITION.model_copy(update={"id": "other"})
    with pytest.raises(ValueError, match="other"):
        transition(started(), Hint(at(1)), other, None)


def test_grade_is_ignored_for_other_events() -> None:
    result = transition(started(), Hint(at(1)), DEFINITION, RIGHT)
    assert result.state.step_index == 0
    assert isinstance(result.effects[0], ShowHint)


def test_transition_does_not_change_its_input() -> None:
    state = started()
    before = state.to_json()
    transition(state, Attempt("A", at=at(1)), DEFINITION, WRONG)
    assert state.to_json() == before


def test_history_records_every_accepted_event() -> None:
    state = run(
        started(), (Attempt("A", at=at(1)), WRONG), (Hint(at(2)), None), (Skip(at(3)), None)
    ).state
    assert [(e.event, e.step_index, e.answer, e.correct) for e in state.history] == [
        ("start", 0, None, None),
        ("answer", 0, "A", False),
        ("hint", 0, None, None),
        ("skip", 0, None, None),
    ]


def test_state_round_trips_through_json() -> None:
    state = run(
        started(),
        (Attempt("A", at=at(1)), WRONG),
        (Attempt("B", at=at(2)), RIGHT),
        (Hint(at(3)), None),
    ).state
    text = state.to_json()
    assert json.loads(text)["status"] == "in_progress"
    restored = ExerciseState.from_json(text)
    assert restored == state
    assert restored.updated_at == at(3)
    follow = transition(restored, Attempt("factor and cancel", at=at(4)), DEFINITION, RIGHT)
    assert follow.effects[-1] == ShowStep(2)
