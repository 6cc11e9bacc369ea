"""One reader of calendar days: the spellings of one day give one token."""

from __future__ import annotations

import pytest

from core.day_mentions import day_mentions, with_day_tokens


@pytest.mark.parametrize(
    "text", ["May 1st", "may 1", "5/1", "05/01", "5/01", "1 May", "1st of May", "2027-05-01"]
)
def test_every_spelling_of_a_day_gives_one_token(text: str) -> None:
    [mention] = day_mentions(f"Quiz on {text} in class")
    assert (mention.month, mention.day, mention.token) == (5, 1, "day05x01")


def test_a_day_first_number_is_read_when_the_first_part_cannot_be_a_month() -> None:
    [mention] = day_mentions("due 14/12/2026")
    assert (mention.month, mention.day, mention.year) == (12, 14, 2026)


def test_two_digit_years_and_impossible_days() -> None:
    assert [m.year for m in day_mentions("Final 5/23/23")] == [2023]
    assert day_mentions("13/13 and February 31 and 3.5/10") == []


def test_may_the_verb_and_numbers_without_a_day_are_not_days() -> None:
    assert day_mentions("You may bring notes; 40% of the grade; Room 1201") == []


def test_each_day_is_followed_by_its_token() -> None:
    assert with_day_tokens("Tu 5/01 Exam 2").split() == ["Tu", "5/01", "day05x01", "Exam", "2"]
