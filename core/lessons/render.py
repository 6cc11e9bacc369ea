"""A lesson deck as a PDF: `render_deck`, synchronous and CPU-bound (the service calls it
through `asyncio.to_thread`).

Engine: **Typst** (`core.lessons.typst_engine`) is the default. It is a real typesetter in
one pip wheel with its fonts and math fonts inside: fractions, matrices, cases, alignment
and accents all typeset, a deck of ten slides compiles in tens of milliseconds, and the PDF
is tagged (figures carry their alt text, headings and lists their structure), which is
what the visual profile and screen-reader users need. LaTeX math reaches it through the
`tex2typst` converter, every formula compiled on its own first so a bad one shows as its
source. The alternatives were weaker: matplotlib's mathtext has no matrices, `cases` or
aligned equations; reportlab and fpdf2 have no math at all; and TeX cannot be installed
here.

**pdflatex** (`core.lessons.latex_engine`, Jinja2 + LaTeX, the reference design) is used
when the setting asks for it and `pdflatex` is on PATH; asked for without it, the deck is
rendered with Typst and a warning is logged. A deck with figures (the visual profile) or
tables always renders with Typst: pdflatex cannot give a figure alt text, and its template
has no tables."""

from __future__ import annotations

import shutil
from collections.abc import Mapping
from enum import StrEnum

import structlog

from core.lessons.figures import PageSource, SlideFigure, figure_for
from core.lessons.models import Deck, Profile, SlideKind
from core.lessons.profiles import ProfileStyle, adapt_deck, style_for
from core.plain_math import mark_plain_math

log = structlog.get_logger(__name__)


class Engine(StrEnum):
    TYPST = "typst"
    PDFLATEX = "pdflatex"


def pdflatex_available() -> bool:
    return shutil.which("pdflatex") is not None


def resolve_engine(requested: Engine | str | None) -> Engine:
    """The engine that will render: pdflatex only when asked for and installed."""
    engine = Engine(requested) if requested else Engine.TYPST
    if engine is Engine.PDFLATEX and not pdflatex_available():
        log.warning("pdflatex asked for but not installed; rendering with Typst")
        return Engine.TYPST
    return engine


def render_deck(
    deck: Deck,
    profile: Profile | None = None,
    *,
    page_images: PageSource | None = None,
    widgets: Mapping[int, str] | None = None,
    engine: Engine | str | None = None,
    style: ProfileStyle | None = None,
) -> bytes:
    """`deck` as PDF bytes, laid out for `profile` (the deck's own when None).

    `page_images` gives the visual profile the cited pages' pictures as figures (a map of the
    lesson is drawn where there is none). `widgets` maps a slide's 1-based number to the file
    name of its sanitised widget, which the slide then points to. `style` replaces the profile's
    layout numbers (tests use it to break one rule on purpose). The deck is first made to
    follow the profile's content rules (`adapt_deck`: idempotent)."""
    profile = profile or deck.profile
    deck = adapt_deck(_with_plain_math(deck).model_copy(update={"profile": profile}))
    style = style or style_for(profile)
    figures: dict[int, SlideFigure] = {}
    if style.figures:
        titles = [slide.title for slide in deck.slides]
        figures = {
            i: figure_for(slide, page_images, titles, i)
            for i, slide in enumerate(deck.slides)
            if slide.kind is SlideKind.CONTENT
        }
    by_index = {n - 1: name for n, name in (widgets or {}).items() if 1 <= n <= len(deck.slides)}
    chosen = resolve_engine(engine)
    if chosen is Engine.PDFLATEX and (figures or any(s.tables for s in deck.slides)):
        # pdflatex cannot tag a figure with alt text, and its template has no tables: such
        # decks stay on Typst.
        chosen = Engine.TYPST
    marker = style.slide_marker
    if chosen is Engine.PDFLATEX:
        from core.lessons.latex_engine import render_latex

        return render_latex(deck, style, figures=figures, widgets=by_index, marker=marker)
    from core.lessons.typst_engine import render_typst

    return render_typst(deck, style, figures=figures, widgets=by_index, marker=marker)


def _with_plain_math(deck: Deck) -> Deck:
    """Plain-text formulas in the slides' items as LaTeX math, so they typeset as the
    material's own `$...$` does (a model may write "x^2" where the material had it)."""
    slides = [
        slide.model_copy(update={"content": [mark_plain_math(item) for item in slide.content]})
        for slide in deck.slides
    ]
    return deck.model_copy(update={"slides": slides})
