"""The default engine: Typst, through its official Python wheel (the compiler itself, in
process, no TeX, no network).

The deck reaches the template as JSON in `sys.inputs`, never as Typst markup, so no text
from the material or a model is ever parsed as markup; formulas reach it as Typst math
already checked to compile (`core.lessons.math`), evaluated in math mode only. The project
root is a temporary folder holding only this deck's figures: Typst cannot read any other
file. No `@preview` package is imported (they would need the network).

After compiling, the page count is compared with the slide count. A slide whose text ran
onto a second page is shrunk a step at a time (never below the profile's `min_body_pt`),
then, as a last resort, split in two."""

from __future__ import annotations

import json
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pypdfium2 as pdfium
import structlog
import typst

from core.lessons.figures import SlideFigure
from core.lessons.fonts import typst_fonts
from core.lessons.layout import Line, wrap_chars, wrap_plain, wrap_rich
from core.lessons.math import to_typst
from core.lessons.models import Deck, Slide, SlideTable
from core.lessons.profiles import SLIDE_HEIGHT_PT, SLIDE_WIDTH_PT, ProfileStyle

log = structlog.get_logger(__name__)

MARGIN_X_PT = 40.0
# Column width per character, in ems of the body size: wider than DejaVu Sans' average
# (about 0.55 em) so Typst keeps our line breaks instead of adding its own.
EM_PER_CHAR = 0.62
FIGURE_GUTTER_PT = 18.0
SHRINK_STEPS = (1.0, 0.9, 0.8, 0.7, 0.6)
MAX_FIT_ROUNDS = 12
MIN_MATH_SCALE = 0.4


class RenderError(RuntimeError):
    """The engine could not produce a PDF (a bug or a resource limit, not bad content)."""


