"""The exercise file format (`*.exercise.yaml`, documented in docs/exercise-format.md) as
typed, validated models.

An exercise is an ordered list of steps; each step has a prompt, the skill it practises, one
or more hints, and an answer of a declared kind: `numeric`, `symbolic`, `choice` or
`free_text`. Validation covers what YAML cannot: a step's skill must be one of the
exercise's skills, an expected expression must be readable, and no hint may contain the
expected answer verbatim."""

from __future__ import annotations

import hashlib
import math
import re
import string
import unicodedata
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    StringConstraints,
    field_validator,
    model_validator,
)

from core.exercises.expressions import (
    KNOWN_NAMES,
    UnreadableExpression,
    names_in,
    normalise_math,
    read_expression,
    symbol_names,
)

KINDS = ("numeric", "symbolic", "choice", "free_text")
LETTERS = string.ascii_uppercase

Text = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1)]

_SLUG = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
_VARIABLE = re.compile(r"[A-Za-z][A-Za-z0-9]*")
_NUMBER_IN_TEXT = re.compile(r"(?<![\w.])-?(?:\d+(?:\.\d+)?|\.\d+)(?:[eE][+-]?\d+)?(?!\.?\d)")
_MATH_TOKEN = re.compile(r"\d+(?:\.\d+)?|\.\d+|[a-z]+|[^\s*]")


class DefinitionError(ValueError):
    """A format rule broken inside the model being validated. `path` continues the location
    pydantic reports (for instance `("hints", 1)` under a step), so the parser can point at
    the right line."""

    def __init__(self, path: tuple[str | int, ...], message: str) -> None:
        super().__init__(message)
        self.path = path


def normalise_words(text: str) -> str:
    """Case-folded words separated by single spaces: for matching option texts and phrases."""
    text = unicodedata.normalize("NFKC", text).casefold()
    return " ".join(re.sub(r"[^\w.+\-*/^()=%]+", " ", text).split())


def _math_tokens(text: str) -> list[str]:
    """Numbers, names and symbols, with `*` dropped: `2*x` and `2x` give the same tokens."""
    return _MATH_TOKEN.findall(normalise_math(text).replace("**", "^").lower())


def _is_operand(token: str) -> bool:
    return token[0].isalnum() or (token[0] == "." and len(token) > 1)


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class NumericAnswer(_Model):
    """A number, right within an absolute `tolerance` or a `relative_tolerance` (either
    suffices), optionally with a unit the student may write after it."""

    kind: Literal["numeric"]
    value: float
    tolerance: float = Field(default=1e-6, ge=0)
    relative_tolerance: float | None = Field(default=None, ge=0)
    unit: Text | None = None

    @field_validator("value")
    @classmethod
    def _finite(cls, value: float) -> float:
        if not math.isfinite(value):
            raise ValueError("must be a finite number")
        return value

    def accepts(self, number: float) -> bool:
        error = abs(number - self.value)
        if error <= self.tolerance:
            return True
        return self.relative_tolerance is not None and error <= self.relative_tolerance * abs(
            self.value
        )

    def allowed_error(self) -> float:
        return max(self.tolerance, (self.relative_tolerance or 0.0) * abs(self.value))

    def revealed_by(self, text: str) -> bool:
        for match in _NUMBER_IN_TEXT.finditer(normalise_math(text)):
            try:
                number = float(match.group())
            except ValueError:
                continue
            if abs(number - self.value) <= max(self.allowed_error(), 1e-12):
                return True
        return False

    def expected_text(self) -> str:
        return f"{self.value:g} {self.unit}" if self.unit else f"{self.value:g}"


