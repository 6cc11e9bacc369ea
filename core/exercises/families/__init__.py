"""Built-in parametric exercise families: guided exercises drawn offline for the common
first-year topics, at three levels that differ in kind, every answer computed with sympy.

`match_families("product rule")` names the families a request asks for, by its words (a
family's own name first, then its broader area: "derivatives" is four families);
`draw(family, level, seed)` is one exercise; `drawn_instance(id)` draws the exercise an id
names again (`product-rule-hard-v0a1b2c3d`), so a session can be graded step by step without
storing the exercise."""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import snowballstemmer
from pydantic import ValidationError

from core.exercises.definitions import ExerciseDefinition
from core.exercises.families import calculus, descriptive, learning
from core.exercises.families.base import Built, Family, Level
from core.exercises.parameters import instance_id, split_instance_id

# Draws whose generic hints happen to contain an answer are drawn again (a few at most).
_TRIES = 20

FAMILIES: tuple[Family, ...] = (
    Family(
        "product-rule", "The product rule", "Derivatives",
        ("product rule", "derivative of a product", "differentiate a product"),
        ("derivative", "differentiation", "differentiate", "calculus"),
        calculus.product_rule,
        {Level.EASY: "two polynomials", Level.MEDIUM: "a power of x times sin, cos or e^x",
         Level.HARD: "a quadratic times e^(kx) or a sine of kx, then factored or collected"},
    ),
    Family(
        "quotient-rule", "The quotient rule", "Derivatives",
        ("quotient rule", "derivative of a quotient", "differentiate a quotient"),
        ("derivative", "differentiation", "differentiate", "calculus"),
        calculus.quotient_rule,
        {Level.EASY: "linear over linear", Level.MEDIUM: "quadratic over linear",
         Level.HARD: "an exponential over a quadratic, or ln(x) over a power, then simplified"},
    ),
    Family(
        "chain-rule", "The chain rule", "Derivatives",
        ("chain rule", "composite function", "composition"),
        ("derivative", "differentiation", "differentiate", "calculus"),
        calculus.chain_rule,
        {Level.EASY: "a power of a linear function", Level.MEDIUM:
         "sin, exp or a square root of a quadratic", Level.HARD: "three layers, sin(kx)^n or "
         "e^(cos(kx))"},
    ),
    Family(
        "derivative-at-a-point", "A derivative at a point", "Derivatives",
        ("derivative at a point", "slope at a point", "tangent line", "tangent",
         "difference quotient", "definition of the derivative", "limit definition",
         "first principles", "rate of change", "instantaneous"),
        ("derivative", "differentiation", "differentiate", "calculus", "slope"),
        calculus.derivative_at_point,
        {Level.EASY: "a polynomial by the rules", Level.MEDIUM: "a tangent line with a root or "
         "a reciprocal", Level.HARD: "from the limit of the difference quotient"},
    ),
    Family(
        "limit-by-factoring", "A limit by factoring", "Limits",
        ("limit by factoring", "factoring limit", "indeterminate form", "0/0", "limits",
         "limit", "conjugate", "rationalising", "rationalizing"),
        ("calculus", "continuity"),
        calculus.limit_by_factoring,
        {Level.EASY: "a difference of squares", Level.MEDIUM: "two quadratics sharing a root",
         Level.HARD: "a square root by the conjugate, or a difference of cubes"},
    ),
    Family(
        "integral-by-substitution", "A definite integral by substitution", "Integrals",
        ("substitution", "u substitution", "integration by substitution", "change of variable",
         "definite integral"),
        ("integral", "integration", "integrate", "antiderivative", "calculus"),
        calculus.integral_by_substitution,
        {Level.EASY: "a linear inside", Level.MEDIUM: "x times a function of x² (a factor ½)",
         Level.HARD: "choosing u among sin, ln and tan, with bounds that change kind"},
    ),
    Family(
        "mean-and-variance", "Mean and variance", "Statistics",
        ("mean", "variance", "standard deviation", "average", "expected value", "expectation",
         "spread"),
        ("statistics", "descriptive statistics", "data", "probability", "random variable"),
        descriptive.mean_and_variance,
        {Level.EASY: "a list, population variance", Level.MEDIUM: "a sample, n - 1 and a "
         "square root", Level.HARD: "a random variable's E[X] and E[X²]"},
    ),
    Family(
        "z-score", "z-scores", "Statistics",
        ("z score", "z-score", "standard score", "standardise", "standardize", "standardised",
         "normal distribution", "normalisation", "normalization"),
        ("statistics", "probability", "data preprocessing", "preprocessing"),
        descriptive.z_score,
        {Level.EASY: "one score against μ and σ", Level.MEDIUM: "two exams compared",
         Level.HARD: "μ and σ estimated from a sample first"},
    ),
    Family(
        "matrix-product", "A matrix product", "Linear algebra",
        ("matrix product", "matrix multiplication", "multiply matrices", "matrix",
         "matrices", "transpose"),
        ("linear algebra", "vectors", "linear classifier", "bias trick"),
        learning.matrix_product,
        {Level.EASY: "2×2 by 2×2", Level.MEDIUM: "2×3 by 3×2, and the other order",
         Level.HARD: "which products are defined, with a transpose; a trace"},
    ),
    Family(
        "softmax", "Softmax", "Machine learning",
        ("softmax", "cross entropy", "cross-entropy", "softmax regression",
         "softmax classifier", "logits"),
        ("classification", "classifier", "neural network", "loss function", "loss"),
        learning.softmax,
        {Level.EASY: "two logits", Level.MEDIUM: "three logits and the cross-entropy loss",
         Level.HARD: "large logits (the max shift) and the gradient p - y"},
    ),
    Family(
        "linear-regression-step", "A gradient step of linear regression", "Machine learning",
        ("linear regression", "gradient descent", "gradient step", "sgd",
         "stochastic gradient descent", "minibatch", "squared loss", "weight decay",
         "learning rate", "least squares"),
        ("regression", "gradient", "optimization", "optimisation", "training", "loss",
         "machine learning"),
        learning.regression_step,
        {Level.EASY: "one example, one weight", Level.MEDIUM: "a minibatch with a bias",
         Level.HARD: "two features with weight decay"},
    ),
)  # fmt: skip