TEMPLATE = r"""
#let data = json(bytes(sys.inputs.deck))
#let st = data.style
#set document(title: data.title)
#set page(
  width: data.page_w * 1pt, height: data.page_h * 1pt, fill: rgb(st.background),
  margin: (left: data.margin_x * 1pt, right: data.margin_x * 1pt, top: 34pt, bottom: 26pt),
)
#set text(font: st.font, size: st.body_pt * 1pt, fill: rgb(st.text_color), lang: "en",
  hyphenate: false)
#set par(justify: st.justify, leading: st.leading_em * 1em, spacing: st.leading_em * 1.8em)
#set align(if st.centered { center } else { left })
// The math face is smaller to the eye than DejaVu Sans at one size (its x-height is 0.43 em
// against 0.55): a little larger, formulas read at the size of the words around them.
#show math.equation: set text(font: "New Computer Modern Math", size: 1.15em)
// Display formulas start at the text's left edge like everything else (BDA: left-aligned).
#show math.equation.where(block: true): set align(if st.centered { center } else { left })
#set list(marker: [•], indent: 0pt, body-indent: 0.45em, spacing: st.leading_em * 1.3em)

#let runs(line) = for (n, r) in line.enumerate() {
  if n > 0 and not r.glue [ ]
  if r.math != none { math.equation(block: false, eval(r.math, mode: "math")) } else [#r.text]
}
#let lines(ls) = ls.map(runs).join(linebreak(justify: st.justify))

#let styled-title(body) = {
  let body = if st.upper_titles { upper(body) } else { body }
  let body = if st.italic_titles { emph(body) } else { body }
  if st.underline_titles { underline(body) } else { body }
}

#let formula(f, k) = {
  if f.math != none {
    text(size: k * 1em, math.equation(block: true, eval(f.math, mode: "math")))
  } else {
    block(above: 10pt, below: 10pt, text(font: st.mono_font, size: st.small_pt * 1pt,
      [Formula as written:] + linebreak() + f.source.join(linebreak())))
  }
}

// A table of the material: the column names in bold on a tinted row, cells left-aligned, no
// rules (a rule under a line of text reads as underlining), each cell's text already wrapped
// like every other line, so its lines keep their spacing.
#let data-table(t) = block(above: 12pt, below: 12pt, table(
  columns: t.columns,
  align: left,
  inset: (x: 0.3em, y: 0.4em),  // rows 1.5 times the text size apart (WCAG 1.4.12)
  column-gutter: 0.6em,
  stroke: none,
  fill: (x, y) => if y == 0 and t.header.len() > 0 { rgb(st.table_header) }
    else if y > 0 and calc.even(y) { rgb(st.table_band) },
  ..if t.header.len() > 0 { (table.header(..t.header.map(c => strong(lines(c)))),) } else { () },
  ..t.rows.map(r => r.map(c => lines(c))).flatten(),
))

#let slide(s, i) = {
  if i > 0 { pagebreak() }
  context [#metadata(here().page()) <slide-page>]
  let k = s.scale
  if s.marker != none {
    place(top + right, dy: -24pt,
      text(size: st.small_pt * 1pt, fill: rgb(st.muted_color), s.marker))
  }
  block(below: 14pt, width: 100%,
    text(size: st.title_pt * k * 1pt, weight: "bold", styled-title(lines(s.title))))
  let body = {
    set text(size: st.body_pt * k * 1pt)
    if s.items.len() > 0 { list(..s.items.map(item => lines(item))) }
    for f in s.formulas { formula(f, s.math_scale) }
    for t in s.tables { data-table(t) }
    if s.widget != none {
      block(above: 12pt, text(size: st.small_pt * 1pt, fill: rgb(st.muted_color), lines(s.widget)))
    }
  }
  if s.figure != none {
    grid(columns: (1fr, st.figure_width_frac * 100%), column-gutter: data.gutter * 1pt,
      body,
      // The picture shrinks with the text: a portrait page beside a long title fits no
      // other way, and splitting the points cannot make room for it.
      figure(
        image(s.figure.path, alt: s.figure.alt, width: 100%,
          height: data.page_h * 0.52 * k * 1pt, fit: "contain"),
        caption: text(size: st.small_pt * 1pt, fill: rgb(st.muted_color), lines(s.figure.caption)),
        numbering: none, gap: 6pt,
      ),
    )
  } else {
    block(width: s.column_w * 1pt, body)
  }
  if s.citations.len() > 0 {
    block(above: 14pt, text(size: st.small_pt * 1pt, fill: rgb(st.muted_color), lines(s.citations)))
  }
}

#for (i, s) in data.slides.enumerate() { slide(s, i) }
"""


def render_typst(
    deck: Deck,
    style: ProfileStyle,
    *,
    figures: Mapping[int, SlideFigure],
    widgets: Mapping[int, str],
    marker: bool,
) -> bytes:
    """`deck` as PDF bytes, one page per slide. `figures` and `widgets` are keyed by the
    slide's position (0-based); a widget value is the file name the slide points to."""
    slides = list(deck.slides)
    scales = [1.0] * len(slides)
    math_scales = [1.0] * len(slides)
    figs = dict(figures)
    wids = dict(widgets)
    with tempfile.TemporaryDirectory(prefix="coursebot-lesson-") as root:
        for _ in range(MAX_FIT_ROUNDS):
            data = _deck_data(deck.topic, slides, style, scales, figs, wids, marker, Path(root))
            for entry, math_scale in zip(data["slides"], math_scales, strict=True):
                entry["math_scale"] = math_scale
            pdf, pages = _compile(data, Path(root))
            if len(pages) == len(slides) and _page_count(pdf) == len(slides):
                return pdf
            overflowing = _overflowing(pages, _page_count(pdf))
            if not overflowing:
                raise RenderError("the slides and the pages do not line up")
            for index in reversed(overflowing):
                smaller = _next_scale(scales[index], style)
                if smaller is not None:
                    scales[index] = smaller
                    continue
                if _alone(slides[index]) and math_scales[index] > MIN_MATH_SCALE:
                    # One formula too tall for a page at any text size: only it shrinks
                    # (formulas are not body text); splitting could not make room.
                    math_scales[index] = max(math_scales[index] * 0.75, MIN_MATH_SCALE)
                    continue
                first, second = _halves(slides[index])
                log.info("lesson slide split to fit its page", slide=index + 1)
                slides[index : index + 1] = [first, second]
                scales[index : index + 1] = [1.0, 1.0]
                math_scales[index : index + 1] = [math_scales[index]] * 2
                # The continuation keeps the slide's figure (the visual profile's rule).
                figs = _shift(figs, index, copy=True)
                wids = _shift(wids, index)
        raise RenderError(f"the deck does not fit its pages after {MAX_FIT_ROUNDS} rounds")


