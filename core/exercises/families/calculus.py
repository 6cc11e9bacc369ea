"""First-year calculus families: the product, quotient and chain rules, a derivative at a
point, limits by factoring, and definite integrals by substitution.

Each builder states its answers by the rule the step practises (the product rule written
out, the quotient rule's numerator, the limit of the factored form, the integral in u); the
tests recompute them from the drawn function with sympy's own `diff`, `limit` and
`integrate`, so a wrong formula here cannot pass."""

from __future__ import annotations

import random

import sympy

from core.exercises.families.base import (
    Built,
    H,
    Level,
    X,
    choice_step,
    nonzero,
    numeric_step,
    shown,
    shuffled,
    symbolic_step,
    text,
)

_TRIG = {"sin": sympy.sin, "cos": sympy.cos}


def _point(rng: random.Random, avoid: tuple[int, ...] = ()) -> int:
    """Where a derivative is evaluated: any small whole number, so not always x = 1."""
    return rng.choice([n for n in range(-3, 4) if n not in avoid])


# Product rule ------------------------------------------------------------------------------


def product_rule(rng: random.Random, level: Level) -> Built:
    a, b, c = nonzero(rng, -5, 5), nonzero(rng, -6, 6), nonzero(rng, -6, 6)
    if level is Level.EASY:
        u, v = X**2 + b, a * X + c
        shape = "polynomial × polynomial"
    elif level is Level.MEDIUM:
        n = rng.randint(2, 4)
        name = rng.choice(["sin", "cos", "exp"])
        u = a * X**n
        v = sympy.exp(X) if name == "exp" else _TRIG[name](X)
        shape = f"power of x × {name}(x)"
    else:
        name = rng.choice(["exp", "sin", "cos"])
        # sin(-kx) would be written -sin(kx): a negative k only inside the exponential.
        k = rng.choice([-3, -2, 2, 3] if name == "exp" else [2, 3])
        u = X**2 + b * X + c
        v = sympy.exp(k * X) if name == "exp" else _TRIG[name](k * X)
        shape = f"quadratic × {name}(kx)"
    du, dv = sympy.diff(u, X), sympy.diff(v, X)
    derivative = du * v + u * dv  # the rule, written out
    x0: sympy.Expr | int | None = None
    f = u * v
    steps = [
        symbolic_step(
            f"Write f(x) = u(x)·v(x) with u(x) = {shown(u)} and v(x) = {shown(v)}. "
            "What is v'(x)?",
            "chain-rule" if level is Level.HARD else "basic-derivatives",
            ["Differentiate the second factor on its own."]
            + (["The inside of v is a multiple of x: multiply by that constant."]
               if level is Level.HARD else []),
            dv,
        ),
        symbolic_step(
            "Now use the product rule: what is f'(x)?",
            "product-rule",
            ["The product rule: f' = u'·v + u·v'.", "Differentiate u, keep v; then keep u, "
             "differentiate v; add the two."],
            derivative,
            solution=f"f'(x) = ({shown(du)})·{shown(v)} + ({shown(u)})·{shown(dv)}",
        ),
    ]  # fmt: skip
    if level is Level.HARD and v.func is sympy.exp:
        k = v.args[0] / X
        q = sympy.expand(du + k * u)
        steps.append(
            symbolic_step(
                f"Factor out the exponential: f'(x) = {shown(v)}·q(x). What is q(x)?",
                "simplification",
                ["Both terms of f'(x) contain the same exponential: take it out and collect "
                 "the powers of x."],
                q,
            )
        )  # fmt: skip
    elif level is Level.HARD:
        inner = v.args[0]
        other = sympy.cos if v.func is sympy.sin else sympy.sin
        coefficient = sympy.expand(sympy.diff(f, X)).coeff(other(inner))
        steps.append(
            symbolic_step(
                f"Collect the terms: f'(x) = A(x)·{shown(other(inner))} + B(x)·{shown(v)}. "
                "What is A(x)?",
                "simplification",
                ["Only one of the two product-rule terms contains the other trigonometric "
                 "function: its factor in front is A(x)."],
                coefficient,
            )
        )  # fmt: skip
    else:
        x0 = (
            sympy.pi * rng.choice([1, 2]) / 2
            if shape.endswith(("sin(x)", "cos(x)"))
            else _point(rng)
        )
        steps.append(
            numeric_step(
                f"Evaluate f'(x) at x = {text(x0)}.",
                "evaluating-derivatives",
                ["Substitute the point into your f'(x) term by term."],
                derivative.subs(X, x0),
            )
        )
    return Built(
        f"Differentiate f(x) = {_paren(u)}·{_paren(v)} with the product rule.",
        steps,
        {"f": f, "u": u, "v": v, "x0": x0},
        shape,
    )


