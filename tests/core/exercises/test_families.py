"""The built-in exercise families: every stated answer recomputed independently (sympy's own
`diff`, `limit` and `integrate`, Python's `statistics`, numpy) over many seeds and graded as
a student would type it; the levels differ in the structure of what is drawn, not only in
its numbers; a request's words pick the family."""

from __future__ import annotations

import re
import statistics
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
import sympy
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core.exercises import ChoiceAnswer, NumericAnswer, SymbolicAnswer, grade_answer
from core.exercises.expressions import read_expression
from core.exercises.families import (
    FAMILIES,
    Drawn,
    Level,
    draw,
    drawn_instance,
    match_families,
)
from core.exercises.families.base import X, text

SEEDS = st.integers(min_value=0, max_value=2**32 - 1)
BY_ID = {family.id: family for family in FAMILIES}


def drawn(family_id: str, level: Level, seed: int) -> Drawn:
    return draw(BY_ID[family_id], level, seed)


def accepts(step_answer: Any, truth: Any) -> None:
    """The stated answer takes the independently computed truth, typed as a student would,
    and refuses a value next to it (so the check can fail)."""
    if isinstance(step_answer, SymbolicAnswer):
        typed = text(sympy.sympify(truth))
        assert grade_answer(step_answer, typed).correct, (step_answer.expression, typed)
        assert not grade_answer(step_answer, text(sympy.sympify(truth) + X + 1)).correct
    else:
        assert isinstance(step_answer, NumericAnswer)
        value = float(truth)
        assert grade_answer(step_answer, repr(value)).correct, (step_answer.value, value)
        assert not grade_answer(step_answer, repr(value + max(1.0, abs(value) / 10))).correct


def chosen(step_answer: Any) -> str:
    assert isinstance(step_answer, ChoiceAnswer) and len(step_answer.correct) == 1
    return step_answer.options[step_answer.correct[0]]


# Independent recomputation, one per family ------------------------------------------------


def check_derivative_family(d: Drawn) -> None:
    f, steps = d.given["f"], d.definition.steps
    derivative = sympy.diff(f, X)
    accepts(steps[1].answer, derivative)
    x0 = d.given.get("x0")
    last = steps[-1].answer
    if x0 is not None:
        accepts(last, derivative.subs(X, x0))
    elif d.family.id == "product-rule" and d.given["v"].func is sympy.exp:
        accepts(last, sympy.expand(sympy.simplify(derivative / d.given["v"])))
    elif d.family.id == "product-rule":
        v = d.given["v"]
        other = (sympy.cos if v.func is sympy.sin else sympy.sin)(v.args[0])
        accepts(last, sympy.expand(derivative).coeff(other))
    elif d.given["u"].func is sympy.exp:  # quotient: N(x) = e^(kx)·q(x)
        u, v = d.given["u"], d.given["v"]
        accepts(last, sympy.simplify(derivative * v**2 / u))
    else:  # quotient: ln(x)/x^n has f' = 0 where
        [root] = sympy.solve(sympy.numer(sympy.together(derivative)), X)
        accepts(last, root)
    if d.family.id == "quotient-rule":
        u, v = d.given["u"], d.given["v"]
        accepts(steps[0].answer, sympy.simplify(derivative * v**2))
    if d.family.id == "product-rule":
        accepts(steps[0].answer, sympy.diff(d.given["v"], X))


def check_chain_rule(d: Drawn) -> None:
    f, x0, steps = d.given["f"], d.given["x0"], d.definition.steps
    accepts(steps[1].answer, sympy.diff(f, X))
    accepts(steps[2].answer, sympy.diff(f, X).subs(X, x0))


def check_derivative_at_point(d: Drawn) -> None:
    f, x0, steps = d.given["f"], d.given["x0"], d.definition.steps
    slope = sympy.limit((f.subs(X, x0 + X) - f.subs(X, x0)) / X, X, 0)
    tangent = f.subs(X, x0) + slope * (X - x0)
    if d.level is Level.EASY:
        accepts(steps[0].answer, sympy.diff(f, X))
        accepts(steps[1].answer, slope)
    elif d.level is Level.MEDIUM:
        accepts(steps[0].answer, f.subs(X, x0))
        accepts(steps[1].answer, slope)
        accepts(steps[2].answer, tangent)
    else:
        h = sympy.Symbol("h")
        quotient = sympy.cancel((f.subs(X, x0 + h) - f.subs(X, x0)) / h)
        assert grade_answer(steps[0].answer, text(quotient)).correct
        accepts(steps[1].answer, slope)
        accepts(steps[2].answer, tangent)


