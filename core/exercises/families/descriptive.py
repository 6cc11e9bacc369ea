"""Descriptive statistics families: the mean and the variance, and z-scores.

Values are exact (sympy Rationals) until they are stated, so a variance of 14/5 is 2.8 and
not 2.7999999; the tests recompute each answer from the drawn data with Python's own
`statistics` module."""

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


def _listed(values: list[int]) -> str:
    return ", ".join(str(v) for v in values)


def _mean(values: list[int]) -> sympy.Rational:
    return sympy.Rational(sum(values), len(values))


def mean_and_variance(rng: random.Random, level: Level) -> Built:
    if level is Level.EASY:
        data = [rng.randint(1, 12) for _ in range(5)]
        mean = _mean(data)
        variance = sum((v - mean) ** 2 for v in data) / len(data)
        steps = [
            numeric_step(
                f"The data are {_listed(data)}. What is their mean?",
                "mean",
                ["Add the values and divide by how many there are."],
                mean,
            ),
            numeric_step(
                "What is the population variance (divide by n)?",
                "variance",
                ["Subtract the mean from each value, square, add them up, divide by n."],
                variance,
            ),
        ]
        return Built(
            f"Find the mean and the population variance of {_listed(data)}.",
            steps,
            {"data": data},
            "a list: population variance",
        )
    if level is Level.MEDIUM:
        data = [rng.randint(10, 40) for _ in range(6)]
        mean = _mean(data)
        squares = sum((v - mean) ** 2 for v in data)
        deviation = sympy.sqrt(squares / (len(data) - 1))
        steps = [
            numeric_step(
                f"A sample: {_listed(data)}. What is its mean?",
                "mean",
                ["Add the values and divide by how many there are."],
                mean,
            ),
            numeric_step(
                "What is the sum of the squared deviations from the mean?",
                "variance",
                ["For each value: subtract the mean, square; then add them up."],
                squares,
            ),
            numeric_step(
                "What is the sample standard deviation (divide by n - 1)? Three decimals.",
                "standard-deviation",
                ["A sample's variance divides by one less than the count; the standard "
                 "deviation is its square root."],
                deviation,
            ),
        ]  # fmt: skip
        return Built(
            f"Find the mean and the sample standard deviation of the sample {_listed(data)}.",
            steps,
            {"data": data},
            "a sample: the n - 1 divisor and a square root",
        )
    values = sorted(rng.sample(range(-2, 7), 3))
    weights = rng.choice([(1, 2, 1), (1, 1, 2), (2, 1, 1), (1, 3, 1), (3, 1, 1), (2, 2, 1)])
    total = sum(weights)
    probabilities = [sympy.Rational(w, total) for w in weights]
    table = ", ".join(f"P(X = {v}) = {p}" for v, p in zip(values, probabilities, strict=True))
    expectation = sum(v * p for v, p in zip(values, probabilities, strict=True))
    second = sum(v**2 * p for v, p in zip(values, probabilities, strict=True))
    steps = [
        numeric_step(
            f"A random variable X takes three values: {table}. What is E[X]?",
            "expectation",
            ["Weight each value by its probability and add."],
            expectation,
        ),
        numeric_step(
            "What is E[X^2]?",
            "expectation",
            ["Square each value first, then weight by its probability and add."],
            second,
        ),
        numeric_step(
            "What is Var(X)?",
            "variance",
            ["Var(X) = E[X^2] - (E[X])^2."],
            second - expectation**2,
            solution=f"{number(second)} - ({number(expectation)})^2 = "
            f"{number(second - expectation**2)}",
        ),
    ]
    return Built(
        f"Find the mean and the variance of the random variable with {table}.",
        steps,
        {"values": values, "probabilities": probabilities},
        "a probability distribution: E[X] and E[X²]",
    )


def z_score(rng: random.Random, level: Level) -> Built:
    if level is Level.EASY:
        mu, sigma = rng.randrange(50, 80, 5), rng.choice([4, 5, 8, 10])
        x = mu + sigma * rng.choice([-2, -1, 1, 2]) + rng.choice([-2, 0, 2, 3])
        z = sympy.Rational(x - mu, sigma)
        steps = [
            numeric_step(
                f"Scores have mean {mu} and standard deviation {sigma}. How far is the score "
                f"{x} from the mean (x - μ)?",
                "deviation",
                ["Subtract the mean from the score; the sign says above or below."],
                x - mu,
            ),
            numeric_step(
                "What is its z-score?",
                "z-score",
                ["Divide the distance from the mean by the standard deviation."],
                z,
            ),
        ]
        return Built(
            f"Find the z-score of {x} when μ = {mu} and σ = {sigma}.",
            steps,
            {"x": x, "mu": mu, "sigma": sigma},
            "one score against μ and σ",
        )
    if level is Level.MEDIUM:
        first = (rng.randrange(55, 75, 5), rng.choice([5, 8, 10]))
        second = (rng.randrange(20, 40, 2), rng.choice([2, 3, 4]))
        scores = (first[0] + rng.randint(3, 15), second[0] + rng.randint(1, 8))
        z1 = sympy.Rational(scores[0] - first[0], first[1])
        z2 = sympy.Rational(scores[1] - second[0], second[1])
        while z1 == z2:
            scores = (scores[0] + 1, scores[1])
            z1 = sympy.Rational(scores[0] - first[0], first[1])
        better = "Ana (mathematics)" if z1 > z2 else "Ben (physics)"
        worse = "Ben (physics)" if z1 > z2 else "Ana (mathematics)"
        steps = [
            numeric_step(
                f"Ana scored {scores[0]} in mathematics (mean {first[0]}, standard deviation "
                f"{first[1]}). What is her z-score?",
                "z-score",
                ["Subtract the mean, divide by the standard deviation."],
                z1,
            ),
            numeric_step(
                f"Ben scored {scores[1]} in physics (mean {second[0]}, standard deviation "
                f"{second[1]}). What is his z-score?",
                "z-score",
                ["Subtract the mean, divide by the standard deviation."],
                z2,
            ),
            choice_step(
                "Relative to their own class, who did better?",
                "comparing-z-scores",
                ["The raw scores are on different scales: compare how many standard "
                 "deviations each is above the mean."],
                *shuffled(rng, better, [worse, "They did equally well", "It cannot be told"]),
            ),
        ]  # fmt: skip
        return Built(
            "Compare two scores from different exams with z-scores.",
            steps,
            {"scores": scores, "first": first, "second": second},
            "two distributions compared",
        )
    data = [rng.randint(2, 20) for _ in range(5)]
    while len(set(data)) == 1:
        data = [rng.randint(2, 20) for _ in range(5)]
    x = rng.choice(data)
    mean = _mean(data)
    deviation = sympy.sqrt(sum((v - mean) ** 2 for v in data) / (len(data) - 1))
    z = (x - mean) / deviation
    steps = [
        numeric_step(
            f"A sample: {_listed(data)}. What is its mean?",
            "mean",
            ["Add the values and divide by how many there are."],
            mean,
        ),
        numeric_step(
            "What is its sample standard deviation (divide by n - 1)? Three decimals.",
            "standard-deviation",
            ["Square the deviations from the mean, add them, divide by one less than the "
             "count, take the square root."],
            deviation,
        ),
        numeric_step(
            f"What is the z-score of the value {x} within this sample? Three decimals.",
            "z-score",
            ["Subtract the sample mean, divide by the sample standard deviation."],
            z,
        ),
    ]  # fmt: skip
    return Built(
        f"Standardise the value {x} within the sample {_listed(data)}.",
        steps,
        {"data": data, "x": x},
        "μ and σ estimated from a sample first",
    )