# Quotient rule -----------------------------------------------------------------------------


def quotient_rule(rng: random.Random, level: Level) -> Built:
    if level is Level.EASY:
        a, b, c, d = (nonzero(rng, -5, 5) for _ in range(4))
        while a * d == b * c:
            d = nonzero(rng, -5, 5)
        u, v = a * X + b, c * X + d
        shape = "linear / linear"
    elif level is Level.MEDIUM:
        a, b = nonzero(rng, -6, 6), nonzero(rng, -4, 4)
        while b**2 == -a:  # keep the numerator and denominator without a common factor
            a = nonzero(rng, -6, 6)
        u, v = X**2 + a, X + b
        shape = "quadratic / linear"
    else:
        if rng.random() < 0.5:
            k, a = rng.choice([-2, -1, 1, 2]), rng.randint(1, 5)
            u, v = sympy.exp(k * X), X**2 + a
            shape = "exponential / quadratic"
        else:
            u, v = sympy.log(X), X ** rng.randint(2, 3)
            shape = "logarithm / power"
    du, dv = sympy.diff(u, X), sympy.diff(v, X)
    numerator = sympy.expand(du * v - u * dv)
    derivative = (du * v - u * dv) / v**2
    x0: int | None = None
    f = u / v
    steps = [
        symbolic_step(
            f"f(x) = u(x)/v(x) with u(x) = {shown(u)} and v(x) = {shown(v)}. The quotient rule "
            "gives f'(x) = N(x)/v(x)^2. What is the numerator N(x)?",
            "quotient-rule",
            ["The numerator is u'·v minus u·v', in that order.",
             "Differentiate each part, multiply crosswise, subtract; mind the sign."],
            numerator,
        ),
        symbolic_step(
            "Write f'(x) in full.",
            "quotient-rule",
            ["Put your numerator over the square of the denominator."],
            derivative,
        ),
    ]  # fmt: skip
    if shape == "exponential / quadratic":
        q = sympy.expand(sympy.simplify(numerator / u))
        steps.append(
            symbolic_step(
                f"Factor out the exponential: N(x) = {shown(u)}·q(x). What is q(x)?",
                "simplification",
                ["Both terms of the numerator contain the exponential: take it out and collect "
                 "the rest."],
                q,
            )
        )  # fmt: skip
    elif shape == "logarithm / power":
        n = sympy.degree(v, X)
        steps.append(
            numeric_step(
                "Where is f'(x) = 0 (for x > 0)? Give x to three decimals or exactly.",
                "solving-equations",
                ["The denominator is never zero for x > 0: set the numerator to zero and "
                 "solve for ln(x), then exponentiate."],
                sympy.exp(sympy.Rational(1, n)),
            )
        )  # fmt: skip
    else:
        pole = sympy.solve(v, X)
        x0 = _point(rng, avoid=tuple(int(p) for p in pole if p.is_integer))
        steps.append(
            numeric_step(
                f"Evaluate f'(x) at x = {x0}.",
                "evaluating-derivatives",
                ["Substitute the point into the numerator and the denominator separately."],
                derivative.subs(X, x0),
            )
        )
    return Built(
        f"Differentiate f(x) = {shown(f)} with the quotient rule.",
        steps,
        {"f": f, "u": u, "v": v, "x0": x0},
        shape,
    )


# Chain rule --------------------------------------------------------------------------------


