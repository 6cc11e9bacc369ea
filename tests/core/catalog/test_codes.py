"""Prerequisite cells read exactly where they are codes and connectives, and kept as
conditions where they are words."""

from __future__ import annotations

import pytest

from core.catalog.codes import Kind, parse_prerequisites
from core.course_codes import in_family
from core.text import fold


@pytest.mark.parametrize("cell", ["", "None", "Không", "Không None", "No", "-"])
def test_empty_and_none_cells_require_nothing(cell: str) -> None:
    parsed = parse_prerequisites(cell)
    assert parsed.requirement is None and parsed.exact and not parsed.conditions


def test_commas_are_all_and_or_is_any() -> None:
    assert parse_prerequisites("MAS291, MAI391, PFP191").requirement.render() == (
        "MAS291, MAI391, PFP191"
    )
    either = parse_prerequisites("MAE101 or MAC101").requirement
    assert either.kind is Kind.ANY and either.codes() == ["MAE101", "MAC101"]


def test_parentheses_and_families_are_read() -> None:
    parsed = parse_prerequisites("AIL30x and (PRP201c or PFP191)")
    assert parsed.exact
    assert parsed.requirement.render() == "AIL30x and (PRP201c or PFP191)"
    assert parse_prerequisites("(MAS291, MAI391, PFP191)").requirement.codes() == [
        "MAS291", "MAI391", "PFP191",
    ]  # fmt: skip


def test_a_family_code_matches_its_courses_only() -> None:
    assert in_family("AIL30x", "AIL303m") and in_family("ail30X", "AIL301")
    assert not in_family("AIL30x", "AIL313m") and not in_family("AIL30x", "DPL302m")


def test_a_waived_code_is_not_required_and_keeps_its_note() -> None:
    parsed = parse_prerequisites("PRO192 (not applied to the BIT_AI and BA programs)")
    assert parsed.requirement is None and parsed.exact
    assert parsed.waived == (("PRO192", "not applied to the BIT_AI and BA programs"),)


def test_words_keep_the_cell_as_a_condition_and_codes_for_some_students_apart() -> None:
    ojt = parse_prerequisites(
        "Students attained 90% of the total credits prior to the OJT term (excluding Physical "
        "Education and OTP Programs) Students choosing JS combo (Japanese Bridge Engineer) "
        "have to pass JPD133"
    )
    assert not ojt.exact and ojt.requirement is None
    assert ojt.conditional == ("JPD133",) and "90%" in ojt.conditions[0]

    capstone = parse_prerequisites(
        "- Student must pass Deep Learning (DPL30x). - Pass OJT202 - Pass PMG20x - Pass 60% of "
        "total credits of selected combo"
    )
    assert capstone.requirement.codes() == ["DPL30x", "OJT202", "PMG20x"]
    assert capstone.conditions and not capstone.exact


def test_fold_ignores_case_and_vietnamese_accents() -> None:
    assert fold("  Toán  cho HỌC máy ") == "toan cho hoc may"
    assert fold("Đồ án") == "do an"
