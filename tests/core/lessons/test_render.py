import asyncio
import io
import shutil
from pathlib import Path

import pdfplumber
import pypdfium2 as pdfium
import pytest
import typst

from core.index.chunk_index import SearchHit
from core.index.payload import ChunkRecord
from core.lessons import (
    Citation,
    Deck,
    Engine,
    Profile,
    Slide,
    SlideBounds,
    build_extractive_deck,
    check_pdf,
    render_deck,
    resolve_engine,
    style_for,
)
from core.lessons.checks import read_pages
from core.lessons.fonts import typst_fonts
from core.lessons.latex_engine import escape, latex_source

needs_pdflatex = pytest.mark.skipif(
    shutil.which("pdflatex") is None, reason="pdflatex is not installed (TeX is not on pip)"
)


@pytest.fixture
def course_pdf(tmp_path: Path) -> Path:
    """A two-page course PDF, the kind a visual deck cites."""
    path = tmp_path / "week3.pdf"
    source = "#set page(width: 210mm, height: 297mm)\n= Week 3\nLimits.\n#pagebreak()\n= Page two\n"
    path.write_bytes(typst.compile(source.encode(), font_paths=typst_fonts()))
    return path


def _slide(page: int | None, file: str = "week3.pdf") -> Slide:
    return Slide(
        title="Limits",
        content=["A limit describes where a function is heading."],
        citations=[Citation(file=file, page=page, section="Limits", chunk_id="c")],
    )


class CoursePages:
    """Pictures of the course's pages by file name and page, as `core.page_pictures` keeps
    them: here the pages of one PDF drawn with pdfium."""

    def __init__(self, files: dict[str, Path]) -> None:
        self.files = files

    def page_png(self, file_name: str, page: int) -> bytes | None:
        path = self.files.get(file_name)
        if path is None:
            return None
        pdf = pdfium.PdfDocument(path)
        try:
            if not 1 <= page <= len(pdf):
                return None
            out = io.BytesIO()
            pdf[page - 1].render(scale=1).to_pil().save(out, format="PNG")
            return out.getvalue()
        finally:
            pdf.close()


def test_a_visual_slide_shows_its_cited_page(course_pdf: Path) -> None:
    pages = CoursePages({"week3.pdf": course_pdf})
    deck = Deck(topic="limits", profile=Profile.VISUAL, slides=[_slide(2)])
    pdf = render_deck(deck, page_images=pages)
    [page] = read_pages(pdf)
    assert page.figures_alt == [
        "Image of page 2 of week3.pdf, section Limits, the course material for: Limits."
    ]
    assert check_pdf(pdf, Profile.VISUAL) == []


def test_a_visual_slide_without_a_page_picture_gets_a_map_of_the_lesson(course_pdf: Path) -> None:
    """Not a hub of the slide's own points cut to their first words: where the slide is."""
    pages = CoursePages({"week3.pdf": course_pdf})
    for slide in (_slide(None), _slide(9), _slide(1, file="notes.md")):
        pdf = render_deck(
            Deck(topic="limits", profile=Profile.VISUAL, slides=[slide]), page_images=pages
        )
        [page] = read_pages(pdf)
        assert page.figures_alt[0] == (
            "Map of the lesson, slide 1 of 1: 1. Limits. This slide is 1, Limits."
        )
        assert check_pdf(pdf, Profile.VISUAL) == []


def test_one_page_per_slide_and_the_widget_is_pointed_to() -> None:
    slides = [_slide(None), _slide(None).model_copy(update={"widget_html": "<p>w</p>"})]
    pdf = render_deck(Deck(topic="t", slides=slides), widgets={2: "slide-02-widget.html"})
    pages = read_pages(pdf)
    assert len(pages) == 2
    assert "slide-02-widget.html" in pages[1].all_text()
    assert "widget" not in pages[0].all_text()


def test_an_overfull_slide_shrinks_then_splits_but_never_overflows_a_page() -> None:
    many = [f"Sentence number {n} about the behaviour of limits near a point." for n in range(12)]
    deck = Deck(topic="t", profile=Profile.DYSLEXIA, slides=[Slide(title="Crowded", content=many)])
    pdf = render_deck(deck)
    pages = read_pages(pdf)
    assert len(pages) >= 2
    assert pages[1].title == "Crowded (cont.)"
    assert check_pdf(pdf, Profile.DYSLEXIA) == []  # shrinking stopped at the profile's floor
    assert min(line.size for p in pages for line in p.lines) >= style_for(Profile.DYSLEXIA).small_pt


def test_a_visual_slide_with_a_long_title_and_a_tall_page_fits_by_shrinking_its_picture(
    course_pdf: Path,
) -> None:
    """A syllabus page is portrait: its picture beside a two-line title, a long caption and a
    long point filled the slide at any text size, and splitting could not help (one point)."""
    section = "Lectures, Discussion Sections and Attendance"
    slide = Slide(
        title=section,
        content=[
            "If you have a documented disability (e.g., physical, psychological, or learning) on "
            "file with Disability Services, you may be eligible for accommodations in this course."
        ],
        citations=[Citation(file="101-f22-syllabus.pdf", page=2, section=section, chunk_id="c")],
    )
    pages = CoursePages({"101-f22-syllabus.pdf": course_pdf})
    pdf = render_deck(Deck(topic="t", profile=Profile.VISUAL, slides=[slide]), page_images=pages)
    [page] = read_pages(pdf)
    assert page.figures_alt[0].startswith("Image of page 2 of 101-f22-syllabus.pdf")
    assert check_pdf(pdf, Profile.VISUAL) == []


