"""Exercise files: the sample course's files parse, and every kind of broken file is refused
with the file name, the right line and a reason an instructor can act on."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.paths import SAMPLE_COURSE

from core.errors import UserFacingError
from core.exercises import (
    ChoiceAnswer,
    ExerciseFormatError,
    FreeTextAnswer,
    NumericAnswer,
    SymbolicAnswer,
    load_exercise_folder,
    parse_exercise,
)

EXERCISES = SAMPLE_COURSE / "exercises"
NAME = "calc.exercise.yaml"

VALID = """\
id: calc
title: Two small steps
topic: Limits
skills: [arithmetic, limits]
steps:
  - prompt: What is 2 + 4?
    skill: arithmetic
    hints: [Add the two numbers.]
    answer:
      kind: numeric
      value: 6
  - prompt: Which form does (x^2 - 9)/(x - 3) take at x = 3?
    skill: limits
    hints:
      - Work out the numerator and the denominator separately.
    answer:
      kind: choice
      options: [Yes, No, 0/0]
      correct: C
"""


def line_of(text: str, snippet: str) -> int:
    """The 1-based number of the first line containing `snippet`."""
    for number, line in enumerate(text.splitlines(), start=1):
        if snippet in line:
            return number
    raise AssertionError(f"{snippet!r} not in the text")


def refused(text: str) -> ExerciseFormatError:
    with pytest.raises(ExerciseFormatError) as caught:
        parse_exercise(text, NAME)
    return caught.value


def test_sample_course_exercises_parse() -> None:
    definitions, errors = load_exercise_folder(EXERCISES)
    assert errors == []
    by_id = {definition.id: definition for definition in definitions}
    assert set(by_id) == {
        "derivative-product-rule",
        "limits-basics",
        "power-rule-drill",
        "limit-difference-of-squares",
    }

    product = by_id["derivative-product-rule"]
    assert [type(step.answer) for step in product.steps] == [
        SymbolicAnswer,
        SymbolicAnswer,
        SymbolicAnswer,
        NumericAnswer,
    ]
    assert {step.skill for step in product.steps} <= set(product.skills)

    limits = by_id["limits-basics"]
    assert [type(step.answer) for step in limits.steps] == [
        ChoiceAnswer,
        FreeTextAnswer,
        NumericAnswer,
    ]
    assert all(step.hints for step in limits.steps)


def test_sample_files_parse_by_text_too() -> None:
    path = EXERCISES / "limits-basics.exercise.yaml"
    definition = parse_exercise(path.read_text(encoding="utf-8"), path.name)
    assert definition.title == "A limit of the form 0/0"


def test_valid_file_keeps_yes_and_no_as_text_and_reads_letters() -> None:
    definition = parse_exercise(VALID, NAME)
    answer = definition.steps[1].answer
    assert isinstance(answer, ChoiceAnswer)
    assert answer.options == ("Yes", "No", "0/0")
    assert answer.correct == (2,)


def test_yaml_syntax_error_names_file_and_line() -> None:
    text = VALID.replace("title: Two small steps", "title: [Two small steps")
    error = refused(text)
    assert str(error).startswith(f"{NAME} line ")
    assert "YAML syntax error" in str(error)
    assert error.line in (line_of(text, "title:"), line_of(text, "topic:"))


def test_bad_indentation_is_a_syntax_error_on_its_line() -> None:
    text = VALID.replace("title: Two", " title: Two")
    error = refused(text)
    assert error.line == line_of(text, "title: Two")
    assert "YAML syntax error" in str(error)


def test_unknown_kind_is_named_with_the_expected_kinds() -> None:
    text = VALID.replace("kind: choice", "kind: numerc")
    error = refused(text)
    line = line_of(text, "kind: numerc")
    assert str(error) == (
        f"{NAME} line {line}: steps[1].answer.kind: unknown kind 'numerc' "
        "(expected numeric, symbolic, choice, free_text)"
    )


def test_missing_kind_is_reported() -> None:
    text = VALID.replace("      kind: numeric\n", "")
    error = refused(text)
    assert error.line == line_of(text, "answer:")
    assert "steps[0].answer.kind: this field is required" in str(error)


def test_missing_prompt_points_at_its_step() -> None:
    text = VALID.replace(
        "  - prompt: Which form does (x^2 - 9)/(x - 3) take at x = 3?\n    skill", "  - skill"
    )
    error = refused(text)
    line = line_of(text, "- skill: limits")
    assert str(error) == f"{NAME} line {line}: steps[1].prompt: this field is required"


def test_step_skill_must_be_one_of_the_exercise_skills() -> None:
    text = VALID.replace("skill: limits", "skill: continuity")
    error = refused(text)
    assert error.line == line_of(text, "skill: continuity")
    assert (
        "steps[1].skill: 'continuity' is not one of the exercise's skills (arithmetic, limits)"
        in str(error)
    )


@pytest.mark.parametrize(
    ("replace", "by", "hint_line"),
    [
        (
            "hints: [Add the two numbers.]",
            "hints: [Add the two numbers., It makes 6.]",
            "It makes 6.",
        ),
        (
            "      - Work out the numerator and the denominator separately.",
            "      - Work out the numerator and the denominator separately.\n"
            "      - You get 0/0 here.",
            "You get 0/0",
        ),
    ],
    ids=["numeric", "choice"],
)
def test_hint_revealing_the_answer_is_refused(replace: str, by: str, hint_line: str) -> None:
    text = VALID.replace(replace, by)
    error = refused(text)
    assert error.line == line_of(text, hint_line)
    assert "hints[1]: the hint contains the expected answer" in str(error)


def test_hint_revealing_a_symbolic_answer_is_refused() -> None:
    text = VALID.replace(
        "      kind: numeric\n      value: 6",
        "      kind: symbolic\n      expression: 2x + 2",
    ).replace("hints: [Add the two numbers.]", "hints:\n      - The derivative is 2*x + 2.")
    error = refused(text)
    assert error.line == line_of(text, "The derivative is")
    assert "steps[0].hints[0]: the hint contains the expected answer" in str(error)


def test_hint_may_use_the_expression_inside_a_larger_one() -> None:
    text = VALID.replace(
        "      kind: numeric\n      value: 6",
        "      kind: symbolic\n      expression: 2x",
    ).replace("hints: [Add the two numbers.]", "hints: ['Compare with 2x^2 and 2x sin(x).']")
    assert parse_exercise(text, NAME).steps[0].hints == ("Compare with 2x^2 and 2x sin(x).",)


def test_unknown_field_suggests_the_right_one() -> None:
    text = VALID.replace("    hints: [Add", "    hint: [Add")
    error = refused(text)
    problem = next(p for p in error.problems if p.field == "steps[0].hint")
    assert problem.line == line_of(text, "hint: [Add")
    assert problem.reason == "unknown field (did you mean 'hints'?)"
    assert "steps[0].hints: this field is required" in str(error)


def test_repeated_field_is_refused_on_its_second_line() -> None:
    text = VALID.replace("topic: Limits\n", "topic: Limits\ntopic: Derivatives\n")
    error = refused(text)
    assert error.line == line_of(text, "topic: Derivatives")
    assert "the field 'topic' appears twice" in str(error)


def test_unreadable_expected_expression_is_refused() -> None:
    text = VALID.replace(
        "      kind: numeric\n      value: 6",
        "      kind: symbolic\n      expression: 2x +* 2",
    )
    error = refused(text)
    assert error.line == line_of(text, "expression: 2x")
    assert "steps[0].answer.expression: cannot read '2x +* 2'" in str(error)


def test_choice_index_out_of_range_is_refused() -> None:
    text = VALID.replace("correct: C", "correct: 3")
    error = refused(text)
    assert error.line == line_of(text, "correct: 3")
    assert "indices count from 0" in str(error)


def test_min_keywords_above_the_keyword_count_is_refused() -> None:
    text = VALID.replace(
        "      kind: numeric\n      value: 6",
        "      kind: free_text\n      model_answer: Add them.\n      rubric: [adds]\n"
        "      keywords: [add, [sum, total]]\n      min_keywords: 3",
    )
    error = refused(text)
    assert error.line == line_of(text, "min_keywords: 3")
    assert "is 3, but there are only 2 keywords" in str(error)


def test_every_problem_is_listed_in_line_order() -> None:
    text = VALID.replace("id: calc", "id: Calc Exercise").replace("value: 6", "value: six")
    error = refused(text)
    lines = [problem.line for problem in error.problems]
    assert lines == [line_of(text, "id: Calc"), line_of(text, "value: six")]
    assert len(str(error).splitlines()) == 2


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("", "the file is empty"),
        ("- a\n- b\n", "must be a mapping of fields"),
        ("id: &x calc\ntitle: *x\n", "anchors and aliases"),
    ],
    ids=["empty", "list", "alias"],
)
def test_files_of_the_wrong_shape_are_refused(text: str, reason: str) -> None:
    error = refused(text)
    assert reason in str(error)
    assert error.line is not None


def test_format_error_is_a_user_facing_error() -> None:
    assert isinstance(refused(""), UserFacingError)


def test_folder_reports_bad_files_and_repeated_ids(tmp_path: Path) -> None:
    (tmp_path / "a.exercise.yaml").write_text(VALID, encoding="utf-8")
    (tmp_path / "b.exercise.yaml").write_text(VALID, encoding="utf-8")
    (tmp_path / "c.exercise.yaml").write_text("id: [", encoding="utf-8")
    (tmp_path / "notes.md").write_text("# not an exercise", encoding="utf-8")
    definitions, errors = load_exercise_folder(tmp_path)
    assert [definition.id for definition in definitions] == ["calc"]
    messages = [str(error) for error in errors]
    assert any(
        m.startswith("b.exercise.yaml") and "already used by a.exercise.yaml" in m for m in messages
    )
    assert any(m.startswith("c.exercise.yaml line 1") for m in messages)
