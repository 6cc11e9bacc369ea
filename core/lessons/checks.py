"""The reading profiles checked on a rendered PDF, not on the template: what a student gets
is what is measured. `check_pdf(pdf, profile)` lists the problems found (empty = passes).

Everything is read back with pdfplumber: each glyph's font name, size, fill colour and
position, the filled rectangles behind it (the page background), horizontal strokes (an
underline), images, and the tagged structure tree (a figure's alt text). Glyphs in a math
font are left out of the text rules: formulas follow mathematical conventions (italic
variables, a serif math face; no sans-serif OpenType math font is available as a pip
package), and their size is not body text.

How each rule is measured:
- contrast: WCAG 2.x relative luminance of each glyph's fill against the topmost filled
  rectangle under it (white when there is none), (L1 + 0.05) / (L2 + 0.05);
- line length: glyphs grouped into lines by baseline, split at wide gaps (columns), counted
  with their spaces;
- size: every text glyph at least 14 pt scaled to the page (`minimum_body_pt`), and for the
  dyslexia profile every bullet's and table cell's glyph at least 24 pt on our slide, scaled
  the same way (a line of body text: a bullet line and the lines under it, a table row);
- line spacing: the baseline distance between consecutive lines of the same size in the
  same column, divided by that size (WCAG 1.4.12 line height);
- italics: a font named italic or oblique, or a slanted text matrix; underline: a stroke or
  thin rectangle just below a line of text and along it; all-caps: a run of three or more
  upper-case words;
- left-aligned: no line starting away from every other line's left edge or formula's
  (centred; a table's column of formulas is an edge its header shares), no
  block whose lines end flush at one right edge (justified);
- background: the filled rectangle covering the page, cream or pastel (light and tinted:
  not white, not grey);
- ADHD: "Slide k of N" on page k of N, at most four "•" bullets a page, each bullet one
  idea (`profiles.is_one_idea`), the last page titled "Recap";
- visual: every page but the recap has an image at least 15% of the page wide and a tagged
  figure with alt text."""

from __future__ import annotations

import io
import itertools
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import pdfplumber

from core.lessons.models import Profile
from core.lessons.profiles import (
    RECAP_TITLE,
    SLIDE_WIDTH_PT,
    is_one_idea,
    minimum_body_pt,
    rules_for,
)

RGB = tuple[float, float, float]

WHITE: RGB = (1.0, 1.0, 1.0)
BULLET = "•"
SOURCES = "Sources:"
SANS_NAMES = re.compile(
    r"sans|arial|helvetica|verdana|tahoma|calibri|segoe|roboto|lexend|opendyslexic|"
    r"atkinson|inter\b|trebuchet|gothic|comic|futura|avenir|source ?sans|open ?sans|lato",
    re.IGNORECASE,
)
SLANTED_NAMES = re.compile(r"italic|oblique|slanted|-it\b", re.IGNORECASE)
MATH_FONT = re.compile(r"math", re.IGNORECASE)
SIZE_TOLERANCE = 0.05
SPACING_TOLERANCE = 0.02


@dataclass
class TextLine:
    chars: list[dict[str, Any]]
    size: float
    baseline: float  # distance from the page top
    x0: float
    x1: float
    text: str = ""
    fonts: set[str] = field(default_factory=set)

    @property
    def top(self) -> float:
        return self.baseline - self.size


@dataclass
class PageText:
    number: int
    width: float
    height: float
    lines: list[TextLine]
    chars: list[dict[str, Any]]
    rects: list[dict[str, Any]]
    strokes: list[dict[str, Any]]
    images: list[dict[str, Any]]
    figures_alt: list[str]
    # Where each formula glyph starts: a table cell of math alone is a column edge too.
    math_x0s: list[float] = field(default_factory=list)

    @property
    def title(self) -> str:
        """The first line in the page's largest type (the marker may come before it)."""
        if not self.lines:
            return ""
        largest = max(line.size for line in self.lines)
        return next(line.text for line in self.lines if line.size >= largest - SIZE_TOLERANCE)

    @property
    def is_recap(self) -> bool:
        return self.title.strip().lower().startswith(RECAP_TITLE.lower())

    def all_text(self) -> str:
        return "\n".join(line.text for line in self.lines)


