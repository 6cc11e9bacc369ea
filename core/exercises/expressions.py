"""Reading math typed in plain style (`2x+2`, `x^2+1`, `sin(x)/x`) and deciding whether two
expressions are equal, safely.

sympy's `parse_expr` ends in `eval`, so nothing reaches it unchecked: only digits, letters,
white space and `+ - * / ^ ( ) , .` are allowed, every name must be a known function or
constant, a variable, or letters that split into single-letter variables (`xy` is `x*y`), and
eval runs without builtins. Before any sympy work the text is measured, in one pass: too many
symbols, or functions and powers nested too deep (`exp(exp(exp(exp(exp(exp(x))))))` kept a
worker busy until its time limit), and it is refused. Expressions are then parsed unevaluated
and refused when their powers are too large (`2^10^10`), so evaluating them cannot run away."""

from __future__ import annotations

import keyword
import math
import random
import re
import unicodedata
import zlib
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import mpmath
import sympy
from sympy.parsing.sympy_parser import (
    convert_xor,
    implicit_multiplication_application,
    parse_expr,
    standard_transformations,
)

MAX_LENGTH = 200
# Numbers, names, operators and parentheses: a long answer has about 40.
MAX_TOKENS = 120
# Functions and exponents inside one another: `e^(sin(x^2))` is 3. Five (`exp` applied five
# times to -x, or e^e^e^e^(x^2)) made the random-point check run for minutes.
MAX_NESTING = 4
MAX_PARENTHESES = 8
# The largest power an expression may build: x^1000 is fine, x^1001 or (x^40)^30 is not.
MAX_POWER = 1000
# Above this power, simplify() may expand polynomials for a long time: random points decide.
SIMPLIFY_MAX_POWER = 60

_TRANSFORMATIONS = (
    *standard_transformations,
    implicit_multiplication_application,
    convert_xor,
)
_FUNCTIONS: dict[str, Any] = {
    "sin": sympy.sin,
    "cos": sympy.cos,
    "tan": sympy.tan,
    "cot": sympy.cot,
    "sec": sympy.sec,
    "csc": sympy.csc,
    "asin": sympy.asin,
    "acos": sympy.acos,
    "atan": sympy.atan,
    "arcsin": sympy.asin,
    "arccos": sympy.acos,
    "arctan": sympy.atan,
    "sinh": sympy.sinh,
    "cosh": sympy.cosh,
    "tanh": sympy.tanh,
    "exp": sympy.exp,
    "log": sympy.log,
    "ln": sympy.log,
    "sqrt": sympy.sqrt,
    "abs": sympy.Abs,
}
_CONSTANTS: dict[str, Any] = {"pi": sympy.pi, "e": sympy.E, "E": sympy.E}
KNOWN_NAMES = frozenset(_FUNCTIONS) | frozenset(_CONSTANTS)
# Operations a generated exercise's check may use to recompute its own answer
# (`diff(f, x)` for a derivative step); never offered to students' answers.
_CALCULUS: dict[str, Any] = {
    "diff": sympy.diff,
    "integrate": sympy.integrate,
    "limit": sympy.limit,
    "factorial": sympy.factorial,
    "binomial": sympy.binomial,
    "oo": sympy.oo,
}
CALCULUS_NAMES = frozenset(_CALCULUS)
_CALCULUS_FUNCTIONS = CALCULUS_NAMES - {"oo"}

_ALLOWED = re.compile(r"[0-9A-Za-z\s+\-*/^(),.]*")
# A number as Python's tokenizer reads it; digits inside a name (`x2`) are part of the name.
_NUMBER = re.compile(r"(?<![A-Za-z0-9_])(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")
_NAME = re.compile(r"[A-Za-z][A-Za-z0-9]*")
_NUMBER_OR_NAME = re.compile(rf"{_NUMBER.pattern}|(?P<name>{_NAME.pattern})")
_PLAIN_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")
# One token at a time, each read one way: `**`, a name (digits inside it are its own), a
# number, or any other single character.
_TOKEN = re.compile(r"\*\*|[A-Za-z][A-Za-z0-9]*|(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?|\S")
_UNICODE = {
    "−": "-",
    "–": "-",
    "×": "*",
    "·": "*",
    "⋅": "*",
    "÷": "/",
    "²": "^2",
    "³": "^3",
    "π": "pi",
}


