import io

import pdfplumber

from core.lessons import Deck, Slide, render_deck, to_typst
from core.lessons.checks import read_pages

BROKEN = r"\frac{1}{"
UNKNOWN_MACRO = r"\notamacro{x} + 1"


def _text(pdf: bytes) -> str:
    with pdfplumber.open(io.BytesIO(pdf)) as document:
        return "\n".join(page.extract_text() or "" for page in document.pages)


def _formula_elements(pdf: bytes) -> int:
    count = 0
    with pdfplumber.open(io.BytesIO(pdf)) as document:

        def walk(elements) -> None:  # type: ignore[no-untyped-def]
            nonlocal count
            for element in elements:
                count += element.get("type") == "Formula"
                walk(element.get("children", []))

        walk(document.structure_tree)
    return count


def test_every_formula_of_the_corpus_converts_and_typesets(formula_corpus: list[str]) -> None:
    assert len(formula_corpus) >= 20
    failed = {f: to_typst(f).error for f in formula_corpus if not to_typst(f).ok}
    assert failed == {}


def test_the_corpus_renders_as_typeset_formulas_in_one_deck(formula_corpus: list[str]) -> None:
    slides = [
        Slide(title=f"Formulas {n // 3 + 1}", math=formula_corpus[n : n + 3])
        for n in range(0, len(formula_corpus), 3)
    ]
    pdf = render_deck(Deck(topic="Formula corpus", slides=slides))
    assert "Formula as written" not in _text(pdf)
    # Each display formula is a tagged Formula in the PDF: none was dropped.
    assert _formula_elements(pdf) >= len(formula_corpus)
    assert len(read_pages(pdf)) == len(slides)


def test_a_formula_that_cannot_be_typeset_is_shown_as_its_source() -> None:
    assert not to_typst(BROKEN).ok
    assert not to_typst(UNKNOWN_MACRO).ok
    assert "unknown variable" in (to_typst(UNKNOWN_MACRO).error or "")
    slide = Slide(
        title="Broken", content=["Before the formulas."], math=[BROKEN, r"x^2", UNKNOWN_MACRO]
    )
    text = _text(render_deck(Deck(topic="t", slides=[slide])))
    assert text.count("Formula as written") == 2
    assert BROKEN in text
    assert r"\notamacro{x} + 1" in text


def test_broken_inline_math_stays_in_its_sentence_as_written() -> None:
    slide = Slide(title="Inline", content=[r"The value $\frac{1}{$ is broken but $x^2$ is fine."])
    text = _text(render_deck(Deck(topic="t", slides=[slide])))
    assert r"$\frac{1}{$" in text
    assert "is fine." in text


def test_math_that_would_carry_typst_code_is_shown_as_source() -> None:
    # tex2typst keeps the `#` inside a string; any `#` at all is refused all the same.
    result = to_typst(r'\text{#read("/etc/passwd")}')
    assert not result.ok
    assert result.error == "the formula would contain Typst code"


def _formula_glyphs(pdf: bytes) -> int:
    """Glyphs set in the math font: what Typst typesets as a formula."""
    with pdfplumber.open(io.BytesIO(pdf)) as document:
        return sum("Math" in char["fontname"] for page in document.pages for char in page.chars)


def test_a_plain_text_formula_in_a_slide_is_typeset_and_prose_stays_text() -> None:
    item = "The derivative is f'(x) = lim_{h->0} (f(x + h) - f(x))/h for 1/2 of the class."
    typeset = render_deck(Deck(topic="t", slides=[Slide(title="Derivative", content=[item])]))
    prose = render_deck(
        Deck(topic="t", slides=[Slide(title="Derivative", content=["Half (1/2) of it."])])
    )

    text = _text(typeset)
    assert "lim_{h->0}" not in text and "->" not in text
    assert "for 1/2 of" in text  # in the text face, as written
    assert _formula_glyphs(typeset) > 10
    assert _formula_glyphs(prose) == 0


def test_every_plain_text_formula_of_the_sample_course_typesets() -> None:
    """The sample course's lecture PDFs write their formulas in plain text."""
    from conftest import SAMPLE_COURSE

    from core.lessons.latex_math import is_safe_math
    from core.plain_math import plain_formulas
    from ingestion.loaders.pdf import load_pdf

    found = [
        formula.latex
        for path in sorted(SAMPLE_COURSE.glob("*.pdf"))
        for block in load_pdf(path, path.name).blocks
        for formula in plain_formulas(block.text)
    ]
    assert len(found) >= 40
    assert {f: to_typst(f).error for f in found if not to_typst(f).ok} == {}
    assert [f for f in found if not is_safe_math(f)] == []