def _compile(data: dict[str, Any], root: Path) -> tuple[bytes, list[int]]:
    # A file, not bytes: the wheel's `query` can only read its input from the root.
    main = root / "deck.typ"
    main.write_text(TEMPLATE, encoding="utf-8")
    compiler = typst.Compiler(
        str(main),
        root=str(root),
        font_paths=typst_fonts(),
        ignore_system_fonts=True,
        sys_inputs={"deck": json.dumps(data)},
    )
    try:
        pdf = compiler.compile(format="pdf")
        pages = json.loads(
            compiler.query("<slide-page>", field="value", format="json", root=str(root))
        )
    except typst.TypstError as error:
        raise RenderError(f"Typst failed: {error.message}") from error
    assert isinstance(pdf, bytes)
    return pdf, [int(p) for p in pages]


def _page_count(pdf: bytes) -> int:
    document = pdfium.PdfDocument(pdf)
    try:
        return len(document)
    finally:
        document.close()


def _overflowing(starts: list[int], total_pages: int) -> list[int]:
    """Indices of slides that take more than one page."""
    ends = [*starts[1:], total_pages + 1]
    return [i for i, (a, b) in enumerate(zip(starts, ends, strict=True)) if b - a > 1]


def _next_scale(scale: float, style: ProfileStyle) -> float | None:
    for step in SHRINK_STEPS:
        if step < scale - 1e-9 and style.body_pt * step >= style.min_body_pt - 1e-9:
            return step
    return None


def _alone(slide: Slide) -> bool:
    """Whether the slide holds at most one point and one formula: halving it cannot help."""
    rows = sum(len(t.rows) for t in slide.tables)
    return len(slide.content) <= 1 and len(slide.math) <= 1 and rows <= 1 and bool(slide.math)


def _halves(slide: Slide) -> tuple[Slide, Slide]:
    items = slide.content
    tables = slide.tables
    if tables and (items or slide.math or len(tables) > 1):
        # The points first, the tables on the page after.
        keep = [] if (items or slide.math) else tables[:1]
        first = slide.model_copy(update={"tables": keep})
        rest = tables[len(keep) :]
        return first, _continued(slide, content=[], math=[], tables=rest)
    if tables and len(tables[0].rows) > 1:
        rows = tables[0].rows
        cut = (len(rows) + 1) // 2
        upper = tables[0].model_copy(update={"rows": rows[:cut]})
        lower = tables[0].model_copy(update={"rows": rows[cut:]})
        first = slide.model_copy(update={"tables": [upper]})
        return first, _continued(slide, content=[], math=[], tables=[lower])
    if len(items) >= 2:
        cut = (len(items) + 1) // 2
        head, tail = items[:cut], items[cut:]
        math_head, math_tail = slide.math, []
    elif slide.math:
        head, tail = items, []
        cut = (len(slide.math) + 1) // 2
        math_head, math_tail = slide.math[:cut], slide.math[cut:]
    else:  # one very long item: cut its words in two
        words = items[0].split() if items else []
        half = len(words) // 2
        head, tail = [" ".join(words[:half])], [" ".join(words[half:])]
        math_head, math_tail = slide.math, []
    first = slide.model_copy(update={"content": head, "math": math_head, "tables": []})
    return first, _continued(slide, content=tail, math=math_tail, tables=slide.tables)


def _continued(slide: Slide, **parts: Any) -> Slide:
    title = slide.title
    return slide.model_copy(
        update={
            "title": (title[:110] + " (cont.)") if not title.endswith("(cont.)") else title,
            "widget_html": None,
            **parts,
        }
    )