def _sympy_namespace() -> dict[str, Any]:
    namespace: dict[str, Any] = {}
    exec("from sympy import *", namespace)  # what parse_expr's generated code refers to
    namespace["__builtins__"] = {}
    return namespace


_GLOBALS = _sympy_namespace()


class UnreadableExpression(ValueError):
    """The text is not an expression we can read; `str()` says why, in a student's words."""


class ExpressionTooLarge(UnreadableExpression):
    """The expression is longer or builds larger powers than we are willing to evaluate."""


def normalise_math(text: str) -> str:
    """NFKC, typographic symbols to ASCII (`−` `×` `·` `²` `π`), outer white space trimmed."""
    for symbol, plain in _UNICODE.items():  # before NFKC, which would turn ² into a plain 2
        text = text.replace(symbol, plain)
    return unicodedata.normalize("NFKC", text).strip()


def read_expression(
    text: str, variables: Iterable[str] | None = None, *, calculus: bool = False
) -> sympy.Expr:
    """The expression in `text`. Names that are not functions, constants or `variables` must be
    letters, read as single-letter symbols (`xy` is `x*y`); the caller checks which symbols it
    accepts. `f'(x) = ...` keeps what follows the last `=`. With `calculus`, `diff`,
    `integrate`, `limit`, `factorial`, `binomial` and `oo` are known too (checks of generated
    exercises: they can take long, so those run in a killable worker)."""
    declared = tuple(variables or ())
    text = prepare_expression(text, declared, calculus=calculus)
    local = _local_names(declared, calculus)
    try:
        raw = parse_expr(
            text,
            local_dict=dict(local),
            global_dict=_GLOBALS,
            transformations=_TRANSFORMATIONS,
            evaluate=False,
        )
    except Exception as error:  # the tokenizer, parser and sympy raise many kinds
        raise UnreadableExpression("it is not a complete expression") from error
    if not isinstance(raw, sympy.Expr):
        raise UnreadableExpression("it is not a single expression")
    if power_size(raw) > MAX_POWER:
        raise ExpressionTooLarge(f"it builds powers larger than {MAX_POWER}")
    try:
        expression = parse_expr(
            text, local_dict=dict(local), global_dict=_GLOBALS, transformations=_TRANSFORMATIONS
        )
    except Exception as error:
        raise UnreadableExpression("it is not a complete expression") from error
    if not isinstance(expression, sympy.Expr) or expression.has(sympy.zoo, sympy.nan):
        raise UnreadableExpression("it is not a defined value (a division by zero?)")
    return expression


def prepare_expression(
    text: str, variables: Iterable[str] | None = None, *, calculus: bool = False
) -> str:
    """The text of an expression as the parser will read it (what follows the last `=`, names
    written together spaced out), or `UnreadableExpression` / `ExpressionTooLarge` saying why
    it will not be read. Text work only, linear in the length: safe on any message, and done
    before any sympy work."""
    declared = tuple(variables or ())
    known = KNOWN_NAMES | CALCULUS_NAMES if calculus else KNOWN_NAMES
    text = normalise_math(text)
    if "=" in text:
        text = text.rsplit("=", 1)[1].strip()
    if not text:
        raise UnreadableExpression("the expression is empty")
    if len(text) > MAX_LENGTH:
        raise ExpressionTooLarge(f"the expression is longer than {MAX_LENGTH} characters")
    if not _ALLOWED.fullmatch(text):
        bad = next(ch for ch in text if not _ALLOWED.fullmatch(ch))
        raise UnreadableExpression(f"the character '{bad}' is not allowed")
    if "." in _NUMBER.sub(" 0 ", text):
        raise UnreadableExpression("a '.' may only appear inside a number")
    text = _split_run_together(text, declared, known)
    for name in names_in(text):
        _check_name(name, declared, known)
    _check_shape(text, frozenset(_FUNCTIONS) | (_CALCULUS_FUNCTIONS if calculus else frozenset()))
    return text


