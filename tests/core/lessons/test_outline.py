from dataclasses import replace

import pytest

from core.index.chunk_index import SearchHit
from core.index.payload import ChunkRecord
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


def _sentences(text: str) -> list[str]:
    return split_passage(text).sentences


def test_split_passage_protects_inline_math_and_list_marks() -> None:
    passage = split_passage(
        "- Let $x = 1.5$. Then $x^2 = 2.25$ holds here.\n- Second item with \\(a_1\\) in it.\n"
        "\\[ \\int_0^1 x\\,dx \\]"
    )
    sentences, formulas = passage.sentences, passage.formulas
    # "Let $x = 1.5$." is cut after its formula, not inside it, and is too short to keep.
    assert sentences == ["Then $x^2 = 2.25$ holds here.", "Second item with $a_1$ in it."]
    assert formulas == [r"\int_0^1 x\,dx"]


def test_split_passage_writes_plain_text_formulas_as_math_and_keeps_them_whole() -> None:
    sentences = _sentences(
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
    sentences = _sentences(
        "- Lecture 2 slides: lecture-02-derivatives.pdf (the derivative and its rules)\n"
        "- The derivative is the slope of the tangent line."
    )
    assert sentences == ["The derivative is the slope of the tangent line."]


def test_a_title_with_an_abbreviation_stays_one_bullet() -> None:
    sentences = _sentences("MATH 101 - Calculus I Dr. Ada Moreno - Fall 2026, weeks 4-6")
    assert sentences == ["MATH 101 - Calculus I Dr. Ada Moreno - Fall 2026, weeks 4-6"]


def test_a_heading_inside_a_passage_is_no_bullet() -> None:
    """A PDF keeps its headings as lines of the passage: they name the slide, they say
    nothing on it (a syllabus deck showed "Section 8: Required Materials" as a bullet)."""
    sentences = _sentences(
        "Section 8: Required Materials\n\nTextbook and course material required:\n\n"
        "Chemistry: Atoms First, 2nd edition.\n\nSection 10: Academic Assessment (Grading)"
    )
    assert sentences == [
        "Textbook and course material required:",
        "Chemistry: Atoms First, 2nd edition.",
    ]


def test_a_table_is_a_table_on_the_slide_where_it_stood() -> None:
    """A table block in a passage (any loader's, a PDF's too) stays a table: its column
    names and rows as cells, never a run of its cells nor bullets of raw `| a | b |` rows."""
    passage = split_passage(
        "Exams are closed book.\n\n"
        "| Exam | Date | Time |\n"
        "| Midterm 1 | Fri Mar 3 | 7-9 pm |\n"
        "| Midterm 2 | Fri Apr 7 | 7-9 pm |\n\n"
        "Makeup exams need a documented excuse."
    )
    assert passage.sentences == ["Exams are closed book.", "Makeup exams need a documented excuse."]
    [table] = passage.tables
    assert table.header == ["Exam", "Date", "Time"]
    assert table.rows == [
        ["Midterm 1", "Fri Mar 3", "7-9 pm"],
        ["Midterm 2", "Fri Apr 7", "7-9 pm"],
    ]


def test_a_markdown_table_with_math_keeps_its_formulas_in_the_cells() -> None:
    passage = split_passage(
        "| Function $f(x)$ | Derivative $f'(x)$ |\n|---|---|\n| $x^n$ | $n x^{n-1}$ |\n"
        "| \\\\( e^x \\\\) | **$e^x$** |"
    )
    [table] = passage.tables
    assert table.header == ["Function $f(x)$", "Derivative $f'(x)$"]
    assert table.rows == [["$x^n$", "$n x^{n-1}$"], ["$e^x$", "$e^x$"]]


def test_a_long_table_continues_in_parts_with_its_column_names() -> None:
    rows = "".join(f"| week {n} | topic {n} |\n" for n in range(1, 12))
    passage = split_passage("| Week | Topic |\n" + rows)
    assert [len(t.rows) for t in passage.tables] == [8, 3]
    assert all(t.header == ["Week", "Topic"] for t in passage.tables)


def test_a_deck_from_a_table_shows_it_as_a_table(sample_hits: list[SearchHit]) -> None:
    first = sample_hits[0]
    table = replace(
        first,
        chunk=replace(
            first.chunk,
            id="rules-table",
            section="Derivative rules table",
            text="The derivatives of common functions:\n\n| Function | Derivative |\n"
            "| $x^n$ | $n x^{n-1}$ |\n| $\\sin x$ | $\\cos x$ |",
        ),
        score=3.0,
    )
    deck = build_extractive_deck("derivatives", [table, *sample_hits], bounds=SlideBounds(3, 8))
    slide = next(s for s in deck.slides if s.title == "Derivative rules table")
    assert slide.tables[0].rows == [["$x^n$", "$n x^{n-1}$"], ["$\\sin x$", "$\\cos x$"]]
    assert not any("|" in item for s in deck.slides for item in s.content)


def test_bullets_are_whole_sentences_never_cut() -> None:
    long = "The derivative " + "of a composition of functions " * 12 + "is a product."
    passage = split_passage(f"{long} The derivative of a constant is zero.")
    assert passage.sentences == ["The derivative of a constant is zero."]


def test_source_markup_is_not_printed_on_a_slide() -> None:
    passage = split_passage(
        "- [Linear Classification](#linear-classification)\n"
        "- [Loss function](#loss-function)\n\n"
        ":label:`sec_softmax` In :numref:`sec_linear_regression`, we introduced *linear "
        "regression* with `numpy`. See <b>the</b> ![plot](../img/a.svg) figure now. "
        "As :numref:`fig_softmaxreg` shows, it has one layer. :eqlabel:`eq_y`\n\n"
        "```\ndef loss(x, y, W):\n  return np.sum(W @ x)\n```"
    )
    assert passage.sentences == [
        "In the section on linear regression, we introduced linear regression with numpy.",
        "See the figure now.",
    ]


def test_a_code_block_is_no_bullet() -> None:
    code = 'def L_i(x, y, W):\n  """\n  Compute the multiclass svm loss for one example.\n'
    passage = split_passage(f"The loss in code:\n\n{code}\n  scores = W.dot(x)\n\nEnd of the code.")
    assert passage.sentences == ["The loss in code:", "End of the code."]


def test_text_before_a_documents_first_section_is_named_by_its_title() -> None:
    """A chunk's section leaves out the document's own title (its heading or front matter
    title): the slide takes that title, and a document without one its file's name."""
    texts = {
        ("knn-notes.md", "Image Classification"): "The nearest neighbor rule copies the label "
        "of the closest training image. It needs no training at all.",
        ("lecture_2.md", "lecture_2"): "A validation set is held out from the training data. "
        "It is used to tune the settings of a classifier.",
    }
    hits = [
        SearchHit(
            chunk=ChunkRecord(
                id=f"chunk-{n}",
                course_id="c",
                document_id=f"c/{file_name}",
                file_name=file_name,
                text=text,
                page=None,
                section="",
                kind="notes",
                visibility="public",
                owner_id=None,
                chunk_index=0,
                title=title,
            ),
            score=1.0 - n / 10,
        )
        for n, ((file_name, title), text) in enumerate(texts.items())
    ]
    deck = build_extractive_deck("classification", hits, bounds=SlideBounds(1, 4))
    titles = [s.title for s in deck.slides if s.kind is not SlideKind.RECAP]
    assert titles == ["Image Classification", "lecture 2"]
