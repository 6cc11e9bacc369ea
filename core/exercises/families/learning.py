"""Families from linear algebra and the first weeks of machine learning: a matrix product,
a softmax (with its cross-entropy loss and gradient), and a gradient step of linear
regression.

Answers are exact where they can be (sympy matrices and Rationals) and stated to three
decimals otherwise; the tests recompute each with numpy from the drawn data."""

from __future__ import annotations

import random

import sympy

from core.exercises.families.base import (
    Built,
    Level,
    choice_step,
    number,
    numeric_step,
    shuffled,
)


def _matrix(rng: random.Random, rows: int, columns: int) -> sympy.Matrix:
    return sympy.Matrix(rows, columns, lambda *_: rng.randint(-4, 5))


def _rows(name: str, matrix: sympy.Matrix) -> str:
    rows = "; ".join(" ".join(str(v) for v in matrix.row(i)) for i in range(matrix.rows))
    return f"{name} = [{rows}]"


def _shape(matrix: sympy.Matrix) -> str:
    return f"{matrix.rows}×{matrix.cols}"


_ENTRY_HINT = "Entry (i, j) of a product is row i of the left matrix times column j of the right."


def matrix_product(rng: random.Random, level: Level) -> Built:
    if level is Level.EASY:
        a, b = _matrix(rng, 2, 2), _matrix(rng, 2, 2)
        product = a * b
        i, j = rng.choice([(1, 2), (2, 1)])
        steps = [
            numeric_step(
                f"{_rows('A', a)} and {_rows('B', b)} (rows separated by ';'). What is entry "
                "(1, 1) of AB?",
                "matrix-product",
                [_ENTRY_HINT, "Multiply the pairs of entries and add the products."],
                product[0, 0],
            ),
            numeric_step(
                f"What is entry ({i}, {j}) of AB?",
                "matrix-product",
                [_ENTRY_HINT],
                product[i - 1, j - 1],
            ),
            numeric_step(
                "What is entry (2, 2) of AB?",
                "matrix-product",
                [_ENTRY_HINT],
                product[1, 1],
            ),
        ]
        return Built(
            f"Multiply {_rows('A', a)} by {_rows('B', b)}.",
            steps,
            {"A": a, "B": b},
            "2×2 times 2×2",
        )
    if level is Level.MEDIUM:
        a, b = _matrix(rng, 2, 3), _matrix(rng, 3, 2)
        i, j = rng.randint(1, 2), rng.randint(1, 2)
        k, m = rng.randint(1, 3), rng.randint(1, 3)
        steps = [
            choice_step(
                f"{_rows('A', a)} is 2×3 and {_rows('B', b)} is 3×2. What is the shape of AB?",
                "matrix-shapes",
                ["The product keeps the rows of the left matrix and the columns of the right."],
                *shuffled(rng, "2×2", ["3×3", "2×3", "AB is not defined"]),
            ),
            numeric_step(
                f"What is entry ({i}, {j}) of AB?",
                "matrix-product",
                [_ENTRY_HINT, "A row of A and a column of B both have three entries."],
                (a * b)[i - 1, j - 1],
            ),
            numeric_step(
                f"BA is defined too, and is 3×3. What is entry ({k}, {m}) of BA?",
                "matrix-product",
                [_ENTRY_HINT, "Now B is on the left: take a row of B and a column of A."],
                (b * a)[k - 1, m - 1],
            ),
        ]
        return Built(
            f"Multiply the 2×3 matrix {_rows('A', a)} and the 3×2 matrix {_rows('B', b)}.",
            steps,
            {"A": a, "B": b},
            "rectangular: shapes and order matter",
        )
    a, b = _matrix(rng, 2, 3), _matrix(rng, 2, 3)
    product = a * b.T
    steps = [
        choice_step(
            f"{_rows('A', a)} and {_rows('B', b)} are both 2×3. Which product is defined?",
            "matrix-shapes",
            ["A product needs the columns of the left matrix to match the rows of the right; "
             "transposing swaps rows and columns."],
            *shuffled(rng, "ABᵀ", ["AB", "BA", "AᵀBᵀ"]),
        ),
        numeric_step(
            "What is entry (1, 2) of ABᵀ?",
            "matrix-product",
            ["Column j of Bᵀ is row j of B: entry (i, j) is row i of A times row j of B."],
            product[0, 1],
        ),
        numeric_step(
            "What is the trace of ABᵀ (the sum of its diagonal)?",
            "matrix-product",
            ["Each diagonal entry is a row of A times the same row of B."],
            product.trace(),
        ),
    ]  # fmt: skip
    return Built(
        f"Work with the product of {_rows('A', a)} and the transpose of {_rows('B', b)}.",
        steps,
        {"A": a, "B": b},
        "transposes and which products are defined",
    )