def check_pdf(pdf: bytes, profile: Profile | str) -> list[str]:
    """Problems with `pdf` as a deck for `profile`, one sentence each, with page numbers."""
    profile = Profile(profile)
    rules = rules_for(profile)
    try:
        pages = read_pages(pdf)
    except Exception as error:  # pdfminer raises many types on a damaged file
        return [f"the PDF cannot be read: {error}"]
    if not pages:
        return ["the PDF has no pages"]
    problems: list[str] = []
    for page in pages:
        if not page.lines:
            problems.append(f"page {page.number}: no text")
            continue
        problems += _contrast(page, rules.min_contrast)
        problems += _line_lengths(page, rules.max_line_chars)
        if rules.sans_serif:
            problems += _sans_serif(page)
        if rules.min_body_a4_pt is not None:
            problems += _sizes(page, rules.min_body_a4_pt)
        if rules.min_body_slide_pt is not None:
            problems += _body_sizes(page, rules.min_body_slide_pt)
        if rules.min_line_spacing is not None:
            problems += _line_spacing(page, rules.min_line_spacing)
        if rules.plain_text:
            problems += _plain_text(page)
        if rules.left_aligned:
            problems += _left_aligned(page)
        if rules.tinted_background:
            problems += _background(page)
        if rules.needs_marker:
            problems += _marker(page, len(pages))
        if rules.max_bullets is not None:
            problems += _bullet_count(page, rules.max_bullets)
        if rules.one_idea_per_bullet:
            problems += _one_idea(page)
        if rules.needs_figures and not page.is_recap:
            problems += _figure(page)
    if rules.needs_recap and not pages[-1].is_recap:
        problems.append(f"the last page is not a recap (its title is {pages[-1].title!r})")
    return problems


# Reading


def read_pages(pdf: bytes) -> list[PageText]:
    out = []
    with pdfplumber.open(io.BytesIO(pdf)) as document:
        for number, page in enumerate(document.pages, 1):
            chars = [c for c in page.chars if not MATH_FONT.search(_font(c))]
            maths = [c for c in page.chars if MATH_FONT.search(_font(c))]
            strokes = [*page.lines, *(r for r in page.rects if r["height"] <= 2.5)]
            out.append(
                PageText(
                    number=number,
                    width=float(page.width),
                    height=float(page.height),
                    lines=_lines(chars, maths, float(page.height)),
                    chars=chars,
                    rects=[r for r in page.rects if r.get("fill")],
                    strokes=strokes,
                    images=list(page.images),
                    figures_alt=_figure_alts(page),
                    math_x0s=[float(m["x0"]) for m in maths],
                )
            )
    return out


def _font(char: dict[str, Any]) -> str:
    """The font name without its subset prefix ("ABCDEF+DejaVuSans" -> "DejaVuSans")."""
    return str(char.get("fontname", "")).split("+", 1)[-1]


def _baseline(char: dict[str, Any]) -> float:
    # pdfplumber's `top` and `bottom` bound the glyph box, which depends on the font; the
    # text matrix holds the baseline itself, in PDF space (from the page bottom).
    return float(char["matrix"][5])


def _lines(
    chars: list[dict[str, Any]], maths: list[dict[str, Any]], page_height: float
) -> list[TextLine]:
    """Glyphs grouped by baseline, then cut where the horizontal gap is wider than two
    ems and holds no math (a second column on the same baseline), in reading order."""
    by_row: dict[tuple[int, int], list[dict[str, Any]]] = {}
    for char in chars:
        # Rounded to a third of a point: glyphs on one baseline share its value.
        key = (round(-_baseline(char) * 3), round(float(char["size"]) * 10))
        by_row.setdefault(key, []).append(char)
    lines: list[TextLine] = []
    for (_, _), row in sorted(by_row.items()):
        row.sort(key=lambda c: c["x0"])
        segment: list[dict[str, Any]] = []
        for char in row:
            gap = (float(segment[-1]["x1"]), float(char["x0"])) if segment else (0.0, 0.0)
            if gap[1] - gap[0] > 2 * float(char["size"]) and not _math_between(gap, char, maths):
                lines.append(_line(segment, page_height))
                segment = []
            segment.append(char)
        if segment:
            lines.append(_line(segment, page_height))
    lines = [_starting_with_math(line, maths) for line in lines if line.text.strip()]
    lines.sort(key=lambda line: (round(line.top), line.x0))
    return lines


def _starting_with_math(line: TextLine, maths: list[dict[str, Any]]) -> TextLine:
    """A line whose first glyphs are a formula starts where the formula does: its text
    glyphs alone would start at the punctuation after it."""
    first = next((c for c in line.chars if c["text"].strip()), line.chars[0])
    top, bottom = float(first["top"]), float(first["bottom"])
    before = [
        float(m["x0"])
        for m in maths
        if m["bottom"] > top and m["top"] < bottom and float(m["x1"]) <= line.x0 + 1.0
    ]
    return replace(line, x0=min([line.x0, *before]))


