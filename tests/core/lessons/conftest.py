"""Shared material for the lesson tests: small, realistic course chunks as search hits, a
corpus of formulas as course material writes them, and the sample deck rendered once per
profile."""

from __future__ import annotations

import pytest

from core.index.chunk_index import SearchHit
from core.index.payload import ChunkRecord
from core.lessons import Profile, SlideBounds, build_extractive_deck, render_deck

# Formulas as they appear in course material: one of each construct the issue names.
FORMULA_CORPUS = [
    r"\frac{a}{b} + \dfrac{1}{1+x^2}",
    r"\lim_{x \to 0} \frac{\sin x}{x} = 1",
    r"\lim_{n \to \infty} \left(1 + \frac{1}{n}\right)^n = e",
    r"\sum_{k=1}^{n} k = \frac{n(n+1)}{2}",
    r"\int_0^1 x^2 \, dx = \frac{1}{3}",
    r"\iint_D f(x,y)\,dA",
    r"\oint_C \vec{F} \cdot d\vec{r}",
    r"\begin{pmatrix} a & b \\ c & d \end{pmatrix}",
    r"\det\begin{vmatrix} 1 & 2 \\ 3 & 4 \end{vmatrix} = -2",
    r"A = \begin{bmatrix} 1 & 0 & 0 \\ 0 & 1 & 0 \\ 0 & 0 & 1 \end{bmatrix}",
    r"|x| = \begin{cases} x & \text{if } x \ge 0 \\ -x & \text{otherwise} \end{cases}",
    r"\begin{aligned} f(x) &= (x+1)^2 \\ &= x^2 + 2x + 1 \end{aligned}",
    r"\alpha + \beta = \gamma, \quad \Delta \Omega \varepsilon \theta \lambda \pi",
    r"\hat{x}, \bar{y}, \tilde{z}, \dot{q}, \ddot{q}, \vec{v}",
    r"x_i^2 + y_{ij}^{n+1}",
    r"f'(x) = \lim_{h \to 0} \frac{f(x+h) - f(x)}{h}",
    r"\frac{\partial^2 u}{\partial t^2} = c^2 \nabla^2 u",
    r"x = \frac{-b \pm \sqrt{b^2-4ac}}{2a}",
    r"\sqrt[3]{x} \cdot \sqrt{2}",
    r"\prod_{i=1}^{n} (1 + x_i) \leq e^{\sum_i x_i}",
    r"\binom{n}{k} = \frac{n!}{k!(n-k)!}",
    r"e^{i\pi} + 1 = 0",
    r"\mathbb{R}^n, \mathbf{x} \in \mathcal{X}",
    r"P(A \mid B) = \frac{P(B \mid A) P(A)}{P(B)}",
    r"\forall \epsilon > 0 \; \exists \delta > 0 : |x - a| < \delta \Rightarrow |f(x) - L| < 1",
    r"\overline{AB}, \underline{x}, \overbrace{a+b}^{n}",
    r"\frac{d}{dx}\left[ f(g(x)) \right] = f'(g(x))\, g'(x)",
]

BROKEN_FORMULA = r"\frac{1}{"
UNKNOWN_MACRO = r"\notamacro{x} + 1"

CHUNKS = [
    (
        "calculus-week3.pdf",
        4,
        "The derivative",
        "The derivative of a function measures how fast its value changes. "
        "Formally, the derivative of $f$ at $a$ is a limit of difference quotients: "
        "$$f'(a) = \\lim_{h \\to 0} \\frac{f(a+h) - f(a)}{h}$$ "
        "If this limit exists, $f$ is differentiable at $a$. "
        "Geometrically, $f'(a)$ is the slope of the tangent line at $(a, f(a))$.",
    ),
    (
        "calculus-week3.pdf",
        5,
        "Rules of differentiation",
        "- The power rule: the derivative of $x^n$ is $n x^{n-1}$.\n"
        "- The product rule: $(fg)' = f'g + fg'$.\n"
        "- The chain rule differentiates a composition of functions. "
        "\\[ \\frac{d}{dx} f(g(x)) = f'(g(x))\\, g'(x) \\]\n"
        "- The quotient rule follows from the product and chain rules.\n"
        "- Derivatives of sums are sums of derivatives.",
    ),
    (
        "calculus-week3.pdf",
        6,
        "Derivatives and motion",
        "Velocity is the derivative of position with respect to time. "
        "Acceleration is the derivative of velocity; it is the second derivative of position. "
        "A positive derivative means the quantity is increasing.",
    ),
    (
        "lecture-notes.md",
        None,
        "Common mistakes with derivatives",
        "Students often forget the chain rule when differentiating $\\sin(x^2)$. "
        "The derivative of a constant is zero, not the constant itself. "
        "Check the units of a derivative: metres per second for a velocity.",
    ),
]


def make_hits(chunks: list[tuple[str, int | None, str, str]]) -> list[SearchHit]:
    out = []
    for n, (file_name, page, section, text) in enumerate(chunks):
        record = ChunkRecord(
            id=f"chunk-{n}",
            course_id="sample",
            document_id=f"sample/{file_name}",
            file_name=file_name,
            text=text,
            page=page,
            section=section,
            kind="notes",
            visibility="public",
            owner_id=None,
            chunk_index=n,
        )
        out.append(SearchHit(chunk=record, score=1.0 - n * 0.1))
    return out


@pytest.fixture
def sample_hits() -> list[SearchHit]:
    return make_hits(CHUNKS)


@pytest.fixture
def formula_corpus() -> list[str]:
    return list(FORMULA_CORPUS)


@pytest.fixture(scope="session")
def rendered() -> dict[Profile, bytes]:
    """The sample chunks' extractive deck (3 to 6 slides), rendered once per profile."""
    return {
        profile: render_deck(
            build_extractive_deck(
                "derivatives", make_hits(CHUNKS), profile=profile, bounds=SlideBounds(3, 6)
            )
        )
        for profile in Profile
    }