def _shift(by_index: dict[int, Any], split_at: int, *, copy: bool = False) -> dict[int, Any]:
    shifted = {(i + 1 if i > split_at else i): v for i, v in by_index.items()}
    if copy and split_at in by_index:
        shifted[split_at + 1] = by_index[split_at]
    return shifted


def _deck_data(
    topic: str,
    slides: list[Slide],
    style: ProfileStyle,
    scales: list[float],
    figures: Mapping[int, SlideFigure],
    widgets: Mapping[int, str],
    marker: bool,
    root: Path,
) -> dict[str, Any]:
    width = style.line_chars
    available = SLIDE_WIDTH_PT - 2 * MARGIN_X_PT
    out_slides = []
    for index, slide in enumerate(slides):
        figure = figures.get(index)
        fig_data = None
        if figure is not None:
            name = f"figure-{index + 1}.png"
            (root / name).write_bytes(figure.png)
            fig_data = {
                "path": name,
                "alt": figure.alt,
                "caption": _lines(wrap_plain(figure.caption, max(int(width * 0.8), 20))),
            }
        widget = widgets.get(index)
        pointer = f"Interactive widget: open {widget}, sent with this PDF." if widget else ""
        out_slides.append(
            {
                "title": _rich(wrap_rich(slide.title, width, with_math=False)),
                "items": [_rich(wrap_rich(item, width - 2)) for item in slide.content],
                "formulas": [_formula(f, width) for f in slide.math],
                "tables": [_table(t, width) for t in slide.tables],
                "citations": _lines(wrap_plain(_sources(slide), width)),
                "figure": fig_data,
                "widget": _lines(wrap_plain(pointer, width)) if pointer else None,
                "marker": f"Slide {index + 1} of {len(slides)}" if marker else None,
                "scale": scales[index],
                "column_w": min(available, width * EM_PER_CHAR * style.body_pt * scales[index]),
                "kind": slide.kind.value,
            }
        )
    return {
        "title": topic,
        "page_w": SLIDE_WIDTH_PT,
        "page_h": SLIDE_HEIGHT_PT,
        "margin_x": MARGIN_X_PT,
        "gutter": FIGURE_GUTTER_PT,
        "style": _style_data(style),
        "slides": out_slides,
    }


def _style_data(style: ProfileStyle) -> dict[str, Any]:
    fields = (
        "font", "mono_font", "body_pt", "title_pt", "small_pt", "leading_em", "text_color",
        "muted_color", "background", "justify", "italic_titles", "underline_titles",
        "upper_titles", "centered", "figure_width_frac", "table_header", "table_band",
    )  # fmt: skip
    return {name: getattr(style, name) for name in fields}


def _sources(slide: Slide) -> str:
    if not slide.citations:
        return ""
    labels = list(dict.fromkeys(c.label() for c in slide.citations))
    return "Sources: " + "; ".join(labels)


def _formula(latex: str, width: int) -> dict[str, Any]:
    converted = to_typst(latex)
    if converted.ok:
        return {"math": converted.typst, "source": None}
    return {"math": None, "source": wrap_chars(latex, width)}


def _table(table: SlideTable, width: int) -> dict[str, Any]:
    """Cells wrapped so that a row, its cells side by side, is no wider than a line."""
    columns = table.columns
    cell_chars = max((width - 2 * columns) // columns, 8)

    def cell(text: str) -> list[list[dict[str, Any]]]:
        return _rich(wrap_rich(text, cell_chars)) if text else _lines([""])

    return {
        "columns": columns,
        "header": [cell(c) for c in table.header],
        "rows": [[cell(c) for c in row] for row in table.rows],
    }


def _rich(lines: list[Line]) -> list[list[dict[str, Any]]]:
    return [[{"text": r.text, "math": r.math, "glue": r.glue} for r in line] for line in lines]


def _lines(lines: list[str]) -> list[list[dict[str, Any]]]:
    return [[{"text": line, "math": None, "glue": False}] for line in lines]
