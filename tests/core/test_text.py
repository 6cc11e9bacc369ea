"""The text rules every layer shares: where a sentence ends, and what names a file."""

from __future__ import annotations

import pytest

from core.text import math_spans, names_a_file, split_sentences


def test_sentences_end_at_a_full_stop_question_or_exclamation_mark() -> None:
    assert split_sentences("Bring a photo ID. Is a calculator allowed? Yes!") == [
        "Bring a photo ID.",
        "Is a calculator allowed?",
        "Yes!",
    ]


@pytest.mark.parametrize(
    "text",
    [
        "MATH 101 - Calculus I Dr. Ada Moreno - Fall 2026",
        "The exam is on Dec. 18th in Hall A",
        "Read R.S. Baker on proofs",
        "Use a robust statistic, e.g. the median",
    ],
)
def test_an_abbreviation_an_initial_or_a_lower_case_word_ends_no_sentence(text: str) -> None:
    assert split_sentences(text) == [text]


def test_a_capital_letter_ending_a_sentence_still_ends_it() -> None:
    assert split_sentences("The exam is in Hall A. Bring a photo ID.") == [
        "The exam is in Hall A.",
        "Bring a photo ID.",
    ]


@pytest.mark.parametrize(
    ("text", "named"),
    [
        ("Lecture 2 slides: lecture-02-derivatives.pdf (the rules)", True),
        ("Worked exercises: worked-exercises.md", True),
        ("Posted at https://portal.example.edu/math101", True),
        ("Practice: `worked-exercises.md`, Exercises 3-6.", True),
        ("lecture-01-limits.pdf (limits and continuity)", True),
        ("The derivative is the slope of the tangent line.", False),
        ("A package is a folder holding an __init__.py file.", False),
        ("Differentiate f(x) = x.y with respect to x.", False),
    ],
)
def test_what_names_a_file_or_a_link(text: str, named: bool) -> None:
    assert names_a_file(text) is named


def test_a_sentence_never_ends_inside_a_formula() -> None:
    text = (
        "It costs $5. Then $$f(x) = a. B$$ holds. Inline $a. B$ and \\\\(x. Y\\\\) too. "
        "And \\[p. Q\\] ends. A price of $5 and $10. Done."
    )
    assert split_sentences(text) == [
        "It costs $5.",
        "Then $$f(x) = a. B$$ holds.",
        "Inline $a. B$ and \\\\(x. Y\\\\) too.",
        "And \\[p. Q\\] ends.",
        "A price of $5 and $10.",
        "Done.",
    ]
    # Money and an escaped dollar sign are not math; a mark with no closer is text.
    assert math_spans("$5 and $10, \\$x\\$, $ y $, \\(open") == []