def check_limit(d: Drawn) -> None:
    f, a, steps = d.given["f"], d.given["a"], d.definition.steps
    assert sympy.simplify(sympy.denom(sympy.together(f)).subs(X, a)) == 0  # really 0/0
    accepts(steps[2].answer, sympy.limit(f, X, a))
    answer = steps[1].answer
    assert isinstance(answer, SymbolicAnswer)
    assert sympy.simplify(read_expression(answer.expression, ("x",)) - f) == 0
    if d.level is Level.EASY:
        assert chosen(steps[0].answer).startswith("0/0")


def check_integral(d: Drawn) -> None:
    g = d.given
    value = sympy.integrate(g["f"], (X, g["lower"], g["upper"]))
    steps = d.definition.steps
    accepts(steps[2].answer, value)
    accepts(steps[1].answer, g["inner"].subs(X, g["upper"]))
    if d.level is Level.HARD:
        # The chosen u really turns the integrand into u^n du.
        u = read_expression(chosen(steps[0].answer).removeprefix("u = "), ("x",))
        n = int(re.search(r"u\^(\d+) du", steps[0].prompt).group(1))  # type: ignore[union-attr]
        assert sympy.simplify(g["f"] / sympy.diff(u, X) - u**n) == 0


def check_mean_and_variance(d: Drawn) -> None:
    steps = d.definition.steps
    if d.level is Level.HARD:
        values, probabilities = d.given["values"], d.given["probabilities"]
        mean = sum(v * p for v, p in zip(values, probabilities, strict=True))
        variance = sum((v - mean) ** 2 * p for v, p in zip(values, probabilities, strict=True))
        accepts(steps[0].answer, mean)
        accepts(steps[2].answer, variance)
        return
    data = d.given["data"]
    accepts(steps[0].answer, statistics.mean(data))
    if d.level is Level.EASY:
        accepts(steps[1].answer, statistics.pvariance(data))
    else:
        accepts(steps[1].answer, statistics.variance(data) * (len(data) - 1))
        accepts(steps[2].answer, statistics.stdev(data))


def check_z_score(d: Drawn) -> None:
    g, steps = d.given, d.definition.steps
    if d.level is Level.EASY:
        accepts(steps[1].answer, (g["x"] - g["mu"]) / g["sigma"])
    elif d.level is Level.MEDIUM:
        z1 = (g["scores"][0] - g["first"][0]) / g["first"][1]
        z2 = (g["scores"][1] - g["second"][0]) / g["second"][1]
        accepts(steps[0].answer, z1)
        accepts(steps[1].answer, z2)
        assert chosen(steps[2].answer).startswith("Ana" if z1 > z2 else "Ben")
    else:
        data = g["data"]
        accepts(steps[1].answer, statistics.stdev(data))
        accepts(steps[2].answer, (g["x"] - statistics.mean(data)) / statistics.stdev(data))


def check_matrix_product(d: Drawn) -> None:
    a = np.array(d.given["A"].tolist(), dtype=float)
    b = np.array(d.given["B"].tolist(), dtype=float)
    steps = d.definition.steps
    if d.level is Level.HARD:
        product = a @ b.T
        assert chosen(steps[0].answer) == "ABᵀ"
        accepts(steps[1].answer, product[0, 1])
        accepts(steps[2].answer, np.trace(product))
        return
    product = a @ b
    for step in steps:
        if isinstance(step.answer, ChoiceAnswer):
            assert chosen(step.answer) == f"{product.shape[0]}×{product.shape[1]}"
            continue
        i, j = (int(n) for n in step.prompt.split("entry (")[1].split(")")[0].split(", "))
        matrix = (b @ a) if "of BA" in step.prompt else product
        accepts(step.answer, matrix[i - 1, j - 1])


def _softmax(logits: list[int]) -> np.ndarray:
    z = np.array(logits, dtype=float)
    e = np.exp(z - z.max())
    return e / e.sum()


def check_softmax(d: Drawn) -> None:
    logits, steps = d.given["logits"], d.definition.steps
    p = _softmax(logits)
    if d.level is Level.EASY:
        accepts(steps[0].answer, np.exp(logits[0]) + np.exp(logits[1]))
        accepts(steps[1].answer, p[0])
    elif d.level is Level.MEDIUM:
        label = d.given["label"]
        accepts(steps[0].answer, p[label - 1])
        accepts(steps[1].answer, -np.log(p[label - 1]))
    else:
        label, other = d.given["label"], d.given["other"]
        assert chosen(steps[0].answer).endswith(str(max(logits)))
        accepts(steps[1].answer, p[label - 1])
        # The gradient of -ln softmax_label by the other logit, differentiated by sympy.
        zs = sympy.symbols("z1:4")
        loss = -sympy.log(sympy.exp(zs[label - 1]) / sum(sympy.exp(z) for z in zs))
        shifted = [z - max(logits) for z in logits]
        gradient = sympy.diff(loss, zs[other - 1]).subs(dict(zip(zs, shifted, strict=True)))
        accepts(steps[2].answer, gradient)