def chain_rule(rng: random.Random, level: Level) -> Built:
    if level is Level.EASY:
        a, b, n = nonzero(rng, -4, 4), nonzero(rng, -5, 5), rng.randint(3, 6)
        inner = a * X + b
        f = inner**n
        shape = "(linear)^n"
        middle_prompt = f"f(x) = {shown(f)} is an outer power of the inner g(x) = {shown(inner)}."
    elif level is Level.MEDIUM:
        a, b = nonzero(rng, -3, 3), rng.randint(1, 5)
        inner = a * X**2 + b
        outer = rng.choice(["sin", "exp", "sqrt"])
        f = {"sin": sympy.sin, "exp": sympy.exp, "sqrt": sympy.sqrt}[outer](inner)
        if outer == "sqrt":
            inner = X**2 + b
            f = sympy.sqrt(inner)
        shape = f"{outer}(quadratic)"
        middle_prompt = (
            f"f(x) = {shown(f)} is an outer function of the inner g(x) = {shown(inner)}."
        )
    else:
        k = rng.choice([2, 3])
        trig = rng.choice(["sin", "cos"])
        inner = _TRIG[trig](k * X)
        if rng.random() < 0.5:
            f = inner ** rng.randint(2, 4)
            shape = f"{trig}(kx)^n"
        else:
            f = sympy.exp(inner)
            shape = f"exp({trig}(kx))"
        middle_prompt = (
            f"f(x) = {shown(f)} has three layers: the middle one is g(x) = {shown(inner)}, "
            "itself a function of kx."
        )
    dg = sympy.diff(inner, X)
    # The outer function's derivative at the inner one, times the inner's derivative.
    u = sympy.Symbol("u")
    outer_of_u = f.subs(inner, u)
    derivative = sympy.diff(outer_of_u, u).subs(u, inner) * dg
    if level is Level.HARD:
        x0 = sympy.pi / (4 * k)
        point = f"x = {text(x0)}"
    else:
        x0 = _point(rng, avoid=(0,) if shape.startswith(("sin", "exp")) else ())
        if shape == "sqrt(quadratic)":
            x0 = rng.choice([1, 2, -2])
        point = f"x = {x0}"
    steps = [
        symbolic_step(
            f"{middle_prompt} What is g'(x)?",
            "chain-rule" if level is Level.HARD else "basic-derivatives",
            ["Differentiate the inner function on its own."]
            + (["The middle layer has its own inside, kx: its derivative brings out k."]
               if level is Level.HARD else []),
            dg,
        ),
        symbolic_step(
            "Use the chain rule: what is f'(x)?",
            "chain-rule",
            ["Differentiate the outer function, leaving the inside as it is, then multiply "
             "by the derivative of the inside."],
            derivative,
        ),
        numeric_step(
            f"Evaluate f'(x) at {point} (exactly, or to three decimals).",
            "evaluating-derivatives",
            ["Substitute into your f'(x); work out the inside first."],
            derivative.subs(X, x0),
        ),
    ]  # fmt: skip
    return Built(f"Differentiate f(x) = {shown(f)}.", steps, {"f": f, "x0": x0}, shape)


# A derivative at a point -------------------------------------------------------------------


def derivative_at_point(rng: random.Random, level: Level) -> Built:
    if level is Level.EASY:
        a, b, c = nonzero(rng, -3, 3), rng.randint(-5, 5), rng.randint(-6, 6)
        f = a * X**3 + b * X**2 + c * X + rng.randint(-9, 9)
        x0 = _point(rng)
        derivative = sympy.diff(f, X)
        steps = [
            symbolic_step(
                f"f(x) = {shown(f)}. What is f'(x)?",
                "power-rule",
                ["Use the power rule on each term: bring the exponent down and lower it."],
                derivative,
            ),
            numeric_step(
                f"What is f'({x0})?",
                "evaluating-derivatives",
                ["Substitute the point into f'(x), term by term."],
                derivative.subs(X, x0),
            ),
        ]
        return Built(
            f"Find the slope of f(x) = {shown(f)} at x = {x0}.",
            steps,
            {"f": f, "x0": x0},
            "polynomial by the rules",
        )
    if level is Level.MEDIUM:
        a, b = nonzero(rng, -4, 4), nonzero(rng, -6, 6)
        if rng.random() < 0.5:
            f, x0, shape = a * sympy.sqrt(X) + b * X, rng.choice([1, 4, 9]), "a√x + bx"
        else:
            f, x0, shape = a * X**2 + b / X, rng.choice([-2, -1, 1, 2]), "ax² + b/x"
        y0, slope = f.subs(X, x0), sympy.diff(f, X).subs(X, x0)
        steps = [
            numeric_step(
                f"f(x) = {shown(f)}. What is f({x0})?",
                "evaluating-functions",
                ["Substitute the point into f."],
                y0,
            ),
            numeric_step(
                f"What is f'({x0}), the slope of the tangent there?",
                "evaluating-derivatives",
                ["Write the root and the fraction as powers of x, then use the power rule."],
                slope,
            ),
            symbolic_step(
                f"Write the tangent line to f at x = {x0} as y = m·x + c: give m·x + c.",
                "tangent-lines",
                ["The tangent goes through the point (x0, f(x0)) with the slope f'(x0): "
                 "y = f(x0) + f'(x0)(x - x0)."],
                sympy.expand(y0 + slope * (X - x0)),
            ),
        ]  # fmt: skip
        return Built(
            f"Find the tangent line to f(x) = {shown(f)} at x = {x0}.",
            steps,
            {"f": f, "x0": x0},
            shape,
        )
    a, b, c = nonzero(rng, -4, 4), rng.randint(-5, 5), rng.randint(-5, 5)
    f = a * X**2 + b * X + c
    x0 = nonzero(rng, -3, 3)
    quotient = sympy.expand((f.subs(X, x0 + H) - f.subs(X, x0)) / H)
    slope = quotient.subs(H, 0)
    steps = [
        symbolic_step(
            f"f(x) = {shown(f)}. Simplify the difference quotient (f({x0} + h) - f({x0}))/h "
            "as an expression in h.",
            "difference-quotient",
            ["Expand f(x0 + h); the terms without h cancel against f(x0), and every term "
             "left has a factor h to divide out."],
            quotient,
            variable="h",
        ),
        numeric_step(
            f"Let h tend to 0: what is f'({x0})?",
            "limit-definition",
            ["Once h is divided out, the expression is continuous: set h to zero."],
            slope,
        ),
        symbolic_step(
            f"Give the tangent line to f at x = {x0} as m·x + c.",
            "tangent-lines",
            ["y = f(x0) + f'(x0)(x - x0), expanded."],
            sympy.expand(f.subs(X, x0) + slope * (X - x0)),
        ),
    ]  # fmt: skip
    return Built(
        f"Find f'({x0}) for f(x) = {shown(f)} from the definition of the derivative.",
        steps,
        {"f": f, "x0": x0},
        "limit of the difference quotient",
    )


