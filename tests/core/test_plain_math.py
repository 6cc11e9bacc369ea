"""Plain-text formulas: found where they are unambiguous, as LaTeX; prose, dates, links,
paths and code never become math."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.plain_math import formula_spans, mark_plain_math, plain_formulas

POSITIVE = [
    ("so lim_{x->1} f(x) = 2.", r"so $\lim_{x \to 1} f(x) = 2$."),
    (
        "f'(a) = lim_{h->0} (f(a + h) - f(a)) / h, if this limit exists.",
        r"$f'(a) = \lim_{h \to 0} \frac{f(a + h) - f(a)}{h}$, if this limit exists.",
    ),
    (
        "d/dx x^n = n * x^(n-1) for any real number n.",
        r"$\frac{d}{dx} x^n = n \cdot x^{n-1}$ for any real number n.",
    ),
    ("Notation: f'(x) = dy/dx.", r"Notation: $f'(x) = \frac{dy}{dx}$."),
    ("The root sqrt(x^2 + y^2) is the distance.", r"The root $\sqrt{x^2 + y^2}$ is the distance."),
    ("Here e^{-x} decays", "Here $e^{-x}$ decays"),
    ("and a_{n+1} = a_n / 2 holds", "and $a_{n+1} = a_n / 2$ holds"),
    ("when x != 1, and as h -> 0", r"when $x \neq 1$, and as $h \to 0$"),
    ("f(x) = (x^2 - 1)/(x - 1) is undefined", r"$f(x) = \frac{x^2 - 1}{x - 1}$ is undefined"),
    ("lim_{x->inf} 1/x^n = 0 for n", r"$\lim_{x \to \infty} \frac{1}{x^n} = 0$ for n"),
    ("d/dx sin(3x) = 3 cos(3x).", r"$\frac{d}{dx} \sin(3x) = 3 \cos(3x)$."),
    ("(see x^2 above)", "(see $x^2$ above)"),
    ("it takes O(n^2) time", "it takes $O(n^2)$ time"),
    ("If y = f(g(x)), then", "If $y = f(g(x))$, then"),
    ("the slope m = f'(a).", "the slope $m = f'(a)$."),
    ("[3 x 4] + [4 x 2] = 20 weights", r"$[3 \times 4] + [4 \times 2] = 20$ weights"),
]

# Prose that must stay text, each with the trap it sets.
PROSE = [
    "Students and/or staff may attend.",  # a slash between words
    "1/2 of the class came on 3/4 and again on 12/05/2024.",  # fractions and dates in prose
    "Support is 24/7 and the exam is 9:00-10:30 on 2024-05-01.",
    "See https://example.com/a/b?x=1&y=2 or www.example.org/x^2.",  # links
    "Run /usr/local/bin/python src/core/text.py or C:/tmp/a_b.txt.",  # paths
    "Type `x = x + 1` or `y = x^2` in the console.",  # code in backticks
    "Use x**2 == y in Python; i += 1; a = b.",  # code without backticks
    "The beta version 2.0 runs on Windows 10, C++ and C#.",
    "An x-axis, a T-shirt, e.g. this, i.e. that, n/a and w/o.",
    "The score was 5-3 and the matrix 3x3, a 50% share for $10.",
    "I = 5 points, a = 4 marks, Grade A = 90 - 100.",  # words that are letters
    "The A/B test ran 1-2 weeks; see p. 3/4 and No. 5.",
    "Speed in km/h, flow in m/s, COVID-19 and H1N1, x86_64.",
    "Rows - columns = 3 for the 2 - 1 case.",
    "Prices ($5 and $10) rose; the ratio went 3:2.",
    "Step 1 -> step 2 -> done.",
    "snake_case names like file_name = 3 are code.",
]

CODE_BLOCK = """# Momentum update
v = mu * v - learning_rate * dx
x += v
p = 0.5 # probability of keeping a unit active"""


@pytest.mark.parametrize(("text", "marked"), POSITIVE)
def test_a_plain_formula_is_marked_as_latex(text: str, marked: str) -> None:
    assert mark_plain_math(text) == marked


@pytest.mark.parametrize("text", PROSE)
def test_prose_is_never_math(text: str) -> None:
    assert plain_formulas(text) == []


def test_a_code_block_is_never_math() -> None:
    assert plain_formulas(CODE_BLOCK) == []


def test_math_in_marks_is_left_as_it_is_and_marking_twice_changes_nothing() -> None:
    text = r"With $x^2$ and \(y^2\) and then z^2."
    once = mark_plain_math(text)

    assert once == r"With $x^2$ and \(y^2\) and then $z^2$."
    assert mark_plain_math(once) == once


def test_formula_spans_hold_marked_and_plain_formulas_in_order() -> None:
    text = "First $a + b$ then x^2 + 1 here."

    assert [text[a:b] for a, b in formula_spans(text)] == ["$a + b$", "x^2 + 1"]


# Prose words and the tokens that look most like math without being math.
_LOOKALIKES = (
    "the a an I A of and or to is are class week exam grade students notes page see "
    "and/or n/a w/o 1/2 3/4 24/7 12/05/2024 2024-05-01 9:00 10:30 5% $10 v2.0 3.11 10 2 "
    "C++ C# x-axis T-shirt e.g. i.e. p. No. A/B km/h COVID-19 x86_64 3x3 5-3 - = -> ( ) "
    "https://example.com/a/b /usr/bin/env src/core/text.py file_name `x^2` `y=x+1` Q&A"
)
_WORDS = st.sampled_from(_LOOKALIKES.split())


@settings(max_examples=300, deadline=None, derandomize=True)
@given(st.lists(_WORDS, min_size=1, max_size=25))
def test_sentences_of_prose_and_lookalike_tokens_have_no_formula(words: list[str]) -> None:
    text = " ".join(words) + "."

    assert plain_formulas(text) == [], text
