from dataclasses import replace

import pytest

from core.index.chunk_index import SearchHit
from core.lessons import (
    NotEnoughMaterialError,
    Profile,
    SlideBounds,
    SlideKind,
    adapt_deck,
    build_extractive_deck,
    split_passage,
)
from core.lessons.profiles import is_one_idea
from core.retrieval import GENERAL_KIND


def test_sections_become_slides_with_cited_sentences(sample_hits: list[SearchHit]) -> None:
    deck = build_extractive_deck("derivatives", sample_hits, bounds=SlideBounds(3, 6))
    titles = [s.title for s in deck.slides]
    assert titles[0] == "The derivative"
    assert "Rules of differentiation" in titles
    assert deck.slides[-1].kind is SlideKind.RECAP
    first = deck.slides[0]
    assert first.citations[0].file == "calculus-week3.pdf"
    assert first.citations[0].page == 4
    assert first.citations[0].chunk_id == "chunk-0"
    # Every bullet is a sentence of the material.
    material = " ".join(h.chunk.text for h in sample_hits)
    for slide in deck.slides[:-1]:
        for item in slide.content:
            assert item.rstrip("…").split("$")[0][:30] in material


def test_display_formulas_become_slide_math_and_inline_ones_stay(
    sample_hits: list[SearchHit],
) -> None:
    deck = build_extractive_deck("derivatives", sample_hits, bounds=SlideBounds(3, 6))
    first = deck.slides[0]
    assert first.math == [r"f'(a) = \lim_{h \to 0} \frac{f(a+h) - f(a)}{h}"]
    assert any("$f'(a)$" in item for item in first.content)
    rules = next(s for s in deck.slides if s.title == "Rules of differentiation")
    assert rules.math == [r"\frac{d}{dx} f(g(x)) = f'(g(x))\, g'(x)"]


def test_split_passage_protects_inline_math_and_list_marks() -> None:
    sentences, formulas = split_passage(
        "- Let $x = 1.5$. Then $x^2 = 2.25$ holds here.\n- Second item with \\(a_1\\) in it.\n"
        "\\[ \\int_0^1 x\\,dx \\]"
    )
    # "Let $x = 1.5$." is cut after its formula, not inside it, and is too short to keep.
    assert sentences == ["Then $x^2 = 2.25$ holds here.", "Second item with $a_1$ in it."]
    assert formulas == [r"\int_0^1 x\,dx"]


def test_split_passage_writes_plain_text_formulas_as_math_and_keeps_them_whole() -> None:
    sentences, _ = split_passage(
        "Power rule: d/dx x^n = n * x^(n-1) for any real n. Then f(x) = x^2. gives 2x here."
    )
    assert sentences[0] == r"Power rule: $\frac{d}{dx} x^n = n \cdot x^{n-1}$ for any real n."


@pytest.mark.parametrize(("low", "high"), [(3, 3), (2, 4), (5, 8), (3, 6)])
def test_the_slide_count_respects_the_bounds(
    sample_hits: list[SearchHit], low: int, high: int
) -> None:
    for profile in Profile:
        deck = build_extractive_deck(
            "derivatives", sample_hits, profile=profile, bounds=SlideBounds(low, high)
        )
        assert low <= len(deck.slides) <= high, (profile, len(deck.slides))


def test_too_little_material_for_the_minimum_is_an_error(sample_hits: list[SearchHit]) -> None:
    with pytest.raises(NotEnoughMaterialError):
        build_extractive_deck("derivatives", sample_hits[:1], bounds=SlideBounds(6, 8))
    with pytest.raises(NotEnoughMaterialError):
        build_extractive_deck("derivatives", [], bounds=SlideBounds(1, 3))


def test_the_adhd_deck_follows_the_bullet_rules(sample_hits: list[SearchHit]) -> None:
    deck = build_extractive_deck(
        "derivatives", sample_hits, profile=Profile.ADHD, bounds=SlideBounds(3, 8)
    )
    for slide in deck.slides:
        assert len(slide.content) <= 4
        assert all(is_one_idea(item) for item in slide.content)
    assert deck.slides[-1].kind is SlideKind.RECAP
    assert adapt_deck(deck) == deck  # already adapted: adapting again changes nothing


def test_the_best_ranked_sections_are_kept_when_there_are_too_many(
    sample_hits: list[SearchHit],
) -> None:
    deck = build_extractive_deck("derivatives", sample_hits, bounds=SlideBounds(2, 3))
    titles = [s.title for s in deck.slides]
    assert titles == ["The derivative", "Rules of differentiation", "Recap"]


def test_a_syllabus_section_fills_a_deck_only_when_the_teaching_material_cannot(
    sample_hits: list[SearchHit],
) -> None:
    first = sample_hits[0]
    materials = replace(
        first.chunk,
        id="syllabus-0",
        file_name="syllabus.md",
        section="Course Materials",
        text="No textbook purchase is required for this course.",
        kind=GENERAL_KIND,
    )
    syllabus = replace(first, chunk=materials, score=2.0)
    deck = build_extractive_deck("derivatives", [syllabus, *sample_hits], bounds=SlideBounds(3, 8))
    assert "Course Materials" not in [s.title for s in deck.slides]
    alone = build_extractive_deck(
        "derivatives", [syllabus, *sample_hits[:1]], bounds=SlideBounds(3, 4)
    )
    assert "Course Materials" in [s.title for s in alone.slides]


def test_a_sentence_naming_a_file_is_no_bullet() -> None:
    sentences, _ = split_passage(
        "- Lecture 2 slides: lecture-02-derivatives.pdf (the derivative and its rules)\n"
        "- The derivative is the slope of the tangent line."
    )
    assert sentences == ["The derivative is the slope of the tangent line."]


def test_a_title_with_an_abbreviation_stays_one_bullet() -> None:
    sentences, _ = split_passage("MATH 101 - Calculus I Dr. Ada Moreno - Fall 2026, weeks 4-6")
    assert sentences == ["MATH 101 - Calculus I Dr. Ada Moreno - Fall 2026, weeks 4-6"]


def test_a_heading_inside_a_passage_is_no_bullet() -> None:
    """A PDF keeps its headings as lines of the passage: they name the slide, they say
    nothing on it (a syllabus deck showed "Section 8: Required Materials" as a bullet)."""
    sentences, _ = split_passage(
        "Section 8: Required Materials\n\nTextbook and course material required:\n\n"
        "Chemistry: Atoms First, 2nd edition.\n\nSection 10: Academic Assessment (Grading)"
    )
    assert sentences == [
        "Textbook and course material required:",
        "Chemistry: Atoms First, 2nd edition.",
    ]


def test_a_table_row_is_one_bullet_with_its_column_names_in_place() -> None:
    """A table block in a passage (any loader's, a PDF's too) gives one bullet per row, the
    row with its header, where the table stood: not a run of its cells."""
    sentences, _ = split_passage(
        "Exams are closed book.\n\n"
        "| Exam | Date | Time |\n"
        "| Midterm 1 | Fri Mar 3 | 7-9 pm |\n"
        "| Midterm 2 | Fri Apr 7 | 7-9 pm |\n\n"
        "Makeup exams need a documented excuse."
    )
    assert sentences == [
        "Exams are closed book.",
        "Exam: Midterm 1; Date: Fri Mar 3; Time: 7-9 pm",
        "Exam: Midterm 2; Date: Fri Apr 7; Time: 7-9 pm",
        "Makeup exams need a documented excuse.",
    ]