def _check_shape(text: str, functions: frozenset[str]) -> None:
    """`ExpressionTooLarge` when `text` has too many tokens, or nests functions and powers or
    parentheses too deep. Implicit application (`sin x`, `exp exp x`) and a power last until
    the next + - * / or , of their group: counting a little too much is the safe side."""
    stack: list[tuple[int, int]] = []  # the levels outside each open parenthesis
    base = 0  # functions and powers around the current parenthesis
    term = 0  # functions and powers applied within it since its last + - * / ,
    call = False  # the last token was a function's name
    operand = False  # the last token ended an operand, so a sign after it is binary
    for count, match in enumerate(_TOKEN.finditer(text), start=1):
        if count > MAX_TOKENS:
            raise ExpressionTooLarge(f"it has more than {MAX_TOKENS} numbers, names and signs")
        token = match.group()
        if token == "(":
            if len(stack) == MAX_PARENTHESES:
                raise ExpressionTooLarge(f"it nests parentheses more than {MAX_PARENTHESES} deep")
            stack.append((base, term))
            base, term = base + term + call, 0
            call = operand = False
        elif token == ")":
            if stack:
                base, term = stack.pop()
            call, operand = False, True
        elif token in ("^", "**"):
            term += 1
            call = operand = False
        elif token in "+-*/," and operand:
            term = 0
            call = operand = False
        elif token in functions:
            term += call  # `exp exp x`: the first one applies to the second
            call, operand = True, False
        elif token[0].isalnum() or token[0] == ".":  # a number or a name
            term += call
            call, operand = False, True
            if base + term > MAX_NESTING:
                raise ExpressionTooLarge(
                    f"it nests functions and powers more than {MAX_NESTING} deep"
                )
        else:  # a sign before an operand
            operand = False


def read_number(text: str) -> float:
    """A real number written plainly (`-4`, `1.5e-3`) or as a constant expression (`3/2`,
    `-pi^2`, `sqrt(2)/2`)."""
    text = normalise_math(text)
    if "=" in text:
        text = text.rsplit("=", 1)[1].strip()
    if _PLAIN_NUMBER.fullmatch(text):
        return float(text)
    expression = read_expression(text, ())
    if expression.free_symbols:
        raise UnreadableExpression("it is not a number")
    try:
        value = complex(expression.evalf(30))
    except (TypeError, ValueError) as error:
        raise UnreadableExpression("it is not a number") from error
    if abs(value.imag) > 1e-12 * max(1.0, abs(value.real)) or not math.isfinite(value.real):
        raise UnreadableExpression("it is not a finite real number")
    return value.real


def names_in(text: str) -> list[str]:
    """The names (not numbers) written in `text`, in order."""
    return _NAME.findall(_NUMBER.sub(" 0 ", normalise_math(text)))


def symbol_names(expression: sympy.Expr) -> set[str]:
    return {symbol.name for symbol in expression.free_symbols}


def power_size(expression: sympy.Basic) -> float:
    """An upper bound on the degree or digit count the expression builds once evaluated: a
    power multiplies its base's size by the exponent, a product adds its factors' sizes."""
    if isinstance(expression, sympy.Pow):
        base = power_size(expression.base)
        exponent = expression.exp
        if exponent.free_symbols:
            return max(base, power_size(exponent))
        size = power_size(exponent)
        if size > MAX_POWER:
            return size
        try:
            magnitude = abs(complex(exponent.evalf(15)))
        except (TypeError, ValueError):
            return math.inf
        return base * max(1.0, magnitude) if math.isfinite(magnitude) else math.inf
    if isinstance(expression, sympy.Mul):
        factors = [power_size(arg) for arg in expression.args if not arg.is_Number]
        return max(1.0, float(sum(factors)))
    if expression.args:
        return max(power_size(arg) for arg in expression.args)
    return 1.0


@dataclass(frozen=True, slots=True)
class Comparison:
    equivalent: bool
    # How it was decided: "simplify" or "numeric" (random points).
    method: str