def _math_between(
    gap: tuple[float, float], char: dict[str, Any], maths: list[dict[str, Any]]
) -> bool:
    """Whether inline math sits in `gap` on `char`'s line (the gap is then the formula)."""
    top, bottom = float(char["top"]), float(char["bottom"])
    return any(
        m["x1"] > gap[0] and m["x0"] < gap[1] and m["bottom"] > top and m["top"] < bottom
        for m in maths
    )


def _line(chars: list[dict[str, Any]], page_height: float) -> TextLine:
    visible = [c for c in chars if c["text"].strip()] or chars
    size = max(float(c["size"]) for c in visible)
    text = ""
    previous: dict[str, Any] | None = None
    for char in chars:
        # A gap wider than a third of the size is a space pdfplumber gives no glyph for.
        gap = char["x0"] - previous["x1"] if previous is not None else 0.0
        if gap > 0.33 * float(char["size"]) and not text.endswith(" ") and char["text"] != " ":
            text += " "
        text += char["text"]
        previous = char
    return TextLine(
        chars=chars,
        size=size,
        baseline=page_height - _baseline(visible[0]),
        x0=float(visible[0]["x0"]),
        x1=float(visible[-1]["x1"]),
        text=" ".join(text.split()),
        fonts={_font(c) for c in visible},
    )


def _figure_alts(page: Any) -> list[str]:
    try:
        tree = page.structure_tree
    except Exception:  # an untagged or odd PDF has no usable tree
        return []
    alts: list[str] = []

    def walk(elements: Iterable[dict[str, Any]]) -> None:
        for element in elements:
            if element.get("type") == "Figure":
                alts.append(str(element.get("alt_text") or "").strip())
            walk(element.get("children", []))

    walk(tree)
    return alts


# Colour


def _rgb(colour: Any) -> RGB:
    """A pdfplumber colour (gray, RGB or CMYK tuple; None is the default black) as RGB."""
    if colour is None:
        return (0.0, 0.0, 0.0)
    if isinstance(colour, int | float):
        colour = (colour,)
    values = [float(v) for v in colour if isinstance(v, int | float)]
    if len(values) == 1:
        return (values[0],) * 3
    if len(values) == 3:
        return (values[0], values[1], values[2])
    if len(values) == 4:
        c, m, y, k = values
        return ((1 - c) * (1 - k), (1 - m) * (1 - k), (1 - y) * (1 - k))
    return (0.0, 0.0, 0.0)


