"""Parametric exercises: a `parameters:` block declares values drawn afresh for each instance,
and `{{name}}` placeholders anywhere in the file's text stand for them.

    parameters:
      a: {integer: [2, 9]}        # inclusive
      f: {choice: [sin, cos]}
      c: {value: "a * (a + 1)"}   # computed with sympy from the parameters above it

An instance is the file's data with the values written in, validated by the ordinary models
(so every rule, the hint rule included, holds for each instance). Its id is the exercise's id
followed by `-v` and the seed as 8 hexadecimal digits (`power-rule-v0a1b2c3d`), still a slug.
Expressions are read with `core.exercises.expressions` (checked before sympy sees them, never
`eval`ed as Python)."""

from __future__ import annotations

import contextlib
import hashlib
import math
import random
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, TypeAlias

import sympy

from core.exercises.expressions import (
    KNOWN_NAMES,
    UnreadableExpression,
    read_expression,
    read_number,
    symbol_names,
)

Path_ = tuple[str | int, ...]
Value: TypeAlias = int | float | str | sympy.Expr

SPEC_KINDS = ("integer", "choice", "value")
SEED_DIGITS = 8
# A few deterministic instances are validated when the file is read.
SAMPLE_SEEDS = (1, 2, 3)
MAX_INTEGER_SPAN = 10**9

_PLACEHOLDER = re.compile(r"\{\{\s*([^{}]*?)\s*\}\}")
_NAME = re.compile(r"[A-Za-z][A-Za-z0-9]*")
_INSTANCE = re.compile(rf"(?P<base>.+)-v(?P<seed>[0-9a-f]{{{SEED_DIGITS}}})")


class ParameterProblem(ValueError):
    """A broken `parameters:` block or placeholder; `path` points into the document."""

    def __init__(self, path: Path_, message: str) -> None:
        super().__init__(message)
        self.path = path


@dataclass(frozen=True, slots=True)
class ParameterSpec:
    name: str
    kind: str  # integer, choice or value
    low: int = 0
    high: int = 0
    options: tuple[Any, ...] = ()
    expression: str = ""


@dataclass(frozen=True, slots=True)
class Template:
    """A parametric exercise file: its parameters and its data with the placeholders."""

    specs: tuple[ParameterSpec, ...]
    data: Mapping[str, Any]

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(spec.name for spec in self.specs)

    def draw(self, seed: int) -> dict[str, Value]:
        rng = random.Random(seed)
        return self._values(lambda spec: _random_pick(spec, rng))

    def lowest(self) -> dict[str, Value]:
        return self._values(lambda spec: spec.low if spec.kind == "integer" else spec.options[0])

    def highest(self) -> dict[str, Value]:
        return self._values(lambda spec: spec.high if spec.kind == "integer" else spec.options[-1])

    def samples(self) -> Iterator[dict[str, Value]]:
        """The values checked at parse time: the lowest, the highest, and seeded ones."""
        yield self.lowest()
        yield self.highest()
        for seed in SAMPLE_SEEDS:
            yield self.draw(seed)

    def substitute(self, values: Mapping[str, Value]) -> dict[str, Any]:
        """The file's data with the values written in; a numeric answer's `value` written
        as an expression is evaluated to a float."""
        texts = {name: value_text(value) for name, value in values.items()}
        data = _replace(dict(self.data), texts)
        for step in data.get("steps") or []:
            answer = step.get("answer") if isinstance(step, dict) else None
            if isinstance(answer, dict) and answer.get("kind") == "numeric":
                value = answer.get("value")
                if isinstance(value, str):
                    # Left as text when unreadable: the model reports it at the right line.
                    with contextlib.suppress(UnreadableExpression):
                        answer["value"] = read_number(value)
        return data

    def _values(self, pick: Any) -> dict[str, Value]:
        values: dict[str, Value] = {}
        for spec in self.specs:
            if spec.kind == "value":
                values[spec.name] = _derive(spec, values)
            else:
                values[spec.name] = pick(spec)
        return values


