"""Verification of model-written exercises, without a model: each rule catches what it is
for, and a draft that passes becomes an exercise the grader accepts its own answers to."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from core.exercises import Grader
from core.generation.exercise_draft import ExerciseDraft, verify_draft

BASE: dict[str, Any] = {
    "title": "Free fall",
    "statement": "A stone falls from rest; g = 9.8 m/s^2 and t = 3 s. Find v, then s(t).",
    "given": [{"name": "g", "value": "9.8"}, {"name": "t", "value": "3"}],
    "steps": [
        {"prompt": "Speed after t seconds?", "kind": "numeric", "answer": "29.4",
         "check": "g*t", "hints": ["v = g t"], "skill": "kinematics"},
        {"prompt": "Distance as a function of time T?", "kind": "symbolic",
         "answer": "4.9*T^2", "check": "integrate(g*T, T)", "variables": ["T"],
         "hints": ["Integrate the speed."], "skill": "integration"},
    ],
    "solution": "v = 9.8 * 3 = 29.4; s = 4.9 T^2.",
    "final_answer": "49/10*T^2",
    "skills": ["kinematics", "integration"],
    "sources": [2],
}  # fmt: skip


def draft(edit: Any = None) -> ExerciseDraft:
    data = copy.deepcopy(BASE)
    if edit:
        edit(data)
    return ExerciseDraft.model_validate(data)


async def test_a_consistent_draft_passes_and_its_answers_grade_right() -> None:
    verdict = verify_draft(draft(), passages=3)
    assert verdict.passed, verdict.problems
    assert verdict.definition is not None
    grader = Grader()
    try:
        for step, answer in zip(verdict.definition.steps, ["29.4", "4.9T^2"], strict=True):
            assert (await grader.grade(step, answer)).correct
        assert not (await grader.grade(verdict.definition.steps[0], "29.5")).correct
    finally:
        await grader.close()


@pytest.mark.parametrize(
    ("edit", "problem"),
    [
        (lambda d: d["steps"][0].update(answer="30"), "disagrees with its own data"),
        (lambda d: d["steps"][1].update(answer="9.8*T^2"), "disagrees with its own data"),
        (lambda d: d["steps"][0].update(check="29.4"), "from the given names"),
        (lambda d: d["steps"][0].update(check="g*t*q"), "leaves q unknown"),
        (lambda d: d["steps"][0].update(check="exec('1')"), "unreadable"),
        (lambda d: d["steps"][0].update(check="g.__class__"), "unreadable"),
        (lambda d: d.update(final_answer="5*T^2"), "not the last step's answer"),
        (lambda d: d["steps"][0].update(hints=["It is 29.4 m/s."]), "hint contains"),
        (lambda d: d["steps"][0].update(skill="optics"), "not one of `skills`"),
        (lambda d: d.update(sources=[7]), "passages that do not exist"),
        (lambda d: d.update(sources=[]), "must list the passages"),
        (lambda d: d["given"].append({"name": "sin", "value": "1"}), "not a function"),
        (lambda d: d.update(steps=d["steps"] * 4), "1 to 6 steps"),
        (lambda d: d["steps"][0].update(check="g/(t-3)"), "no finite value"),
    ],
)
def test_each_rule_catches_its_problem(edit: Any, problem: str) -> None:
    verdict = verify_draft(draft(edit), passages=3)
    assert not verdict.passed and verdict.definition is None
    assert any(problem in found for found in verdict.problems), verdict.problems