# Limits by factoring -----------------------------------------------------------------------

_SUBSTITUTION = "0/0, an indeterminate form"


def limit_by_factoring(rng: random.Random, level: Level) -> Built:
    a = nonzero(rng, -5, 5)
    if level is Level.EASY:
        f = (X**2 - a**2) / (X - a)
        simplified = X + a
        shape = "difference of squares"
        first = choice_step(
            f"What do you get if you substitute x = {a} into {_fraction(f)}?",
            "direct-substitution",
            ["Work out the numerator and the denominator separately."],
            *shuffled(rng, _SUBSTITUTION, ["0", "the limit does not exist", "infinity"]),
        )
    elif level is Level.MEDIUM:
        b, c = nonzero(rng, -6, 6), nonzero(rng, -6, 6)
        while len({a, b, c}) < 3:
            b, c = nonzero(rng, -6, 6), nonzero(rng, -6, 6)
        top, bottom = sympy.expand((X - a) * (X - b)), sympy.expand((X - a) * (X - c))
        f = top / bottom
        simplified = (X - b) / (X - c)
        shape = "two quadratics sharing a root"
        first = choice_step(
            f"Both {_paren(top)} and {_paren(bottom)} are zero at x = {a}. Which factor do they "
            "share?",
            "factoring",
            ["A polynomial that is zero at x = r has the factor (x - r)."],
            *shuffled(rng, text(X - a), [text(X + a), text(X - b), text(X - c), text(X + b)]),
        )
    else:
        if rng.random() < 0.5:
            d = rng.randint(2, 4)
            c = d**2 - a
            f = (sympy.sqrt(X + c) - d) / (X - a)
            simplified = 1 / (sympy.sqrt(X + c) + d)
            shape = "square root: multiply by the conjugate"
            root = shown(sympy.sqrt(X + c))
            options, right = shuffled(
                rng, f"{root} + {d}", [f"{root} - {d}", shown(X - a), f"{root}"]
            )
            first = choice_step(
                f"Substitution gives 0/0 in {_fraction(f)} at x = {a}. What do you multiply the "
                "numerator and the denominator by?",
                "rationalising",
                ["A difference with a square root becomes a difference of squares when "
                 "multiplied by the same two terms added."],
                options,
                right,
            )  # fmt: skip
        else:
            f = (X**3 - a**3) / (X - a)
            simplified = X**2 + a * X + a**2
            shape = "difference of cubes"
            options, right = shuffled(
                rng,
                text(sympy.expand(X**2 + a * X + a**2)),
                [text(sympy.expand(X**2 - a * X + a**2)), text(X**2 + a**2),
                 text(sympy.expand((X - a) ** 2))],
            )  # fmt: skip
            first = choice_step(
                f"{shown(X**3 - a**3)} = ({shown(X - a)})·q(x). Which q(x)?",
                "factoring",
                ["Multiply each option by (x - a) and check that only the cube and the constant "
                 "survive."],
                options,
                right,
            )  # fmt: skip
    value = simplified.subs(X, a)
    steps = [
        first,
        symbolic_step(
            "After cancelling the common factor, what expression is left?",
            "algebraic-simplification",
            ["Cancel the factor that made both parts zero; what is left is continuous at the "
             "point."],
            simplified,
        ),
        numeric_step(
            f"Now find the limit as x → {a}.",
            "evaluating-limits",
            ["Substitute the point into the simplified expression."],
            value,
        ),
    ]  # fmt: skip
    return Built(
        f"Find the limit of {_fraction(f)} as x → {a}.",
        steps,
        {"f": f, "a": a},
        shape,
    )