async def test_rendering_runs_off_the_event_loop() -> None:
    deck = Deck(topic="t", slides=[_slide(None)])
    pdfs = await asyncio.gather(*(asyncio.to_thread(render_deck, deck) for _ in range(3)))
    assert all(len(pdfium.PdfDocument(p)) == 1 for p in pdfs)


def test_pdflatex_is_used_only_when_asked_for_and_installed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert resolve_engine(None) is Engine.TYPST
    monkeypatch.setattr(shutil, "which", lambda name: None)
    assert resolve_engine("pdflatex") is Engine.TYPST
    monkeypatch.setattr(shutil, "which", lambda name: "/usr/bin/pdflatex")
    assert resolve_engine(Engine.PDFLATEX) is Engine.PDFLATEX


def test_the_latex_template_escapes_text_and_screens_formulas() -> None:
    slide = Slide(
        title="Costs & 100% of {braces}",
        content=[r"Price $5 \input{/etc/passwd} and $x_1^2$ here"],
        math=[r"\frac{a}{b}", r"\input{/etc/passwd}"],
    )
    source = latex_source(
        Deck(topic="t", slides=[slide]), style_for(Profile.STANDARD), {}, False, set()
    )
    assert r"Costs \& 100\% of \{braces\}" in source
    assert r"\[ \frac{a}{b} \]" in source
    assert r"\[ \input" not in source  # shown as source, escaped
    assert r"\textbackslash{}input\{/etc/passwd\}" in source
    assert escape("a_b^c~") == r"a\_b\^{}c\textasciitilde{}"


@needs_pdflatex
@pytest.mark.parametrize("profile", [Profile.STANDARD, Profile.DYSLEXIA, Profile.ADHD])
def test_the_pdflatex_path_renders_the_corpus_and_passes_the_profile(
    profile: Profile, formula_corpus: list[str]
) -> None:
    slides = [
        Slide(
            title=f"Formulas {n // 3 + 1}",
            content=["Course formulas."],
            math=formula_corpus[n : n + 3],
        )
        for n in range(0, len(formula_corpus), 3)
    ]
    slides[0] = slides[0].model_copy(update={"math": [*slides[0].math, r"\frac{1}{"]})
    pdf = render_deck(Deck(topic="t", profile=profile, slides=slides), engine=Engine.PDFLATEX)
    pages = read_pages(pdf)
    assert "Formula as written" in pages[0].all_text()
    assert check_pdf(pdf, profile) == []


def test_a_formula_too_tall_for_any_page_shrinks_alone_at_24_pt() -> None:
    """The dyslexia profile never shrinks its text below 24 pt, and halving a slide of one
    formula cannot make room: the formula alone is made smaller (it is not body text)."""
    rows = r" \\ ".join(f"x_{{{n}}} &= {n} a + b_{{{n}}}" for n in range(14))
    slide = Slide(
        title="A long derivation",
        content=["Each line follows from the one before it."],
        math=[rf"\begin{{aligned}} {rows} \end{{aligned}}"],
    )
    pdf = render_deck(Deck(topic="t", profile=Profile.DYSLEXIA, slides=[slide]))
    assert len(read_pages(pdf)) == 1
    assert check_pdf(pdf, Profile.DYSLEXIA) == []


def test_latex_from_a_markdown_source_is_typeset_in_an_embedded_math_font() -> None:
    """cs231n writes `\\\\( … \\\\)` (Markdown's escaped backslash), d2l `$…$` and `$$…$$`:
    each formula is typeset, read back from the PDF as math glyphs in the embedded math
    font, and no LaTeX source is left in the text."""
    text = (
        "The score function is \\\\( f(x_i, W) = W x_i \\\\), a matrix product. "
        "The softmax gives $\\hat{y}_i = \\frac{\\exp(o_i)}{\\sum_j \\exp(o_j)}$ for each "
        "class.\n\n"
        "$$L = \\frac{1}{N} \\sum_{i=1}^{N} L_i + \\lambda \\sum_k \\sum_l W_{k,l}^2$$"
    )
    hit = SearchHit(
        chunk=ChunkRecord(
            id="c1", course_id="c", document_id="d", file_name="linear-classify.md", text=text,
            page=None, section="Loss", kind="lecture", visibility="public", owner_id=None,
            chunk_index=0,
        ),
        score=1.0,
    )  # fmt: skip
    deck = build_extractive_deck("softmax loss", [hit], bounds=SlideBounds(1, 2))
    pdf = render_deck(deck)
    with pdfplumber.open(io.BytesIO(pdf)) as document:
        page = document.pages[0]
        math = [c for c in page.chars if "Math" in c["fontname"]]
        words = page.extract_text()
        fonts = {str(font.get("BaseFont", "")) for font in _fonts(document)}
    assert any("NewCMMath" in name for name in fonts), fonts  # embedded, as pdffonts lists it
    printed = "".join(c["text"] for c in math)
    # The score function inline, the softmax's fraction and the display formula's sums.
    assert "𝑓(𝑥𝑖,𝑊)=𝑊𝑥𝑖" in printed and "∑" in printed and "𝜆" in printed, printed
    assert "\\frac" not in words and "\\(" not in words and "$" not in words


def _fonts(document: pdfplumber.PDF) -> list[dict[str, object]]:
    """The font dictionaries of the first page's resources, resolved."""
    from pdfminer.pdftypes import resolve1

    resources = resolve1(document.pages[0].page_obj.resources)
    return [resolve1(font) for font in resolve1(resources.get("Font", {})).values()]
