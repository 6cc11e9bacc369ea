"""The text rules every layer shares: where a sentence ends."""

from __future__ import annotations

import pytest

from core.text import split_sentences


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
