"""Parametric exercises: `parameters:` blocks, placeholders, instances and their checks."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.paths import SAMPLE_COURSE

from core.exercises import ExerciseFormatError, Grader, draw_instance, parse_exercise
from core.exercises.parameters import instance_seed, split_instance_id

POWER = (Path(SAMPLE_COURSE) / "exercises" / "power-rule-drill.exercise.yaml").read_text("utf-8")
LIMIT = (Path(SAMPLE_COURSE) / "exercises" / "limit-difference-of-squares.exercise.yaml").read_text(
    "utf-8"
)


def refused(text: str) -> str:
    with pytest.raises(ExerciseFormatError) as caught:
        parse_exercise(text, "p.exercise.yaml")
    return str(caught.value)


def test_instances_differ_by_seed_and_keep_a_slug_id() -> None:
    base = parse_exercise(POWER, "power-rule-drill.exercise.yaml")
    assert base.parametric and base.id == "power-rule-drill"
    one, two = draw_instance(base, 5), draw_instance(base, 123456)
    assert one.id == "power-rule-drill-v00000005"
    assert split_instance_id(two.id) == ("power-rule-drill", 123456)
    assert one.description != two.description
    assert draw_instance(base, 5) == one


@pytest.mark.parametrize("source", [POWER, LIMIT])
async def test_three_students_get_three_instances_each_graded_right(source: str) -> None:
    base = parse_exercise(source, "x.exercise.yaml")
    instances = [
        draw_instance(base, instance_seed("math101", user, base.id, 1))
        for user in ("ann", "dan", "eve")  # with 11 values for a, some students share one
    ]
    assert len({i.description for i in instances}) == 3
    grader = Grader()
    try:
        for instance in instances:
            for step in instance.steps:
                expected = step.answer.expected_text()
                if step.answer.kind == "choice":
                    expected = "B"
                assert (await grader.grade(step, expected)).correct, (instance.id, expected)
                assert not any(step.answer.revealed_by(hint) for hint in step.hints)
    finally:
        await grader.close()


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ("{integer: [2, 9]}", "{integr: [2, 9]}", "line 9: parameters.a.integr: unknown kind"),
        ("{integer: [2, 9]}", "{integer: [9, 2]}", "LOW (9) is greater than HIGH (2)"),
        ('x^{{n}}?"', 'x^{{k}}?"', "steps[0].prompt: the placeholder {{k}} names no parameter"),
        ('"n - 1"', '"n - $"', "parameters.m.value: cannot read 'n - $'"),
        ('"n - 1"', '"n - q"', "uses q, which is not a number parameter"),
        (
            "Every power of x is worth one at x = 1, so only the coefficient is left.",
            "It is {{c}}.",
            "with a=2, n=3, m=2, c=6: steps[1].hints[0]: the hint contains the expected answer",
        ),
    ],
)
def test_broken_parameters_are_refused_with_line_and_reason(
    old: str, new: str, message: str
) -> None:
    assert old in POWER
    assert message in refused(POWER.replace(old, new, 1))


def test_seed_depends_on_course_student_exercise_and_attempt() -> None:
    seeds = {
        instance_seed(*args)
        for args in [
            ("c", "ann", "e", 1),
            ("c", "ann", "e", 2),
            ("c", "bob", "e", 1),
            ("d", "ann", "e", 1),
        ]
    }
    assert len(seeds) == 4
    assert instance_seed("c", "ann", "e", 1) == instance_seed("c", "ann", "e", 1)