# Softmax -----------------------------------------------------------------------------------


def _softmax(logits: list[int]) -> list[sympy.Expr]:
    exps = [sympy.exp(z) for z in logits]
    total = sum(exps)
    return [e / total for e in exps]


def softmax(rng: random.Random, level: Level) -> Built:
    if level is Level.EASY:
        logits = [rng.randint(-2, 3), rng.randint(-2, 3)]
        while logits[0] == logits[1]:
            logits[1] = rng.randint(-2, 3)
        total = sum(sympy.exp(z) for z in logits)
        steps = [
            numeric_step(
                f"A classifier gives the logits z = ({logits[0]}, {logits[1]}). What is "
                "e^z1 + e^z2, the softmax denominator? Three decimals.",
                "softmax",
                ["Exponentiate each logit and add."],
                total,
            ),
            numeric_step(
                "What is the softmax probability of class 1? Three decimals.",
                "softmax",
                ["Class 1's exponential divided by the sum of both."],
                sympy.exp(logits[0]) / total,
            ),
        ]
        return Built(
            f"Turn the logits ({logits[0]}, {logits[1]}) into probabilities with softmax.",
            steps,
            {"logits": logits},
            "two logits: probabilities",
        )
    if level is Level.MEDIUM:
        logits = [rng.randint(-2, 3) for _ in range(3)]
        while len(set(logits)) < 2:
            logits = [rng.randint(-2, 3) for _ in range(3)]
        label = rng.randint(1, 3)
        probabilities = _softmax(logits)
        steps = [
            numeric_step(
                f"Logits z = ({', '.join(map(str, logits))}). What is the softmax probability "
                f"of class {label}? Three decimals.",
                "softmax",
                ["Exponentiate every logit; divide this class's exponential by their sum."],
                probabilities[label - 1],
            ),
            numeric_step(
                f"The true class is {label}. What is the cross-entropy loss -ln(p)? "
                "Three decimals.",
                "cross-entropy",
                ["The loss is minus the natural logarithm of the true class's probability."],
                -sympy.log(probabilities[label - 1]),
            ),
        ]
        return Built(
            f"Softmax and cross-entropy for the logits ({', '.join(map(str, logits))}).",
            steps,
            {"logits": logits, "label": label},
            "three logits: probability and loss",
        )
    base = rng.choice([800, 1000, 1200])  # e^710 already overflows a double
    offsets = rng.sample(range(0, 5), 3)
    logits = [base + o for o in offsets]
    label, other = rng.sample(range(1, 4), 2)
    probabilities = _softmax(offsets)  # the same after the shift
    largest = max(logits)
    steps = [
        choice_step(
            f"Logits z = ({', '.join(map(str, logits))}): e^z overflows in floating point. "
            "What do you subtract from every logit before exponentiating?",
            "numerical-stability",
            [
                "Softmax does not change when the same number is subtracted from every logit; "
                "choose it so that no exponent is positive."
            ],
            *shuffled(
                rng,
                f"the largest logit, {largest}",
                [
                    f"the smallest logit, {min(logits)}",
                    "nothing: the result would change",
                    "the sum of the logits",
                ],
            ),
        ),
        numeric_step(
            f"What is the softmax probability of class {label}? Three decimals.",
            "softmax",
            ["After the shift, exponentiate the small differences and normalise."],
            probabilities[label - 1],
        ),
        numeric_step(
            f"The true class is {label}, and the loss is cross-entropy. What is ∂L/∂z{other}, "
            "the gradient for the logit of another class? Three decimals.",
            "softmax-gradient",
            ["For softmax with cross-entropy, ∂L/∂z_j is p_j minus the one-hot label y_j."],
            probabilities[other - 1],
            solution=f"p{other} - y{other} = {number(probabilities[other - 1])} - 0",
        ),
    ]
    return Built(
        f"A numerically stable softmax of ({', '.join(map(str, logits))}), and its gradient.",
        steps,
        {"logits": logits, "label": label, "other": other},
        "large logits: the max shift and the gradient p - y",
    )


# A gradient step of linear regression ------------------------------------------------------


def _rate(rng: random.Random) -> sympy.Rational:
    if rng.random() < 0.5:
        return sympy.Rational(rng.choice([1, 2, 5]), 100)
    return sympy.Rational(1, 10)