def relative_luminance(rgb: RGB) -> float:
    """WCAG 2.x relative luminance of an sRGB colour with channels in [0, 1]."""

    def linear(channel: float) -> float:
        return channel / 12.92 if channel <= 0.04045 else ((channel + 0.055) / 1.055) ** 2.4

    r, g, b = (linear(c) for c in rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast_ratio(a: RGB, b: RGB) -> float:
    la, lb = relative_luminance(a), relative_luminance(b)
    light, dark = max(la, lb), min(la, lb)
    return (light + 0.05) / (dark + 0.05)


def _background_at(page: PageText, x: float, y: float) -> RGB:
    colour = WHITE
    for rect in page.rects:  # in drawing order: the last one containing the point is on top
        if rect["x0"] <= x <= rect["x1"] and rect["top"] <= y <= rect["bottom"]:
            colour = _rgb(rect.get("non_stroking_color"))
    return colour


def _contrast(page: PageText, minimum: float) -> list[str]:
    worst: float | None = None
    low = 0
    for char in page.chars:
        if not char["text"].strip():
            continue
        x = (char["x0"] + char["x1"]) / 2
        y = (char["top"] + char["bottom"]) / 2
        ratio = contrast_ratio(_rgb(char.get("non_stroking_color")), _background_at(page, x, y))
        if ratio < minimum - 1e-6:
            low += 1
            worst = ratio if worst is None else min(worst, ratio)
    if low:
        return [
            f"page {page.number}: {low} characters have a contrast of {worst:.2f}:1 "
            f"(at least {minimum}:1)"
        ]
    return []


def _background(page: PageText) -> list[str]:
    covering = [
        r
        for r in page.rects
        if (r["x1"] - r["x0"]) * (r["bottom"] - r["top"]) >= 0.9 * page.width * page.height
    ]
    colour = _rgb(covering[-1].get("non_stroking_color")) if covering else WHITE
    if not is_cream_or_pastel(colour):
        shown = "#" + "".join(f"{round(c * 255):02x}" for c in colour)
        return [f"page {page.number}: the background {shown} is not cream or pastel"]
    return []


def is_cream_or_pastel(rgb: RGB) -> bool:
    """Light (relative luminance at least 0.7) and tinted (not white or grey)."""
    return relative_luminance(rgb) >= 0.7 and max(rgb) - min(rgb) >= 0.02


# Text rules


def _line_lengths(page: PageText, maximum: int) -> list[str]:
    long = [line for line in page.lines if len(line.text) > maximum]
    if long:
        worst = max(long, key=lambda line: len(line.text))
        return [
            f"page {page.number}: {len(long)} lines are longer than {maximum} characters "
            f"(longest {len(worst.text)}: {worst.text[:40]!r}...)"
        ]
    return []


def _sans_serif(page: PageText) -> list[str]:
    fonts = {f for line in page.lines for f in line.fonts}
    serif = sorted(f for f in fonts if not is_sans_serif(f))
    if serif:
        return [f"page {page.number}: text in fonts not known to be sans-serif: {', '.join(serif)}"]
    return []


def is_sans_serif(font_name: str) -> bool:
    name = font_name.replace("-", " ")
    if re.search(r"serif", name, re.IGNORECASE) and not re.search(r"sans", name, re.IGNORECASE):
        return False
    return bool(SANS_NAMES.search(name))


def _sizes(page: PageText, a4_pt: float) -> list[str]:
    minimum = minimum_body_pt(page.width, page.height, a4_pt)
    small = [c for c in page.chars if c["text"].strip() and c["size"] < minimum - SIZE_TOLERANCE]
    if small:
        smallest = min(float(c["size"]) for c in small)
        return [
            f"page {page.number}: {len(small)} characters are {smallest:.1f} pt "
            f"(at least {minimum:.1f} pt on this page, {a4_pt:g} pt on A4)"
        ]
    return []


def _body_sizes(page: PageText, slide_pt: float) -> list[str]:
    """Body text: the lines from the first bullet down to the sources line (bullets, their
    wrapped lines, formulas' neighbours and table cells), titles and small print aside."""
    minimum = slide_pt * max(page.width, page.height) / SLIDE_WIDTH_PT
    starts = [line.top for line in page.lines if line.text.startswith(BULLET)]
    if not starts:
        return []
    ends = [line.top for line in page.lines if line.text.startswith(SOURCES)]
    end = min((e for e in ends if e > starts[0]), default=page.height)
    body = [line for line in page.lines if starts[0] <= line.top < end]
    small = [line for line in body if line.size < minimum - SIZE_TOLERANCE]
    if small:
        return [
            f"page {page.number}: body text at {min(line.size for line in small):.1f} pt "
            f"(at least {minimum:.1f} pt on this page): {small[0].text[:40]!r}"
        ]
    return []


def _same_column(a: TextLine, b: TextLine) -> bool:
    return a.x0 < b.x1 and b.x0 < a.x1


def _line_spacing(page: PageText, minimum: float) -> list[str]:
    tight: list[float] = []
    for n, line in enumerate(page.lines):
        following = [
            other
            for other in page.lines[n + 1 :]
            if _same_column(line, other) and other.baseline > line.baseline + 0.5
        ]
        if not following:
            continue
        below = min(following, key=lambda other: other.baseline)
        if abs(below.size - line.size) > SIZE_TOLERANCE:
            continue  # title to body, body to footnote: paragraph spacing, not line spacing
        ratio = (below.baseline - line.baseline) / line.size
        if ratio < minimum - SPACING_TOLERANCE:
            tight.append(ratio)
    if tight:
        return [
            f"page {page.number}: line spacing {min(tight):.2f} times the text size "
            f"(at least {minimum})"
        ]
    return []


def _plain_text(page: PageText) -> list[str]:
    problems: list[str] = []
    slanted = sorted({_font(c) for c in page.chars if c["text"].strip() and _is_slanted(c)})
    if slanted:
        problems.append(f"page {page.number}: italic or oblique text ({', '.join(slanted)})")
    underlined = [line for line in page.lines if _underlined(line, page.strokes)]
    if underlined:
        problems.append(f"page {page.number}: underlined text ({underlined[0].text[:40]!r})")
    shouting = [line for line in page.lines if _all_caps(line.text)]
    if shouting:
        problems.append(f"page {page.number}: text in capitals ({shouting[0].text[:40]!r})")
    return problems


def _is_slanted(char: dict[str, Any]) -> bool:
    if SLANTED_NAMES.search(_font(char)):
        return True
    _, b, c, d = (float(v) for v in char["matrix"][:4])
    return abs(c) > 0.05 * max(abs(d), 1e-9) and abs(b) < 1e-6  # sheared, not rotated


def _underlined(line: TextLine, strokes: Sequence[dict[str, Any]]) -> bool:
    for stroke in strokes:
        if stroke["bottom"] - stroke["top"] > 2.5:
            continue
        y = (stroke["top"] + stroke["bottom"]) / 2
        along = min(stroke["x1"], line.x1) - max(stroke["x0"], line.x0)
        if line.baseline - 1 <= y <= line.baseline + 0.35 * line.size and along > 0.5 * line.size:
            return True
    return False


_WORD = re.compile(r"[^\W\d_]{2,}")


def _all_caps(text: str) -> bool:
    run = 0
    for word in _WORD.findall(text):
        run = run + 1 if word.isupper() else 0
        if run >= 3:
            return True
    return False


def _left_aligned(page: PageText) -> list[str]:
    problems: list[str] = []
    margin = min(line.x0 for line in page.lines)
    edges = [line.x0 for line in page.lines]
    for line in page.lines:
        shared = sum(1 for x in edges if abs(x - line.x0) <= 1.0) > 1 or any(
            abs(x - line.x0) <= 1.0 for x in page.math_x0s
        )
        if line.x0 > margin + 3 * line.size and not shared:
            problems.append(f"page {page.number}: a line is not left-aligned ({line.text[:40]!r})")
            break
    for block in _blocks(page.lines):
        inner = block[:-1]  # the last line of a paragraph is never stretched
        flush = sum(1 for a, b in itertools.pairwise(inner) if abs(a.x1 - b.x1) <= 0.5)
        if len(block) >= 3 and flush >= max(1, len(inner) - 1):
            problems.append(f"page {page.number}: justified text ({block[0].text[:40]!r})")
            break
    return problems


def _blocks(lines: list[TextLine]) -> list[list[TextLine]]:
    """Runs of lines of one size and one left edge, each close below the last."""
    blocks: list[list[TextLine]] = []
    for line in lines:
        last = blocks[-1][-1] if blocks else None
        if (
            last is not None
            and abs(last.size - line.size) <= SIZE_TOLERANCE
            and abs(last.x0 - line.x0) <= 1.0
            and 0 < line.baseline - last.baseline <= 2.2 * line.size
        ):
            blocks[-1].append(line)
        else:
            blocks.append([line])
    return blocks


# ADHD


_MARKER = re.compile(r"slide\s+(\d+)\s+of\s+(\d+)", re.IGNORECASE)


def _marker(page: PageText, total: int) -> list[str]:
    found = _MARKER.findall(page.all_text())
    if (str(page.number), str(total)) not in found:
        return [f'page {page.number}: no "Slide {page.number} of {total}" marker']
    return []


def _bullet_count(page: PageText, maximum: int) -> list[str]:
    count = sum(1 for line in page.lines if line.text.startswith(BULLET))
    if count > maximum:
        return [f"page {page.number}: {count} bullets (at most {maximum})"]
    return []


def bullets_of(page: PageText) -> list[str]:
    """The text of each bullet: its first line and the indented lines that follow it."""
    bullets: list[list[str]] = []
    start: TextLine | None = None
    last_baseline = 0.0
    text_x = 0.0
    for line in page.lines:
        if line.text.startswith(BULLET):
            bullets.append([line.text[1:].strip()])
            start, last_baseline = line, line.baseline
            # Its wrapped lines start where its text does (a table below starts elsewhere).
            words = [c for c in line.chars if c["text"].strip() and c["text"] != BULLET]
            text_x = float(words[0]["x0"]) if words else line.x0 + line.size
        elif (
            start is not None
            and abs(line.size - start.size) <= SIZE_TOLERANCE
            and abs(line.x0 - text_x) <= 0.2 * line.size
            and 0 < line.baseline - last_baseline <= 2.2 * line.size
        ):
            bullets[-1].append(line.text)
            last_baseline = line.baseline
        else:
            start = None
    return [" ".join(parts) for parts in bullets]


def _one_idea(page: PageText) -> list[str]:
    crowded = [b for b in bullets_of(page) if not is_one_idea(b)]
    if crowded:
        return [
            f"page {page.number}: {len(crowded)} bullets hold more than one idea "
            f"({crowded[0][:50]!r})"
        ]
    return []


# Visual


def _figure(page: PageText) -> list[str]:
    problems = []
    large = [i for i in page.images if (i["x1"] - i["x0"]) >= 0.15 * page.width]
    if not large:
        problems.append(f"page {page.number}: no figure")
    if not any(page.figures_alt):
        problems.append(f"page {page.number}: no figure with alt text")
    return problems