def check_regression(d: Drawn) -> None:
    g, steps = d.given, d.definition.steps
    w, b = sympy.symbols("w b")
    if d.level is Level.EASY:
        loss = (w * g["x"] - g["y"]) ** 2 / 2
        gradient = sympy.diff(loss, w).subs(w, g["w"])
        accepts(steps[1].answer, gradient)
        accepts(steps[2].answer, g["w"] - g["eta"] * gradient)
        return
    if d.level is Level.MEDIUM:
        pairs = list(zip(g["xs"], g["ys"], strict=True))
        loss = sum((w * x + b - y) ** 2 / 2 for x, y in pairs) / len(pairs)
        at = {w: g["w"], b: g["b"]}
        accepts(steps[0].answer, sympy.diff(loss, b).subs(at))
        accepts(steps[1].answer, sympy.diff(loss, w).subs(at))
        accepts(steps[2].answer, g["w"] - g["eta"] * sympy.diff(loss, w).subs(at))
        return
    w1, w2 = sympy.symbols("w1 w2")
    examples = g["examples"]
    loss = sum((w1 * p + w2 * q + b - y) ** 2 / 2 for (p, q), y in examples) / len(examples)
    loss += g["decay"] / 2 * (w1**2 + w2**2)
    at = {w1: g["w"][0], w2: g["w"][1], b: g["b"]}
    grad_w1, grad_b = sympy.diff(loss, w1).subs(at), sympy.diff(loss, b).subs(at)
    accepts(steps[0].answer, grad_w1)
    accepts(steps[1].answer, g["w"][0] - g["eta"] * grad_w1)
    accepts(steps[2].answer, g["b"] - g["eta"] * grad_b)


CHECKS: dict[str, Callable[[Drawn], None]] = {
    "product-rule": check_derivative_family,
    "quotient-rule": check_derivative_family,
    "chain-rule": check_chain_rule,
    "derivative-at-a-point": check_derivative_at_point,
    "limit-by-factoring": check_limit,
    "integral-by-substitution": check_integral,
    "mean-and-variance": check_mean_and_variance,
    "z-score": check_z_score,
    "matrix-product": check_matrix_product,
    "softmax": check_softmax,
    "linear-regression-step": check_regression,
}


def test_every_family_has_an_independent_check() -> None:
    assert set(CHECKS) == {family.id for family in FAMILIES}


@pytest.mark.parametrize("family_id", sorted(CHECKS))
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=SEEDS, level=st.sampled_from(list(Level)))
def test_every_stated_answer_is_what_sympy_computes(
    family_id: str, seed: int, level: Level
) -> None:
    CHECKS[family_id](drawn(family_id, level, seed))


@pytest.mark.parametrize("family_id", sorted(CHECKS))
def test_a_draw_is_the_same_for_its_seed_and_named_by_its_id(family_id: str) -> None:
    first = drawn(family_id, Level.HARD, 1234)
    again = drawn_instance(first.definition.id)
    assert again is not None and again.definition == first.definition
    assert drawn(family_id, Level.HARD, 1235).definition != first.definition


# Levels differ in kind ----------------------------------------------------------------------


def _functions(expression: sympy.Expr) -> set[type]:
    return {node.func for node in sympy.preorder_traversal(expression) if node.args}


def test_a_hard_product_rule_multiplies_a_polynomial_by_exp_or_trig_of_kx() -> None:
    for seed in range(20):
        easy, hard = (
            drawn("product-rule", Level.EASY, seed),
            drawn("product-rule", Level.HARD, seed),
        )
        assert easy.given["f"].is_polynomial(X)
        assert not hard.given["f"].is_polynomial(X)
        u, v = hard.given["u"], hard.given["v"]
        assert u.is_polynomial(X) and sympy.degree(u, X) == 2
        assert v.func in (sympy.exp, sympy.sin, sympy.cos)
        assert sympy.diff(v.args[0], X) not in (0, 1)  # an inside other than x: the chain rule
        # ...and one more step that asks for the derivative simplified (factored or collected).
        assert (
            len(hard.definition.steps) == 3 and hard.definition.steps[2].skill == "simplification"
        )
        assert easy.definition.steps[2].skill == "evaluating-derivatives"