class SymbolicAnswer(_Model):
    """An expression in plain style (`2x+2`, `x^2+1`, `sin(x)/x`), right when the student's
    is equivalent. `variables` defaults to the expression's own single-letter names."""

    kind: Literal["symbolic"]
    expression: Text
    variables: tuple[Text, ...] | None = None

    @field_validator("variables")
    @classmethod
    def _valid_names(cls, names: tuple[str, ...] | None) -> tuple[str, ...] | None:
        if names is None:
            return None
        for name in names:
            if not _VARIABLE.fullmatch(name):
                raise ValueError(f"'{name}' is not a variable name (letters, then digits)")
            if name in KNOWN_NAMES and name != "e":
                raise ValueError(f"'{name}' is a function or constant, not a variable")
        return names

    @model_validator(mode="after")
    def _readable(self) -> SymbolicAnswer:
        if self.variables is None:
            for name in names_in(self.expression):
                if name not in KNOWN_NAMES and len(name) > 1:
                    raise DefinitionError(
                        ("expression",),
                        f"'{name}' would be read as a product of single letters; "
                        "list it under variables if it is one name",
                    )
        try:
            parsed = read_expression(self.expression, self.variables or ())
        except UnreadableExpression as error:
            raise DefinitionError(
                ("expression",), f"cannot read '{self.expression}': {error}"
            ) from error
        if self.variables is not None:
            extra = sorted(symbol_names(parsed) - set(self.variables))
            if extra:
                raise DefinitionError(
                    ("expression",), f"uses {', '.join(extra)}, which is not in variables"
                )
        return self

    @property
    def variable_names(self) -> tuple[str, ...]:
        if self.variables is not None:
            return self.variables
        return tuple(sorted(symbol_names(read_expression(self.expression, ()))))

    def revealed_by(self, text: str) -> bool:
        """The expression written out in the text, not as part of a larger product or power
        (`2x` is in "the derivative is 2x", not in "2x sin(x)" or "2x^2")."""
        expected, tokens = _math_tokens(self.expression), _math_tokens(text)
        size = len(expected)
        for start in range(len(tokens) - size + 1):
            if tokens[start : start + size] != expected:
                continue
            before = tokens[start - 1] if start else ""
            after = tokens[start + size] if start + size < len(tokens) else ""
            if before != "^" and not (after and (_is_operand(after) or after in "^(")):
                return True
        return False

    def expected_text(self) -> str:
        return self.expression


class ChoiceAnswer(_Model):
    """Options the student picks from by letter, number or text. `correct` is an index
    counted from 0 or a letter (`B`), or a list of them when several options must be picked."""

    kind: Literal["choice"]
    options: tuple[Text, ...] = Field(min_length=2, max_length=len(LETTERS))
    correct: tuple[int, ...] = Field(min_length=1)

    @field_validator("correct", mode="before")
    @classmethod
    def _indices(cls, value: Any) -> Any:
        items = value if isinstance(value, list | tuple) else [value]
        indices: list[Any] = []
        for item in items:
            if isinstance(item, str) and len(item.strip()) == 1 and item.strip().isalpha():
                indices.append(LETTERS.index(item.strip().upper()))
            else:
                indices.append(item)
        return indices

    @model_validator(mode="after")
    def _consistent(self) -> ChoiceAnswer:
        for position, index in enumerate(self.correct):
            if not 0 <= index < len(self.options):
                raise DefinitionError(
                    ("correct",),
                    f"{index} is not an option: indices count from 0, so use 0 to "
                    f"{len(self.options) - 1} (or a letter A to {LETTERS[len(self.options) - 1]})",
                )
            if index in self.correct[:position]:
                raise DefinitionError(("correct",), f"option {LETTERS[index]} is listed twice")
        seen: dict[str, int] = {}
        for index, option in enumerate(self.options):
            key = normalise_words(option)
            if key in seen:
                raise DefinitionError(
                    ("options", index), f"repeats option {LETTERS[seen[key]]} ('{option}')"
                )
            seen[key] = index
        return self

    def revealed_by(self, text: str) -> bool:
        hint = f" {normalise_words(text)} "
        return any(f" {normalise_words(self.options[i])} " in hint for i in self.correct)

    def expected_text(self) -> str:
        return "; ".join(f"{LETTERS[i]}) {self.options[i]}" for i in self.correct)


