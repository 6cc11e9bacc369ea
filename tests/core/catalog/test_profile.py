"""`/profile` words: what a line sets, and one clear line for what it cannot."""

from __future__ import annotations

import pytest

from core.catalog.profile import ProfileChange, StudentProfile, parse_profile
from core.errors import BadInputError


def upper(code: str) -> str:
    return code.upper()


def test_a_full_line_sets_every_part() -> None:
    change = parse_profile("semester 4 passed MAE101,CSI106 failed MAS291", upper)
    assert change == ProfileChange(4, ("MAE101", "CSI106"), ("MAS291",))


def test_no_words_shows_and_clear_clears() -> None:
    assert parse_profile("", upper).shows_only
    assert parse_profile("clear", upper).applied_to(StudentProfile(3, ("A",))) == StudentProfile()


def test_a_part_replaces_only_its_own_and_passing_a_failed_course_moves_it() -> None:
    stored = StudentProfile(3, ("MAE101",), ("MAS291",))
    updated = parse_profile("passed MAE101, MAS291", upper).applied_to(stored)
    assert updated == StudentProfile(3, ("MAE101", "MAS291"), ())
    assert parse_profile("semester 5", upper).applied_to(stored).passed == ("MAE101",)


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("hello", "I don't understand 'hello'"),
        ("semester four", "The semester is a number"),
        ("semester 4 5", "The semester is a number"),
        ("passed A1 passed B2", "'passed' is given twice"),
        ("passed MAE101 failed MAE101", "cannot be both passed and failed"),
    ],
)
def test_bad_lines_get_one_clear_line(line: str, message: str) -> None:
    with pytest.raises(BadInputError, match=message) as caught:
        parse_profile(line, upper)
    assert "\n" not in str(caught.value)