def _random_pick(spec: ParameterSpec, rng: random.Random) -> Value:
    if spec.kind == "integer":
        return rng.randint(spec.low, spec.high)
    return rng.choice(spec.options)


def value_text(value: Value) -> str:
    """How a value is written into the text: negative numbers in parentheses, `^` powers."""
    if isinstance(value, sympy.Expr):
        if value.is_Integer:
            value = int(value)
        else:
            text = sympy.sstr(value).replace("**", "^")
            return f"({text})" if text.startswith("-") or " " in text else text
    text = f"{value:g}" if isinstance(value, float) else str(value)
    return f"({text})" if isinstance(value, int | float) and value < 0 else text


def describe_values(values: Mapping[str, Value]) -> str:
    return ", ".join(f"{name}={value_text(value)}" for name, value in values.items())


def _derive(spec: ParameterSpec, values: Mapping[str, Value]) -> sympy.Expr:
    """A derived value: the expression read safely, with the numbers above substituted."""
    texts = {name: value_text(value) for name, value in values.items()}
    text = _PLACEHOLDER.sub(lambda m: texts.get(m.group(1), m.group(0)), spec.expression)
    numbers = {name: _as_number(value) for name, value in values.items()}
    declared = tuple(name for name, number in numbers.items() if number is not None)
    try:
        expression = read_expression(text, declared)
    except UnreadableExpression as error:
        raise ParameterProblem(
            ("parameters", spec.name, "value"), f"cannot read '{spec.expression}': {error}"
        ) from error
    unknown = sorted(symbol_names(expression) - set(declared))
    if unknown:
        raise ParameterProblem(
            ("parameters", spec.name, "value"),
            f"uses {', '.join(unknown)}, which is not a number parameter declared above it",
        )
    result = expression.subs({sympy.Symbol(name): numbers[name] for name in declared})
    result = sympy.nsimplify(result) if result.is_Float and float(result).is_integer() else result
    if not result.is_number or result.has(sympy.zoo, sympy.nan, sympy.oo, -sympy.oo):
        raise ParameterProblem(
            ("parameters", spec.name, "value"),
            f"'{spec.expression}' is not a defined number with {describe_values(values)}",
        )
    return result


def _as_number(value: Value) -> sympy.Expr | None:
    if isinstance(value, sympy.Expr):
        return value
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return sympy.Integer(value) if isinstance(value, int) else sympy.Float(value)
    return None


def _replace(node: Any, texts: Mapping[str, str]) -> Any:
    if isinstance(node, str):
        return _PLACEHOLDER.sub(lambda m: texts[m.group(1)], node)
    if isinstance(node, dict):
        return {key: _replace(value, texts) for key, value in node.items()}
    if isinstance(node, list):
        return [_replace(item, texts) for item in node]
    return node


def read_template(data: dict[str, Any]) -> Template | None:
    """The file's parameters and data (without the `parameters` field), or None for an
    ordinary exercise; `ParameterProblem` for a broken block or an unknown placeholder."""
    if "parameters" not in data:
        return None
    block = data["parameters"]
    rest = {key: value for key, value in data.items() if key != "parameters"}
    if not isinstance(block, dict) or not block:
        raise ParameterProblem(
            ("parameters",), "should be a mapping of names to {integer|choice|value: ...}"
        )
    specs: list[ParameterSpec] = []
    for name, spec in block.items():
        specs.append(_read_spec(str(name), spec, tuple(s.name for s in specs)))
    names = {spec.name for spec in specs}
    for path, placeholder in _placeholders(rest, ()):
        if placeholder not in names:
            raise ParameterProblem(
                path,
                f"the placeholder {{{{{placeholder}}}}} names no parameter "
                f"(declared: {', '.join(sorted(names))})",
            )
    template = Template(tuple(specs), rest)
    template.lowest()  # derived values that cannot be computed fail here, with their line
    return template