_BY_ID = {family.id: family for family in FAMILIES}
_STEMMER = snowballstemmer.stemmer("english")
# Words that say nothing about which family ("an exercise on the ... of ...").
_FILLER = frozenset(
    {"a", "an", "the", "of", "on", "in", "for", "to", "and", "with", "by", "about", "some",
     "exercise", "exercises", "problem", "problems", "practice", "question", "questions",
     "me", "please", "rule", "rules"}
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class Drawn:
    """One exercise drawn from a family: the exercise, the data its answers were computed
    from, and the shape of the draw in words."""

    family: Family
    level: Level
    seed: int
    definition: ExerciseDefinition
    given: dict[str, Any]
    shape: str


def family_name(family: Family) -> str:
    """The family's subject in running text: "product rule", "z-scores"."""
    title = family.title.removeprefix("The ").removeprefix("A ")
    return title[0].lower() + title[1:]


def named_in(family: Family, text: str) -> bool:
    """Whether `text` names the family by one of its own names (as a phrase, stemmed)."""
    words = _words(text)
    return any(_contains(_words(name), words) for name in family.names)


def _words(text: str) -> tuple[str, ...]:
    words = re.findall(r"[a-z0-9/]+", text.casefold().replace("-", " "))
    return tuple(_STEMMER.stemWord(word) for word in words)


def _contains(phrase: tuple[str, ...], words: tuple[str, ...]) -> bool:
    size = len(phrase)
    return any(words[i : i + size] == phrase for i in range(len(words) - size + 1))


def match_families(request: str) -> list[Family]:
    """The families a request names: those whose own name it contains (the longest name
    wins: "tangent line" over "line"), else those of the area it names ("derivatives")."""
    words = _words(request)
    if not [w for w in words if w not in _FILLER]:
        return []
    best, named = 0, []
    for family in FAMILIES:
        length = max(
            (len(phrase) for n in family.names if _contains(phrase := _words(n), words)),
            default=0,
        )
        if length > best:
            best, named = length, [family]
        elif length and length == best:
            named.append(family)
    if named:
        return named
    return [f for f in FAMILIES if any(_contains(_words(area), words) for area in f.areas)]


def base_id(family: Family, level: Level) -> str:
    return f"{family.id}-{level.value}"


def split_base_id(exercise_id: str) -> tuple[Family, Level] | None:
    for level in Level:
        family = _BY_ID.get(exercise_id.removesuffix(f"-{level.value}"))
        if family is not None and exercise_id.endswith(f"-{level.value}"):
            return family, level
    return None


def draw(family: Family, level: Level, seed: int) -> Drawn:
    """The exercise for this seed, validated; the same seed always gives the same one."""
    problem: Exception | None = None
    for attempt in range(_TRIES):
        rng = random.Random(f"{family.id}/{level.value}/{seed}/{attempt}")
        built = family.build(rng, level)
        try:
            definition = _definition(family, level, seed, built)
        except ValidationError as error:  # a hint that happens to hold this draw's answer
            problem = error
            continue
        return Drawn(family, level, seed, definition, dict(built.given), built.shape)
    raise RuntimeError(f"no valid draw of {family.id} ({level}) for seed {seed}: {problem}")


def _definition(family: Family, level: Level, seed: int, built: Built) -> ExerciseDefinition:
    skills = list(dict.fromkeys(step["skill"] for step in built.steps))
    return ExerciseDefinition.model_validate(
        {
            "id": instance_id(base_id(family, level), seed),
            "title": f"{built.title or family.title} ({level.value})",
            "topic": family.topic,
            "skills": skills,
            "description": built.statement,
            "steps": built.steps,
        }
    )


@lru_cache(maxsize=512)
def drawn_instance(exercise_id: str) -> Drawn | None:
    """The drawn exercise an instance id names, or None when it names no family's draw."""
    split = split_instance_id(exercise_id)
    if split is None:
        return None
    named = split_base_id(split[0])
    return draw(*named, split[1]) if named is not None else None


__all__ = [
    "FAMILIES",
    "Drawn",
    "Family",
    "Level",
    "base_id",
    "draw",
    "drawn_instance",
    "family_name",
    "match_families",
    "named_in",
    "split_base_id",
]