@pytest.mark.parametrize("seed", range(10))
def test_calculus_levels_draw_different_kinds_of_function(seed: int) -> None:
    for family_id in ("quotient-rule", "chain-rule"):
        easy, hard = (drawn(family_id, level, seed) for level in (Level.EASY, Level.HARD))
        assert easy.given["f"].is_rational_function(X)
        assert not hard.given["f"].is_rational_function(X)
    chain = drawn("chain-rule", Level.HARD, seed).given["f"]
    assert _functions(chain) & {sympy.sin, sympy.cos}  # a trigonometric middle layer
    limit_easy = drawn("limit-by-factoring", Level.EASY, seed).given["f"]
    limit_hard = drawn("limit-by-factoring", Level.HARD, seed).given["f"]
    assert sympy.degree(sympy.numer(sympy.together(limit_easy)), X) == 2
    # Hard: a square root to rationalise, or a cubic numerator; easy: a quadratic one.
    top = sympy.numer(sympy.together(limit_hard))
    roots = [p for p in sympy.preorder_traversal(top) if p.is_Pow and p.exp == sympy.S.Half]
    assert roots or sympy.degree(top, X) == 3
    integrand = drawn("integral-by-substitution", Level.HARD, seed).given["f"]
    assert _functions(integrand) & {sympy.sin, sympy.log, sympy.tan}
    assert drawn("integral-by-substitution", Level.EASY, seed).given["f"].is_polynomial(X)
    point_hard = drawn("derivative-at-a-point", Level.HARD, seed).definition.steps[0]
    assert point_hard.skill == "difference-quotient"


@pytest.mark.parametrize("seed", range(10))
def test_data_and_learning_levels_ask_different_things(seed: int) -> None:
    def skills(family_id: str, level: Level) -> list[str]:
        return [s.skill for s in drawn(family_id, level, seed).definition.steps]

    assert "expectation" in skills("mean-and-variance", Level.HARD)
    assert "expectation" not in skills("mean-and-variance", Level.EASY)
    assert "standard-deviation" in skills("mean-and-variance", Level.MEDIUM)
    assert "comparing-z-scores" in skills("z-score", Level.MEDIUM)
    assert "standard-deviation" in skills("z-score", Level.HARD)
    assert "matrix-shapes" in skills("matrix-product", Level.HARD)
    assert "matrix-shapes" not in skills("matrix-product", Level.EASY)
    assert "numerical-stability" in skills("softmax", Level.HARD)
    assert "cross-entropy" in skills("softmax", Level.MEDIUM)
    hard_regression = drawn("linear-regression-step", Level.HARD, seed).given
    assert len(hard_regression["w"]) == 2 and hard_regression["decay"] > 0
    assert "b" not in drawn("linear-regression-step", Level.EASY, seed).given


def test_the_point_a_derivative_is_evaluated_at_is_drawn() -> None:
    points = {drawn("derivative-at-a-point", Level.EASY, seed).given["x0"] for seed in range(30)}
    assert len(points) >= 4
    prompts = {drawn("derivative-at-a-point", Level.EASY, s).definition.steps[1].prompt
               for s in range(30)}  # fmt: skip
    assert len(prompts) > 1 and any("f'(1)" not in p for p in prompts)


# Matching a request to a family ------------------------------------------------------------


@pytest.mark.parametrize(
    ("request_text", "expected"),
    [
        ("product rule", ["product-rule"]),
        ("the Product Rule", ["product-rule"]),
        ("quotient rule", ["quotient-rule"]),
        ("chain rule", ["chain-rule"]),
        ("tangent line", ["derivative-at-a-point"]),
        ("limit definition of the derivative", ["derivative-at-a-point"]),
        ("limits", ["limit-by-factoring"]),
        ("integration by substitution", ["integral-by-substitution"]),
        ("variance", ["mean-and-variance"]),
        ("z-scores", ["z-score"]),
        ("matrix multiplication", ["matrix-product"]),
        ("softmax classifier", ["softmax"]),
        ("cross-entropy loss", ["softmax"]),
        ("linear regression", ["linear-regression-step"]),
        ("minibatch stochastic gradient descent", ["linear-regression-step"]),
    ],
)
def test_a_request_names_its_family(request_text: str, expected: list[str]) -> None:
    assert [f.id for f in match_families(request_text)] == expected


def test_an_area_names_every_family_in_it() -> None:
    ids = {f.id for f in match_families("derivatives")}
    assert ids == {"product-rule", "quotient-rule", "chain-rule", "derivative-at-a-point"}


@pytest.mark.parametrize("request_text", ["", "the", "quantum chromodynamics", "office hours"])
def test_a_topic_without_a_family_matches_none(request_text: str) -> None:
    assert match_families(request_text) == []