def _read_spec(name: str, spec: Any, above: tuple[str, ...]) -> ParameterSpec:
    path: Path_ = ("parameters", name)
    if not _NAME.fullmatch(name) or name in KNOWN_NAMES:
        raise ParameterProblem(
            path, f"'{name}' is not a parameter name (letters then digits, not a function)"
        )
    if not isinstance(spec, dict) or len(spec) != 1:
        raise ParameterProblem(
            path, "should be one of {integer: [LOW, HIGH]}, {choice: [...]}, {value: EXPR}"
        )
    kind, argument = next(iter(spec.items()))
    where: Path_ = (*path, kind)
    if kind == "integer":
        if (
            not isinstance(argument, list)
            or len(argument) != 2
            or not all(isinstance(n, int) and not isinstance(n, bool) for n in argument)
        ):
            raise ParameterProblem(where, "should be [LOW, HIGH], two whole numbers")
        low, high = argument
        if low > high:
            raise ParameterProblem(where, f"LOW ({low}) is greater than HIGH ({high})")
        if high - low > MAX_INTEGER_SPAN:
            raise ParameterProblem(where, f"spans more than {MAX_INTEGER_SPAN} values")
        return ParameterSpec(name, "integer", low=low, high=high)
    if kind == "choice":
        if not isinstance(argument, list) or not argument:
            raise ParameterProblem(where, "should be a list of at least one value")
        for index, option in enumerate(argument):
            if isinstance(option, bool) or not isinstance(option, int | float | str):
                raise ParameterProblem((*where, index), "should be a number or text")
            if isinstance(option, float) and not math.isfinite(option):
                raise ParameterProblem((*where, index), "must be a finite number")
        return ParameterSpec(name, "choice", options=tuple(argument))
    if kind == "value":
        if isinstance(argument, bool) or not isinstance(argument, str | int | float):
            raise ParameterProblem(where, "should be an expression of the parameters above it")
        expression = str(argument)
        for placeholder in _PLACEHOLDER.findall(expression):
            if placeholder not in above:
                raise ParameterProblem(
                    where, f"the placeholder {{{{{placeholder}}}}} names no parameter above it"
                )
        return ParameterSpec(name, "value", expression=expression)
    raise ParameterProblem(
        (*path, kind), f"unknown kind '{kind}' (expected {', '.join(SPEC_KINDS)})"
    )


def _placeholders(node: Any, path: Path_) -> Iterator[tuple[Path_, str]]:
    if isinstance(node, str):
        for match in _PLACEHOLDER.finditer(node):
            yield path, match.group(1)
    elif isinstance(node, dict):
        for key, value in node.items():
            yield from _placeholders(value, (*path, key))
    elif isinstance(node, list):
        for index, item in enumerate(node):
            yield from _placeholders(item, (*path, index))


# Instance ids and seeds ---------------------------------------------------------------------


def instance_id(exercise_id: str, seed: int) -> str:
    return f"{exercise_id}-v{seed:0{SEED_DIGITS}x}"


def split_instance_id(text: str) -> tuple[str, int] | None:
    """(exercise id, seed) of an instance id, or None when `text` is not one."""
    match = _INSTANCE.fullmatch(text)
    return (match.group("base"), int(match.group("seed"), 16)) if match else None


def instance_seed(course_id: str, student_id: str, exercise_id: str, attempt: int) -> int:
    """The same student's n-th instance of an exercise is always the same one."""
    digest = hashlib.sha256(f"{course_id}\0{student_id}\0{exercise_id}\0{attempt}".encode())
    return int.from_bytes(digest.digest()[:4], "big")


__all__ = [
    "ParameterProblem",
    "ParameterSpec",
    "Template",
    "describe_values",
    "instance_id",
    "instance_seed",
    "read_template",
    "split_instance_id",
]