def _fraction(f: sympy.Expr) -> str:
    top, bottom = sympy.fraction(sympy.together(f))
    return f"{_paren(top)}/{_paren(bottom)}"


def _paren(expression: sympy.Expr) -> str:
    written = shown(expression)
    return f"({written})" if any(op in written for op in "+-") else written


# Definite integrals by substitution --------------------------------------------------------


def integral_by_substitution(rng: random.Random, level: Level) -> Built:
    u = sympy.Symbol("u")
    if level is Level.EASY:
        a, c, n = rng.randint(2, 4), rng.randint(1, 3), rng.randint(2, 4)
        inner, lower, upper = a * X + c, 0, rng.randint(1, 2)
        f = a * inner**n
        outer = u**n
        factor = sympy.Integer(1)
        shape = "linear inside, its derivative in front"
        first = symbolic_step(
            f"Substitute u = {shown(inner)}. What is du/dx?",
            "substitution",
            ["Differentiate u with respect to x."],
            sympy.diff(inner, X),
        )
    elif level is Level.MEDIUM:
        c, upper = rng.randint(1, 4), rng.randint(1, 2)
        lower = 0
        inner = X**2 + c
        if rng.random() < 0.5:
            n = rng.randint(2, 3)
            f, outer, shape = X * inner**n, u**n, "x·(x² + c)^n"
        else:
            f, outer, shape = X * sympy.exp(inner), sympy.exp(u), "x·e^(x² + c)"
        factor = sympy.Rational(1, 2)
        first = numeric_step(
            f"Substitute u = {shown(inner)}, so du = 2x dx. Then {shown(f)} dx = k·"
            f"{shown(outer)} du. What is the constant k?",
            "substitution",
            ["Only x dx appears in the integral, and du is twice that."],
            factor,
        )
    else:
        kind = rng.choice(["sin-cos", "log", "tan"])
        n = rng.randint(2, 4)
        if kind == "sin-cos":
            inner, lower, upper = sympy.sin(X), 0, sympy.pi / 2
            f, shape = sympy.sin(X) ** n * sympy.cos(X), "sin(x)^n·cos(x)"
        elif kind == "log":
            m = rng.randint(1, 2)
            inner, lower, upper = sympy.log(X), 1, sympy.exp(m)
            f, shape = sympy.log(X) ** n / X, "ln(x)^n / x"
        else:
            inner, lower, upper = sympy.tan(X), 0, sympy.pi / 4
            f, shape = sympy.tan(X) ** n / sympy.cos(X) ** 2, "tan(x)^n·sec(x)²"
        outer, factor = u**n, sympy.Integer(1)
        options, right = shuffled(
            rng, f"u = {shown(inner)}", [f"u = {shown(sympy.diff(inner, X))}",
                                         f"u = {shown(f)}", f"u = x^{n}"],
        )  # fmt: skip
        first = choice_step(
            f"Which substitution turns ∫ {shown(f)} dx into ∫ u^{n} du?",
            "substitution",
            ["Look for a function whose derivative is also a factor of the integrand."],
            options,
            right,
        )
    new_lower, new_upper = inner.subs(X, lower), inner.subs(X, upper)
    antiderivative = sympy.integrate(outer, u)
    value = factor * (antiderivative.subs(u, new_upper) - antiderivative.subs(u, new_lower))
    steps = [
        first,
        numeric_step(
            f"Change the bounds: what does u become at the upper bound x = {text(upper)}?",
            "changing-bounds",
            ["Put the upper bound for x into your u."],
            new_upper,
        ),
        numeric_step(
            "Integrate in u between the new bounds: what is the value of the integral "
            "(exactly, or to three decimals)?",
            "definite-integrals",
            ["Find an antiderivative in u, then subtract its value at the lower bound from its "
             "value at the upper bound."],
            value,
        ),
    ]  # fmt: skip
    return Built(
        f"Evaluate ∫ from {text(lower)} to {text(upper)} of {shown(f)} dx by substitution.",
        steps,
        {"f": f, "lower": lower, "upper": upper, "inner": inner},
        shape,
    )