class FreeTextAnswer(_Model):
    """A sentence or two. An LLM grades it against `model_answer` and `rubric` when one is
    configured; otherwise it needs `min_keywords` of the `keywords` (each a word or phrase, or
    a list of synonyms), all of them by default."""

    kind: Literal["free_text"]
    model_answer: Text
    rubric: tuple[Text, ...] = Field(min_length=1)
    keywords: tuple[tuple[Text, ...], ...] = Field(min_length=1)
    min_keywords: int | None = Field(default=None, ge=1)

    @field_validator("keywords", mode="before")
    @classmethod
    def _synonym_lists(cls, value: Any) -> Any:
        if isinstance(value, list | tuple):
            return [item if isinstance(item, list | tuple) else [item] for item in value]
        return value

    @model_validator(mode="after")
    def _enough_keywords(self) -> FreeTextAnswer:
        for index, synonyms in enumerate(self.keywords):
            if not synonyms:
                raise DefinitionError(("keywords", index), "needs at least one word or phrase")
        if self.min_keywords is not None and self.min_keywords > len(self.keywords):
            raise DefinitionError(
                ("min_keywords",),
                f"is {self.min_keywords}, but there are only {len(self.keywords)} keywords",
            )
        return self

    @property
    def required_keywords(self) -> int:
        return self.min_keywords if self.min_keywords is not None else len(self.keywords)

    def revealed_by(self, text: str) -> bool:
        return normalise_words(self.model_answer) in normalise_words(text)

    def expected_text(self) -> str:
        return self.model_answer


ExpectedAnswer = Annotated[
    NumericAnswer | SymbolicAnswer | ChoiceAnswer | FreeTextAnswer, Field(discriminator="kind")
]


class Step(_Model):
    prompt: Text
    skill: Text
    hints: tuple[Text, ...] = Field(min_length=1)
    answer: ExpectedAnswer
    # Shown when the student skips the step; the expected answer is shown when there is none.
    solution: Text | None = None

    @field_validator("hints", mode="before")
    @classmethod
    def _one_hint(cls, value: Any) -> Any:
        return [value] if isinstance(value, str) else value

    @model_validator(mode="after")
    def _hints_keep_the_answer(self) -> Step:
        for index, hint in enumerate(self.hints):
            if self.answer.revealed_by(hint):
                raise DefinitionError(
                    ("hints", index),
                    f"the hint contains the expected answer ({self.answer.expected_text()}); "
                    "a hint must lead towards it without giving it away",
                )
        return self


class ExerciseDefinition(_Model):
    id: str
    title: Text
    topic: Text
    skills: tuple[Text, ...] = Field(min_length=1)
    description: Text | None = None
    steps: tuple[Step, ...] = Field(min_length=1)
    # A parametric exercise's `parameters:` and placeholder data (core/exercises/parameters.py),
    # set by the parser; this definition is then its instance with the lowest values.
    _template: Any = PrivateAttr(default=None)

    @field_validator("id")
    @classmethod
    def _slug(cls, value: str) -> str:
        if not _SLUG.fullmatch(value):
            raise ValueError(
                f"'{value}' is not a slug: use lowercase letters, digits and single hyphens, "
                "like 'limits-basics'"
            )
        return value

    @field_validator("skills")
    @classmethod
    def _unique_skills(cls, skills: tuple[str, ...]) -> tuple[str, ...]:
        repeated = sorted({skill for skill in skills if skills.count(skill) > 1})
        if repeated:
            raise ValueError(f"lists {', '.join(repeated)} more than once")
        return skills

    @model_validator(mode="after")
    def _known_skills(self) -> ExerciseDefinition:
        for index, step in enumerate(self.steps):
            if step.skill not in self.skills:
                raise DefinitionError(
                    ("steps", index, "skill"),
                    f"'{step.skill}' is not one of the exercise's skills "
                    f"({', '.join(self.skills)})",
                )
        return self

    @property
    def template(self) -> Any:
        return self._template

    @property
    def parametric(self) -> bool:
        return self._template is not None

    @property
    def step_count(self) -> int:
        return len(self.steps)

    def fingerprint(self) -> str:
        """Changes whenever the definition does: a session started on an older version of the
        file can tell it no longer matches."""
        return hashlib.sha256(self.model_dump_json().encode()).hexdigest()[:16]