def regression_step(rng: random.Random, level: Level) -> Built:
    eta = _rate(rng)
    if level is Level.EASY:
        w, x, y = rng.randint(-2, 3), rng.randint(1, 4), rng.randint(-5, 8)
        prediction = w * x
        gradient = (prediction - y) * x
        steps = [
            numeric_step(
                f"A model ŷ = w·x has w = {w}. For the example x = {x}, y = {y}, what is ŷ?",
                "prediction",
                ["Multiply the weight by the input."],
                prediction,
            ),
            numeric_step(
                "With the loss L = ½(ŷ - y)², what is dL/dw?",
                "gradient",
                ["By the chain rule: the error ŷ - y times the derivative of ŷ with respect "
                 "to w, which is x."],
                gradient,
            ),
            numeric_step(
                f"Take one gradient-descent step with learning rate η = {eta}: what is the new "
                "w?",
                "gradient-descent",
                ["Move against the gradient: w minus η times dL/dw."],
                w - eta * gradient,
            ),
        ]  # fmt: skip
        return Built(
            f"One gradient step for ŷ = w·x on the example ({x}, {y}), from w = {w}.",
            steps,
            {"w": w, "x": x, "y": y, "eta": eta},
            "one example, one weight",
        )
    if level is Level.MEDIUM:
        w, b = rng.randint(-2, 2), rng.randint(-2, 2)
        xs = rng.sample(range(-2, 5), 3)
        ys = [rng.randint(-4, 8) for _ in xs]
        errors = [w * x + b - y for x, y in zip(xs, ys, strict=True)]
        n = len(xs)
        grad_w = sympy.Rational(sum(e * x for e, x in zip(errors, xs, strict=True)), n)
        grad_b = sympy.Rational(sum(errors), n)
        batch = ", ".join(f"({x}, {y})" for x, y in zip(xs, ys, strict=True))
        steps = [
            numeric_step(
                f"ŷ = w·x + b with w = {w}, b = {b}; the minibatch is {batch}; the loss is "
                "L = (1/n) Σ ½(ŷᵢ - yᵢ)². What is ∂L/∂b?",
                "gradient",
                ["The derivative of each term with respect to b is its error ŷᵢ - yᵢ: "
                 "average the errors."],
                grad_b,
            ),
            numeric_step(
                "What is ∂L/∂w?",
                "gradient",
                ["Each error is multiplied by its own input before averaging."],
                grad_w,
            ),
            numeric_step(
                f"With learning rate η = {eta}, what is the new w?",
                "gradient-descent",
                ["w minus η times ∂L/∂w."],
                w - eta * grad_w,
            ),
        ]  # fmt: skip
        return Built(
            f"One minibatch gradient step for ŷ = w·x + b on {batch}.",
            steps,
            {"w": w, "b": b, "xs": xs, "ys": ys, "eta": eta},
            "a minibatch, weight and bias",
        )
    w1, w2, b = rng.randint(-2, 2), rng.randint(-2, 2), rng.randint(-1, 1)
    decay = sympy.Rational(rng.choice([1, 2, 5]), 10)
    examples = [((rng.randint(-2, 3), rng.randint(-2, 3)), rng.randint(-4, 6)) for _ in range(2)]
    errors = [w1 * p + w2 * q + b - y for (p, q), y in examples]
    n = len(examples)
    grad_w1 = sympy.Rational(sum(e * p for e, ((p, _), _) in zip(errors, examples, strict=True)), n)
    grad_w1 += decay * w1
    grad_b = sympy.Rational(sum(errors), n)
    batch = ", ".join(f"x = ({p}, {q}), y = {y}" for (p, q), y in examples)
    steps = [
        numeric_step(
            f"ŷ = w·x + b with w = ({w1}, {w2}) and b = {b}; the minibatch is {batch}. The loss "
            f"is L = (1/n) Σ ½(ŷᵢ - yᵢ)² + (λ/2)‖w‖² with weight decay λ = {decay}. "
            "What is ∂L/∂w1?",
            "gradient",
            ["Average each error times the first input, then add the weight decay term, "
             "λ times w1."],
            grad_w1,
        ),
        numeric_step(
            f"With learning rate η = {eta}, what is the new w1?",
            "gradient-descent",
            ["w1 minus η times ∂L/∂w1."],
            w1 - eta * grad_w1,
        ),
        numeric_step(
            "And the new b? (The weight decay does not apply to the bias.)",
            "gradient-descent",
            ["∂L/∂b is the average error; step against it."],
            b - eta * grad_b,
        ),
    ]  # fmt: skip
    return Built(
        f"One gradient step with weight decay for a two-feature linear regression on {batch}.",
        steps,
        {"w": (w1, w2), "b": b, "examples": examples, "eta": eta, "decay": decay},
        "two features with weight decay",
    )
