"""Text an attacker controls (a message, the lines of an uploaded file) against the patterns
that read it: each is read in one pass. Patterns that could take the same characters two
ways re-scanned a long run from each of its positions (about a second for 4,000 characters,
hours for these); a regression here hangs the suite instead of slowing it."""

from __future__ import annotations

import pytest

from core.catalog.codes import parse_prerequisites
from core.course_codes import (
    asks_about_programme,
    codes_in,
    document_codes_in,
    intakes_in,
    prefixes_in,
)
from core.exercises.expressions import _TOKEN, ExpressionTooLarge, prepare_expression, read_number
from core.lessons.profiles import split_ideas
from core.text import math_spans, names_a_file, split_sentences

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


def test_course_codes_intakes_and_prefixes_are_read_in_one_pass() -> None:
    assert codes_in("AB " * (RUN // 3), typed=True) == []
    assert codes_in("AB-" * (RUN // 3) + "101")[0].key == "ab101"
    assert document_codes_in("a-" * RUN + "!") == []
    assert len(document_codes_in("a_1" * RUN + "-")) == 0
    assert intakes_in("K19" + " " * RUN + "-")[0].numbers == (19,)
    assert intakes_in("K19 -" + " " * RUN + "x")[0].numbers == (19,)
    assert len(intakes_in("19D-" * (RUN // 4), bare_cohorts=True)) == RUN // 8
    assert prefixes_in("A" * RUN, letters=2) == []
    assert asks_about_programme("x" * RUN + " semester")


def test_a_prerequisite_cell_of_thousands_of_codes_or_waivers_is_read() -> None:
    joined = parse_prerequisites("CS 101 or " * (RUN // 10) + "if MAE101")
    assert joined.conditional == ("MAE101",)
    waivers = parse_prerequisites("CS 101 (not applied) " * (RUN // 20))
    assert len(waivers.waived) == RUN // 20


def test_runs_of_math_marks_are_read_in_one_pass() -> None:
    # Openers with no closer, closers far away, a dollar sign before every letter.
    for text in ("$" * RUN, "\\(" * RUN, "\\\\[" * RUN, "$x" * RUN, "$ " * RUN, "\\$" * RUN):
        assert len(split_sentences(text + ". Next.")) <= 2
    assert math_spans("\\(" * RUN + "x\\)") == [(0, 2 * RUN + 3)]
    assert len(math_spans("$" * RUN)) == RUN // 4
    assert math_spans("$x" + "\\(" * RUN) == []


def test_runs_that_look_like_plain_math_are_read_in_one_pass() -> None:
    # Brackets that never close, operators with no end, powers and limits in one word.
    from core.plain_math import formula_spans

    words = RUN // 10
    for text in ("( " * words, "(x " * words, "x = " * words, "lim_{" * words, "x^" * words):
        assert formula_spans(text + ". Next.") == []
    assert len(formula_spans("x^2 " * words)) == words
