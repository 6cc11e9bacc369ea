"""Facts read from chunk text without a model: labelled and "X is a ..." definitions,
formulas (left and right side), table cells with their column, key terms from the section;
prose, examples' own equations and guided exercises give none."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from core.index import ChunkRecord
from core.study.facts import FactKind, facts_in, is_formula

Found = Callable[..., list[tuple[FactKind, str, str]]]


@pytest.fixture
def found(chunk: Callable[..., ChunkRecord]) -> Found:
    def read(text: str, **where: object) -> list[tuple[FactKind, str, str]]:
        return [(f.kind, f.term, f.answer) for f in facts_in(chunk(text, **where))]

    return read


def test_labelled_definitions_are_read_and_generic_labels_are_not(found: Found) -> None:
    text = "Product rule: (fg)' = f'g + fg'.\nExample: the slide shows it.\nNote: see page 3."
    assert found(text) == [(FactKind.DEFINITION, "Product rule", "(fg)' = f'g + fg'")]


def test_copula_definitions_need_an_article_a_formula_or_a_plural(found: Found) -> None:
    text = (
        "MATH 101 is a first course in differential calculus. "
        "The final exam is cumulative. "
        "It is the slope of the tangent line. "
        "The derivative of a product is NOT the product of the derivatives."
    )
    assert found(text) == [
        (FactKind.DEFINITION, "MATH 101", "a first course in differential calculus")
    ]


def test_means_and_refers_to_define_too(found: Found) -> None:
    assert found("A secant line refers to a line through two points of a curve.") == [
        (FactKind.DEFINITION, "secant line", "a line through two points of a curve")
    ]


def test_formulas_split_into_sides_and_drop_their_qualifiers(found: Found) -> None:
    text = (
        "d/dx x^n = n * x^(n-1) for any real number n.\n\n"
        "Example: d/dx sqrt(x) = d/dx x^(1/2) = 1/(2 sqrt(x))."
    )
    assert found(text, section="The Power Rule") == [
        (FactKind.FORMULA, "d/dx x^n", "n * x^(n-1)"),
        (FactKind.FORMULA, "d/dx sqrt(x)", "1/(2 sqrt(x))"),
    ]


def test_an_examples_own_equations_are_not_facts(found: Found) -> None:
    text = (
        "So f'(x) = (x^2 - 4x - 1)/(x - 2)^2.\n"
        "The slope: f'(x) = 3x^2 - 2, so f'(2) = 10.\n"
        "Point-slope form: y = 4 + 10(x - 2).\n"
        "The limit is 1/2."
    )
    assert found(text, section="Exercise 6: A tangent line") == []
    # The general form stays.
    assert found("Tangent line at a: y = f(a) + f'(a)(x - a).") == [
        (FactKind.DEFINITION, "Tangent line at a", "y = f(a) + f'(a)(x - a)")
    ]


def test_pdf_line_wraps_are_joined_before_reading(found: Found) -> None:
    text = "Leibniz form: dy/dx = dy/du * du/dx\nwith u = g(x)."
    assert found(text) == [
        (FactKind.DEFINITION, "Leibniz form", "dy/dx = dy/du * du/dx with u = g(x)")
    ]


def test_table_rows_give_one_fact_per_cell_with_its_column(
    chunk: Callable[..., ChunkRecord],
) -> None:
    text = (
        "| Component | Weight | Details |\n"
        "| --- | --- | --- |\n"
        "| Homework | 20% | 10 weekly sets |\n"
        "| Final exam | 40% | — |"
    )
    facts = facts_in(chunk(text, section="Grading Policy", file_name="syllabus.md"))
    assert [(f.term, f.column, f.answer) for f in facts] == [
        ("Homework", "Weight", "20%"),
        ("Homework", "Details", "10 weekly sets"),
        ("Final exam", "Weight", "40%"),
    ]
    assert all(f.context == "Grading Policy" for f in facts)
    # One column, one group: its rows are each other's distractors.
    assert facts[0].group == facts[2].group != facts[1].group


def test_a_row_label_that_is_a_number_takes_the_first_header(
    chunk: Callable[..., ChunkRecord],
) -> None:
    text = "| Week | Topic |\n| 1 (Sep 14) | Limits |"
    [fact] = facts_in(chunk(text, section="Schedule"))
    assert fact.term == "Week 1 (Sep 14)"


def test_a_section_title_is_a_key_term_with_its_first_sentence(found: Found) -> None:
    text = "If g(x) <= f(x) <= h(x) near a and g and h share the limit L, so does f."
    assert found(text, section="Lecture 1 > The Squeeze Theorem") == [
        (FactKind.KEY_TERM, "The Squeeze Theorem", text.rstrip("."))
    ]
    assert found(text, section="Summary") == []


def test_a_guided_exercise_gives_no_facts(found: Found) -> None:
    assert found("Power rule: d/dx x^n = n x^(n-1).", kind="guided_exercise") == []


def test_formulas_are_symbols_not_prose() -> None:
    assert is_formula("(x^n)' = n x^(n-1)")
    assert is_formula("lim_{x->0} sin(x)/x")
    assert not is_formula("Substituting x")
    assert not is_formula("the product rule")


def test_a_line_naming_a_file_or_a_link_makes_no_fact(found: Found) -> None:
    text = (
        "Lecture 2 slides: lecture-02-derivatives.pdf (the derivative and its rules).\n"
        "Course portal: https://portal.example.edu/math101.\n"
        "Power rule: (x^n)' = n x^(n-1)."
    )
    assert found(text) == [(FactKind.DEFINITION, "Power rule", "(x^n)' = n x^(n-1)")]


def test_a_file_named_inside_a_definition_is_content(found: Found) -> None:
    text = "A package is a folder holding an __init__.py file."
    assert found(text) == [(FactKind.DEFINITION, "package", "a folder holding an __init__.py file")]