def compare(expected: sympy.Expr, given: sympy.Expr) -> Comparison:
    """Whether two expressions are equal for all values of their variables: random points
    first (cheap, and enough to reject), then simplify(a - b) == 0; when simplify is
    inconclusive or the powers are too large for it, agreement at the random points decides."""
    agreement = _agree_at_random_points(expected, given)
    if agreement is False:
        return Comparison(False, "numeric")
    if max(power_size(expected), power_size(given)) <= SIMPLIFY_MAX_POWER:
        try:
            difference = expected - given
            if sympy.expand(difference) == 0 or sympy.simplify(difference) == 0:
                return Comparison(True, "simplify")
        except (TypeError, ValueError, RecursionError, NotImplementedError):
            pass
    return Comparison(agreement is True, "numeric")


def _agree_at_random_points(a: sympy.Expr, b: sympy.Expr) -> bool | None:
    """True when a and b agree at every usable random point (at least three), False when they
    differ at one, None when too few points are defined for both."""
    symbols = sorted(a.free_symbols | b.free_symbols, key=lambda s: s.name)
    seed = zlib.crc32(f"{sympy.srepr(a)}|{sympy.srepr(b)}".encode())
    rng = random.Random(seed)
    usable = 0
    for _ in range(12 if symbols else 1):
        point = {s: _random_value(rng) for s in symbols}
        va, vb = _value_at(a, point), _value_at(b, point)
        if va is None or vb is None:
            continue
        if abs(va - vb) > 1e-9 * max(1.0, abs(va), abs(vb)):
            return False
        usable += 1
        if usable >= 6:
            break
    if not symbols:
        return usable == 1
    return True if usable >= 3 else None


def _random_value(rng: random.Random) -> sympy.Float:
    # Away from 0 and the integers, where removable singularities and special values sit.
    magnitude = rng.uniform(0.25, 2.75)
    return sympy.Float(magnitude if rng.random() < 0.7 else -magnitude, 30)


def _value_at(expression: sympy.Expr, point: dict[Any, Any]) -> mpmath.mpc | None:
    """The value at `point` as an mpmath complex, which does not overflow like a float (a
    student's 1e400 is a number, not infinity). None where the expression is undefined."""
    try:
        value = expression.evalf(30, subs=point)
        if not value.is_number or value.is_finite is False or value.has(sympy.nan, sympy.zoo):
            return None
        real, imaginary = value.as_real_imag()
        result = mpmath.mpc(mpmath.mpmathify(real), mpmath.mpmathify(imaginary))
    except (TypeError, ValueError, ZeroDivisionError, OverflowError, AttributeError):
        return None
    return result if mpmath.isfinite(result) else None


def _split_run_together(
    text: str, declared: tuple[str, ...], known: frozenset[str] = KNOWN_NAMES
) -> str:
    """Names written together, as students do, spaced out: `2xsinx` is `2x sin x`, `pix` is
    `pi x`. Known and declared names are kept whole; other letters become single letters."""
    whole = sorted((name for name in (*known, *declared) if len(name) > 1), key=len, reverse=True)

    def split(match: re.Match[str]) -> str:
        name = match.group("name")
        if name is None or name in declared or name in known or not name.isalpha():
            return match.group()
        parts: list[str] = []
        position = 0
        while position < len(name):
            part = next((w for w in whole if name.startswith(w, position)), name[position])
            parts.append(part)
            position += len(part)
        return f" {' '.join(parts)} "

    return _NUMBER_OR_NAME.sub(split, text)


def _check_name(name: str, declared: tuple[str, ...], known: frozenset[str] = KNOWN_NAMES) -> None:
    if keyword.iskeyword(name) or keyword.issoftkeyword(name):
        raise UnreadableExpression(f"'{name}' is not a math name")
    if name in declared or name in known:
        return
    if not name.isalpha():
        raise UnreadableExpression(f"unknown name '{name}'")


@lru_cache(maxsize=64)
def _local_names(declared: tuple[str, ...], calculus: bool = False) -> dict[str, Any]:
    names: dict[str, Any] = {**_FUNCTIONS, **_CONSTANTS, **(_CALCULUS if calculus else {})}
    for name in declared:
        names[name] = sympy.Symbol(name)
    return names
