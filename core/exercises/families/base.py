"""What an exercise family is, and the pieces every family builds its steps from.

A family draws one exercise for a seed and a level. The levels differ in kind, not in the
size of the numbers: an easy product rule multiplies two polynomials, a hard one a
polynomial by an exponential or a sine of a multiple of x, whose derivative needs the chain
rule and a factorisation. Every stated answer is computed with sympy from the drawn data, and
the exercise is validated by the ordinary models (so the hint rule holds for each draw)."""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

import sympy

X = sympy.Symbol("x")
H = sympy.Symbol("h")

# A value a student may type with this much relative error, and still be right: the prompts
# ask for three decimals, or an exact form.
RELATIVE = 1e-3


class Level(StrEnum):
    EASY = "easy"
    MEDIUM = "medium"
    HARD = "hard"


@dataclass(frozen=True, slots=True)
class Built:
    """One draw of a family: the statement, the steps (as exercise-file data), the drawn data
    the answers were computed from (for checks), and the draw's shape in words."""

    statement: str
    steps: list[dict[str, Any]]
    given: Mapping[str, Any]
    shape: str
    title: str = ""


Builder = Callable[[random.Random, Level], Built]


@dataclass(frozen=True, slots=True)
class Family:
    """A kind of exercise: `names` are the phrases that ask for it ("product rule"),
    `areas` the broader topics it belongs to ("derivatives"), both in plain words."""

    id: str
    title: str
    topic: str
    names: tuple[str, ...]
    areas: tuple[str, ...]
    build: Builder = field(repr=False)
    # What each level asks, in a few words, for the family list and the docs.
    levels: Mapping[Level, str] = field(default_factory=dict)


def text(expression: sympy.Basic) -> str:
    """An expression in the plain style students type and `read_expression` reads back."""
    written = sympy.sstr(expression).replace("**", "^")
    return re.sub(r"\bE\b", "e", written)


def shown(expression: sympy.Basic) -> str:
    """An expression as a student reads it: `3x^2 + 2`, `x^2·e^(2x)`."""
    written = text(expression)
    written = re.sub(r"exp\(([^()]*(?:\([^()]*\))?[^()]*)\)", r"e^(\1)", written)
    written = re.sub(r"(?<![\w.^])(\d+)\*(?=[a-z(])", r"\1", written)
    written = re.sub(r"e\^\((\w)\)", r"e^\1", written)
    written = re.sub(r"\blog\(", "ln(", written)
    return written.replace("*", "·")


def number(value: sympy.Expr) -> str:
    """An exact value with its decimal when it is not a whole number."""
    value = sympy.nsimplify(value) if value.is_Float else value
    if value.is_Integer:
        return str(int(value))
    exact = shown(sympy.simplify(value))
    decimal = f"{float(value):.4f}".rstrip("0").rstrip(".")
    return exact if exact == decimal else f"{exact} ≈ {decimal}"


def symbolic_step(
    prompt: str,
    skill: str,
    hints: list[str],
    expected: sympy.Expr,
    *,
    solution: str | None = None,
    variable: str = "x",
) -> dict[str, Any]:
    return {
        "prompt": prompt,
        "skill": skill,
        "hints": hints,
        "answer": {"kind": "symbolic", "expression": text(expected), "variables": [variable]},
        "solution": solution or shown(expected),
    }


def numeric_step(
    prompt: str,
    skill: str,
    hints: list[str],
    value: sympy.Expr | float,
    *,
    solution: str | None = None,
    exact: bool | None = None,
) -> dict[str, Any]:
    """A number; one that is not whole is accepted within 0.1 % (three decimals)."""
    value = sympy.nsimplify(value) if isinstance(value, float) else sympy.sympify(value)
    whole = bool(value.is_Integer) if exact is None else exact
    answer: dict[str, Any] = {"kind": "numeric", "value": float(value)}
    if not whole:
        answer["relative_tolerance"] = RELATIVE
        answer["tolerance"] = 5e-4
    return {
        "prompt": prompt,
        "skill": skill,
        "hints": hints,
        "answer": answer,
        "solution": solution or number(value),
    }


def choice_step(
    prompt: str,
    skill: str,
    hints: list[str],
    options: list[str],
    correct: int,
    *,
    solution: str | None = None,
) -> dict[str, Any]:
    return {
        "prompt": prompt,
        "skill": skill,
        "hints": hints,
        "answer": {"kind": "choice", "options": options, "correct": correct},
        "solution": solution or options[correct],
    }


def shuffled(
    rng: random.Random, right: str, wrong: list[str], size: int = 4
) -> tuple[list[str], int]:
    """At most `size` distinct options in a drawn order, and the index of the right one."""
    options = list(dict.fromkeys([right, *(w for w in wrong if w != right)]))[:size]
    rng.shuffle(options)
    return options, options.index(right)


def nonzero(rng: random.Random, low: int, high: int) -> int:
    return rng.choice([n for n in range(low, high + 1) if n != 0])


def signed(value: int) -> str:
    """`+ 3` or `- 3`, for writing a term after another."""
    return f"+ {value}" if value >= 0 else f"- {-value}"
