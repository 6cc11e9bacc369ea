"""Text an attacker controls (a message, the lines of an uploaded file) against the patterns
that read it: each is read in one pass. Patterns that could take the same characters two
ways re-scanned a long run from each of its positions (about a second for 4,000 characters,
hours for these); a regression here hangs the suite instead of slowing it."""

from __future__ import annotations

import pytest

from core.catalog.codes import parse_prerequisites
from core.exercises.expressions import _TOKEN, ExpressionTooLarge, prepare_expression, read_number
from core.lessons.profiles import split_ideas
from core.text import names_a_file

RUN = 200_000


def test_an_answer_of_many_digits_is_refused_at_once() -> None:
    with pytest.raises(ExpressionTooLarge):
        read_number("1" * RUN + "x")


def test_an_answer_of_open_parentheses_or_functions_is_refused_at_once() -> None:
    for text in ("(" * RUN, "exp(" * RUN, "x^" * RUN + "x"):
        with pytest.raises(ExpressionTooLarge):
            prepare_expression(text)
    # The tokenizer itself, on any text: a number is read one way.
    assert len(_TOKEN.findall("9" * RUN + "." + "9" * RUN + "e+")) == 3


def test_a_prerequisite_cell_of_open_parentheses_is_read() -> None:
    parsed = parse_prerequisites("MAE101 " + "(" * RUN)
    assert parsed.raw.startswith("MAE101 (")
    assert parse_prerequisites("PRO192 (not applied to BA)").waived == (
        ("PRO192", "not applied to BA"),
    )


def test_a_line_of_parentheses_or_tabs_names_no_file() -> None:
    assert not names_a_file("(" * RUN)
    assert not names_a_file("\t" * RUN + "x")
    assert not names_a_file("Slides:" + " " * RUN + "x")
    assert names_a_file("(Slides: lecture-02.pdf)")


def test_a_long_run_of_spaces_before_a_semicolon_splits_into_ideas() -> None:
    assert split_ideas("Bring a pen" + " " * RUN + "; bring paper") == [
        "Bring a pen",
        "bring paper",
    ]


def test_a_slide_edit_request_with_a_long_run_of_spaces_splits_at_once() -> None:
    # The pattern itself, not a normalised copy of the request: any text it reads is safe.
    from core.lessons.service import _THEN_SHORTEN

    assert _THEN_SHORTEN.split("the quiz" + " " * RUN + "x") == ["the quiz" + " " * RUN + "x"]
    assert _THEN_SHORTEN.split("the quiz and then shorten it") == ["the quiz and", "shorten it"]
