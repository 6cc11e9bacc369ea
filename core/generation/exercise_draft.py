"""A model-written exercise as it arrives (`ExerciseDraft`), and its verification: nothing a
model wrote reaches a student until every step's answer has been recomputed from the
exercise's own data.

Each step carries a `check`, a sympy expression over the names in `given` (read by the safe
reader of `core.exercises.expressions`, never `eval`ed as Python). The check with the given
values substituted must equal the stated answer; the final answer must equal the last step's;
the hints must not give their step's answer away (the exercise format's own hint rule). What
passes becomes an ordinary `ExerciseDefinition`, so the guided-exercise machine, grader and
mistake log run it like any course exercise.

`verify_draft` is CPU work that sympy can make long (an `integrate`): callers run it in the
killable process pool (`core.exercises.process_pool`) with a timeout."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any, Literal

import sympy
from pydantic import BaseModel, Field, ValidationError

from core.exercises.definitions import DefinitionError, ExerciseDefinition
from core.exercises.expressions import (
    CALCULUS_NAMES,
    KNOWN_NAMES,
    UnreadableExpression,
    compare,
    read_expression,
    symbol_names,
)

MAX_STEPS = 6
MAX_HINTS = 3
MAX_GIVEN = 12
MAX_SKILLS = 5
MAX_STATEMENT_CHARS = 2000
MAX_SOLUTION_CHARS = 4000
_NAME = re.compile(r"[A-Za-z][A-Za-z0-9]{0,11}")
_RELATIVE_TOLERANCE = 1e-6


class DraftValue(BaseModel):
    name: str
    value: str
    meaning: str = ""


class DraftStep(BaseModel):
    prompt: str
    kind: Literal["numeric", "symbolic"]
    answer: str
    check: str
    # Free variables of a symbolic answer (x in 12*x^3); numeric answers have none.
    variables: list[str] = Field(default_factory=list)
    hints: list[str]
    skill: str


class ExerciseDraft(BaseModel):
    title: str
    statement: str
    given: list[DraftValue]
    steps: list[DraftStep]
    solution: str
    final_answer: str
    skills: list[str]
    sources: list[int] = Field(default_factory=list)


@dataclass(frozen=True, slots=True)
class Verdict:
    """What verification found: the problems (empty when the draft passed) and, when it
    passed, the exercise as the state machine runs it."""

    problems: tuple[str, ...]
    definition: ExerciseDefinition | None = None

    @property
    def passed(self) -> bool:
        return not self.problems


def shape_problems(draft: ExerciseDraft, passages: int) -> list[str]:
    """Counts, lengths and references, checked in code (a schema's limits are not trusted).
    Cheap: the structured layer runs it on every reply and re-asks on what it finds."""
    problems: list[str] = []
    if not draft.title.strip() or not draft.statement.strip():
        problems.append("the title and the statement must not be empty")
    if len(draft.statement) > MAX_STATEMENT_CHARS:
        problems.append(f"the statement is longer than {MAX_STATEMENT_CHARS} characters")
    if len(draft.solution) > MAX_SOLUTION_CHARS:
        problems.append(f"the solution is longer than {MAX_SOLUTION_CHARS} characters")
    if not draft.solution.strip():
        problems.append("the worked solution is empty")
    if not 1 <= len(draft.steps) <= MAX_STEPS:
        problems.append(f"there must be 1 to {MAX_STEPS} steps, not {len(draft.steps)}")
    if not 1 <= len(draft.skills) <= MAX_SKILLS:
        problems.append(f"there must be 1 to {MAX_SKILLS} skills, not {len(draft.skills)}")
    if len(draft.given) > MAX_GIVEN:
        problems.append(f"at most {MAX_GIVEN} given values, not {len(draft.given)}")
    names = [value.name for value in draft.given]
    for name in names:
        if not _NAME.fullmatch(name) or name in KNOWN_NAMES or name in CALCULUS_NAMES:
            problems.append(f"the given name '{name}' must be letters and digits, not a function")
    if len(set(names)) != len(names):
        problems.append("two given values share a name")
    for number, step in enumerate(draft.steps, 1):
        if not 1 <= len(step.hints) <= MAX_HINTS:
            problems.append(f"step {number} must have 1 to {MAX_HINTS} hints")
        if step.skill not in draft.skills:
            problems.append(f"step {number}'s skill '{step.skill}' is not one of `skills`")
        if not step.prompt.strip() or not step.check.strip() or not step.answer.strip():
            problems.append(f"step {number} needs a prompt, an answer and a check")
    if passages:
        wrong = [n for n in draft.sources if not 1 <= n <= passages]
        if not draft.sources:
            problems.append("`sources` must list the passages the exercise follows")
        elif wrong:
            problems.append(f"`sources` names passages that do not exist: {wrong}")
    return problems


def verify_draft(draft: ExerciseDraft, passages: int) -> Verdict:
    """The draft's answers recomputed from its data; see the module doc."""
    problems = shape_problems(draft, passages)
    if problems:
        return Verdict(tuple(problems))
    variables = sorted({v for step in draft.steps for v in step.variables})
    names = [value.name for value in draft.given]
    values: dict[sympy.Symbol, sympy.Expr] = {}
    for given in draft.given:
        try:
            values[sympy.Symbol(given.name)] = read_expression(given.value, variables)
        except UnreadableExpression as error:
            problems.append(
                f"the given value {given.name} = {given.value!r} is unreadable: {error}"
            )
    if problems:
        return Verdict(tuple(problems))
    answers: list[sympy.Expr] = []
    for number, step in enumerate(draft.steps, 1):
        found = _step_problem(number, step, names, values)
        if isinstance(found, str):
            problems.append(found)
        else:
            answers.append(found)
    if problems:
        return Verdict(tuple(problems))
    final = _final_problem(draft, answers[-1])
    if final:
        return Verdict((final,))
    try:
        definition = _definition(draft, answers)
    except ValidationError as error:
        return Verdict(tuple(_validation_problems(error)))
    return Verdict((), definition)


def _step_problem(
    number: int, step: DraftStep, names: list[str], values: dict[sympy.Symbol, sympy.Expr]
) -> sympy.Expr | str:
    """The step's verified answer, or what is wrong with it."""
    try:
        check = read_expression(step.check, [*names, *step.variables], calculus=True)
    except UnreadableExpression as error:
        return f"step {number}'s check {step.check!r} is unreadable: {error}"
    if names and not symbol_names(check) & set(names):
        return f"step {number}'s check must compute the answer from the given names"
    try:
        recomputed = sympy.simplify(check.subs(values).doit())
        stated = read_expression(step.answer, step.variables)
    except UnreadableExpression as error:
        return f"step {number}'s answer {step.answer!r} is unreadable: {error}"
    except (TypeError, ValueError, NotImplementedError, RecursionError):
        return f"step {number}'s check {step.check!r} could not be evaluated"
    if recomputed.has(sympy.nan, sympy.zoo, sympy.oo, -sympy.oo):
        return f"step {number}'s check gives no finite value"
    extra = symbol_names(recomputed) - set(step.variables)
    if extra:
        return f"step {number}'s check leaves {', '.join(sorted(extra))} unknown"
    if step.kind == "numeric":
        if recomputed.free_symbols or stated.free_symbols:
            return f"step {number} is numeric but its answer or check is not a number"
        if not _numbers_agree(recomputed, stated):
            return (
                f"step {number}'s stated answer {step.answer} disagrees with its own data: "
                f"the check gives {_shown(recomputed)}"
            )
        return recomputed
    if not compare(recomputed, stated).equivalent:
        return (
            f"step {number}'s stated answer {step.answer} disagrees with its own data: the "
            f"check gives {_shown(recomputed)}"
        )
    return stated


def _final_problem(draft: ExerciseDraft, last: sympy.Expr) -> str:
    variables = draft.steps[-1].variables
    try:
        final = read_expression(draft.final_answer, variables)
    except UnreadableExpression:
        return "`final_answer` must be the last step's answer written plainly"
    if last.free_symbols or final.free_symbols:
        agrees = compare(last, final).equivalent
    else:
        agrees = _numbers_agree(last, final)
    return "" if agrees else "`final_answer` is not the last step's answer"


def _numbers_agree(a: sympy.Expr, b: sympy.Expr) -> bool:
    try:
        x, y = complex(a.evalf(30)), complex(b.evalf(30))
    except (TypeError, ValueError):
        return False
    if abs(x.imag) > 1e-12 or abs(y.imag) > 1e-12 or not math.isfinite(x.real):
        return False
    return math.isclose(x.real, y.real, rel_tol=_RELATIVE_TOLERANCE, abs_tol=1e-9)


def _shown(value: sympy.Expr) -> str:
    if value.free_symbols:
        return str(value).replace("**", "^")
    number = float(value.evalf(15))
    return f"{number:g}"


def _definition(draft: ExerciseDraft, answers: list[sympy.Expr]) -> ExerciseDefinition:
    """The exercise as a course exercise (placeholder id; the store's id replaces it)."""
    steps: list[dict[str, Any]] = []
    for step, answer in zip(draft.steps, answers, strict=True):
        if step.kind == "numeric":
            expected: dict[str, Any] = {
                "kind": "numeric",
                "value": float(answer.evalf(15)),
                "tolerance": 1e-9,
                "relative_tolerance": 1e-4,
            }
        else:
            expected = {
                "kind": "symbolic",
                "expression": step.answer.strip(),
                "variables": list(step.variables) or None,
            }
        steps.append(
            {"prompt": step.prompt, "skill": step.skill, "hints": step.hints, "answer": expected}
        )
    return ExerciseDefinition.model_validate(
        {
            "id": "generated",
            "title": draft.title,
            "topic": draft.title,
            "skills": draft.skills,
            "description": draft.statement,
            "steps": steps,
        }
    )


def _validation_problems(error: ValidationError) -> list[str]:
    problems = []
    for item in error.errors():
        location = ".".join(str(part) for part in item["loc"])
        cause = item.get("ctx", {}).get("error")
        message = str(cause) if isinstance(cause, DefinitionError) else item["msg"]
        problems.append(f"{location}: {message}".replace("Value error, ", ""))
    return problems
