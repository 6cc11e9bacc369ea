"""What each reading profile means, as numbers the renderer lays out with and the PDF checks
hold it to, and the content rules applied to a deck before it is rendered (`adapt_deck`).

Sources: British Dyslexia Association style guide (sans-serif, 12-14 pt or larger, line
spacing 1.5, cream or pastel background, no italics, underline or capitals for emphasis,
left-aligned, lines of 60-70 characters); WCAG 2.x SC 1.4.3 (contrast 4.5:1), 1.4.8 (at most
80 characters a line, no justification) and 1.4.12 (line height 1.5); W3C "Making content
usable for people with cognitive and learning disabilities" (one idea per item, short
chunks, clear position in the sequence, a summary).

The dyslexia profile's size rule: the BDA guide asks for 12-14 pt in documents, read at arm's
length; a slide is read from further away, or shrunk into a window beside other things, so
its body text (every bullet and table cell) is at least 24 pt on our slide, 1.7 times the
guide's upper figure and the usual floor for presentations, with the guide's 1.5 line
spacing, lines of at most 50 characters and three points a slide. Small print (sources, the
slide marker, captions) keeps the guide's own 14 pt floor. The fit loop never shrinks body
text below 24 pt: a slide that does not fit is split instead.

Page: Typst's `presentation-16-9` slide, 297 mm x 167.06 mm, as wide as an A4 page is long.
Sizes given for A4 scale with the page's longer side, so "14 pt on A4" is 14 pt here and
would be 14 x 720 / 842 = 12 pt on a 10-inch slide (`minimum_body_pt`)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import TypeVar

import structlog

from core.lessons.models import Deck, Profile, Slide, SlideBounds, SlideKind
from core.text import split_sentences

log = structlog.get_logger(__name__)

T = TypeVar("T")

SLIDE_WIDTH_PT = 841.89  # 297 mm
SLIDE_HEIGHT_PT = 473.56  # 167.0625 mm
A4_LONG_SIDE_PT = 841.89

ADHD_MAX_BULLETS = 4
ADHD_MAX_WORDS_PER_BULLET = 25
RECAP_TITLE = "Recap"


def minimum_body_pt(page_width: float, page_height: float, a4_pt: float = 14.0) -> float:
    """`a4_pt` on an A4 page, scaled by the longer side to a page of another size."""
    return a4_pt * max(page_width, page_height) / A4_LONG_SIDE_PT


@dataclass(frozen=True, slots=True)
class ProfileStyle:
    """Layout numbers for one profile. The renderer reads them; tests override one field to
    produce a PDF that breaks one rule on purpose."""

    font: str = "DejaVu Sans"
    mono_font: str = "DejaVu Sans Mono"
    body_pt: float = 20.0
    title_pt: float = 28.0
    small_pt: float = 14.0  # marker, citations, source of a formula that failed
    min_body_pt: float = 12.0  # the fit loop never shrinks text below this
    leading_em: float = 0.65  # Typst's gap between lines (cap height to baseline)
    line_chars: int = 64  # text is wrapped to at most this many characters a line
    text_color: str = "#1a1a1a"
    muted_color: str = "#3d3d3d"  # citations and marker, still well above 4.5:1
    background: str = "#ffffff"
    table_header: str = "#dde6f0"  # a table's row of column names (text on it above 12:1)
    table_band: str = "#f1f4f8"  # every other row, so a row reads across
    justify: bool = False
    italic_titles: bool = False  # only ever True in tests that break the dyslexia rules
    underline_titles: bool = False
    upper_titles: bool = False
    centered: bool = False
    slide_marker: bool = False  # "Slide k of N" on every page
    figures: bool = False  # a figure with alt text on every content slide
    figure_width_frac: float = 0.38


@dataclass(frozen=True, slots=True)
class ProfileRules:
    """The content rules of a profile, applied by `adapt_deck` and checked on the PDF."""

    max_line_chars: int
    max_bullets: int | None = None
    slide_bullets: int = 4  # points the extractive deck puts on one slide
    one_idea_per_bullet: bool = False
    needs_recap: bool = False
    needs_marker: bool = False
    needs_figures: bool = False
    min_contrast: float = 4.5
    # dyslexia
    sans_serif: bool = False
    min_body_a4_pt: float | None = None  # every glyph, small print included
    min_body_slide_pt: float | None = None  # bullets and table cells, on our slide's size
    min_line_spacing: float | None = None
    plain_text: bool = False  # no italics, underline or all-caps
    left_aligned: bool = False
    tinted_background: bool = False


RULES: dict[Profile, ProfileRules] = {
    Profile.STANDARD: ProfileRules(max_line_chars=80),
    Profile.DYSLEXIA: ProfileRules(
        max_line_chars=70,
        sans_serif=True,
        min_body_a4_pt=14.0,
        min_body_slide_pt=24.0,
        slide_bullets=3,
        min_line_spacing=1.5,
        plain_text=True,
        left_aligned=True,
        tinted_background=True,
    ),
    Profile.ADHD: ProfileRules(
        max_line_chars=80,
        max_bullets=ADHD_MAX_BULLETS,
        one_idea_per_bullet=True,
        needs_recap=True,
        needs_marker=True,
    ),
    Profile.VISUAL: ProfileRules(max_line_chars=80, needs_figures=True),
}

STYLES: dict[Profile, ProfileStyle] = {
    Profile.STANDARD: ProfileStyle(line_chars=64),
    # Cream (#FDF6E3); text #1f2933 on it is 13.9:1. Leading 0.85 em gives a baseline pitch
    # of about 1.58 times the size with DejaVu Sans (cap height 0.73 em). Body 24 pt and
    # never smaller (see the module's docstring).
    Profile.DYSLEXIA: ProfileStyle(
        body_pt=24.0,
        title_pt=30.0,
        small_pt=16.0,
        min_body_pt=24.0,
        leading_em=0.85,
        line_chars=50,
        text_color="#1f2933",
        muted_color="#33404d",
        background="#fdf6e3",
        table_header="#ece3c8",
        table_band="#f6eed6",
    ),
    Profile.ADHD: ProfileStyle(line_chars=60, slide_marker=True),
    Profile.VISUAL: ProfileStyle(body_pt=18.0, line_chars=40, figures=True),
}


def style_for(profile: Profile) -> ProfileStyle:
    return STYLES[profile]


def rules_for(profile: Profile) -> ProfileRules:
    return RULES[profile]


# The spaces before a semicolon are stripped from the clause, not matched: "\s*;" re-scanned
# a run of spaces from each of them.
_CLAUSE_SPLIT = re.compile(r";\s+")


def split_ideas(item: str) -> list[str]:
    """One item cut into single ideas: sentences, then clauses joined by semicolons, then
    long runs of words at a comma. Formulas in `$...$` are never cut."""
    pieces: list[str] = []
    for sentence in split_sentences(item):
        for clause in _CLAUSE_SPLIT.split(sentence):
            clause = clause.strip()
            if clause:
                pieces.extend(_split_long(clause))
    return pieces


def _split_long(text: str) -> list[str]:
    words = text.split()
    if len(words) <= ADHD_MAX_WORDS_PER_BULLET:
        return [text]
    spans = [m.span() for m in re.finditer(r"\$[^$]*\$", text)]

    def in_math(at: int) -> bool:
        return any(a <= at < b for a, b in spans)

    # Cut at the comma nearest the middle, else at the word limit; never inside a formula.
    middle = len(text) // 2
    commas = [m.start() for m in re.finditer(r",\s", text) if not in_math(m.start())]
    if commas:
        cut = min(commas, key=lambda c: abs(c - middle))
        return [*_split_long(text[: cut + 1].strip()), *_split_long(text[cut + 1 :].strip())]
    cut = len(" ".join(words[:ADHD_MAX_WORDS_PER_BULLET]))
    if in_math(cut):
        return [text]
    return [text[:cut].strip(), *_split_long(text[cut:].strip())]


def is_one_idea(item: str) -> bool:
    """The check's view of one idea: one sentence, no semicolon, a bounded word count."""
    return split_ideas(item) == [item.strip()]


def adapt_deck(deck: Deck, bounds: SlideBounds | None = None) -> Deck:
    """`deck` made to follow its profile's content rules: for ADHD each item cut into single
    ideas, slides with more than four split into parts, and a recap at the end. With
    `bounds`, a deck that grew past the maximum loses content slides from its end (logged;
    the recap stays)."""
    rules = rules_for(deck.profile)
    slides = [s for s in deck.slides if s.kind is SlideKind.CONTENT]
    recaps = [s for s in deck.slides if s.kind is SlideKind.RECAP]
    if rules.one_idea_per_bullet:
        slides = [
            s.model_copy(update={"content": [i for c in s.content for i in split_ideas(c)]})
            for s in slides
        ]
    if rules.max_bullets is not None:
        slides = [part for s in slides for part in _split_slide(s, rules.max_bullets)]
    if rules.needs_recap and not recaps:
        recaps = [recap_slide(slides, rules.max_bullets, deck.topic)]
    if rules.one_idea_per_bullet:
        recaps = [
            r.model_copy(update={"content": [i for c in r.content for i in split_ideas(c)]})
            for r in recaps
        ]
    if rules.max_bullets is not None:
        recaps = [r.model_copy(update={"content": r.content[: rules.max_bullets]}) for r in recaps]
    if bounds is not None and len(slides) + len(recaps) > bounds.maximum:
        keep = max(bounds.maximum - len(recaps), 1)
        log.info(
            "lesson trimmed to its slide bound",
            slides=len(slides) + len(recaps),
            maximum=bounds.maximum,
            dropped=len(slides) - keep,
        )
        slides = slides[:keep]
        recaps = recaps[: bounds.maximum - keep]
        if rules.needs_recap and recaps:
            recaps = [recap_slide(slides, rules.max_bullets, deck.topic)]
    return deck.model_copy(update={"slides": [*slides, *recaps]})


def _split_slide(slide: Slide, max_bullets: int) -> list[Slide]:
    items = slide.content
    if len(items) <= max_bullets:
        return [slide]
    chunks = [items[i : i + max_bullets] for i in range(0, len(items), max_bullets)]
    parts = []
    for n, chunk in enumerate(chunks, 1):
        parts.append(
            slide.model_copy(
                update={
                    "title": _part_title(slide.title, n, len(chunks)),
                    "content": chunk,
                    # Formulas and the widget go with the first part, where they are introduced.
                    "math": slide.math if n == 1 else [],
                    "widget_html": slide.widget_html if n == 1 else None,
                }
            )
        )
    return parts


def _part_title(title: str, n: int, total: int) -> str:
    suffix = f" ({n}/{total})"
    return title[: 120 - len(suffix)] + suffix


def recap_slide(slides: list[Slide], max_bullets: int | None = None, topic: str = "") -> Slide:
    """A closing summary that states the lesson's key points: from each content slide the
    point that says most about `topic` (a definition or a formula before an aside), the best
    `max_bullets` of them in the order of the lesson, cited like the slides they come from.
    Never the slide titles: a title names a point, it does not state it."""
    limit = max_bullets or RECAP_POINTS
    terms = _terms(topic)
    candidates: list[tuple[float, int, str, Slide]] = []
    seen: set[str] = set()
    for position, slide in enumerate(slides):
        if slide.kind is not SlideKind.CONTENT:
            continue
        scored = [
            (_key_point_score(item, terms), -len(item), item)
            for item in slide.content
            if item.lower() not in seen
        ]
        if scored:
            score, _, item = max(scored)
            seen.add(item.lower())
            candidates.append((score, position, item, slide))
    best = sorted(candidates, key=lambda c: (-c[0], c[1]))[:limit]
    best.sort(key=lambda c: c[1])
    items = [item for _, _, item, _ in best]
    formulas: list[str] = []
    if not items:  # slides of formulas only: the first formulas are the points
        formulas = _unique(f for s in slides for f in s.math)[:2]
    chosen = [slide for *_, slide in best] or slides
    citations = _unique(c for s in chosen for c in s.citations)[:6]
    return Slide(
        title=RECAP_TITLE,
        content=items,
        math=formulas,
        citations=citations,
        kind=SlideKind.RECAP,
        accessibility_notes="A summary of the lesson's main points.",
    )


RECAP_POINTS = 5
_DEFINING = re.compile(
    r"\b(?:is|are|means|refers to|is called|are called|defined|gives|measures|computes)\b", re.I
)
_ASIDE = re.compile(r"^(?:however|but|also|for example|e\.g\.|note|aside|in practice)\b", re.I)
# An exercise's instruction ("Compute the variance …") asks; it states nothing.
_ASKS = re.compile(
    r"^(?:compute|show|prove|explain|derive|find|implement|try|what|why|how|can)\b", re.I
)
_TERM = re.compile(r"[^\W_]+")


def _terms(text: str) -> set[str]:
    return {w[:-1] if len(w) > 4 and w.endswith("s") else w for w in _TERM.findall(text.lower())}


def _key_point_score(item: str, terms: set[str]) -> float:
    """How well one bullet states a key point of the topic."""
    words = _terms(item)
    score = 2.0 * len(words & terms) if terms else 0.0
    score += 1.5 if _DEFINING.search(item) else 0.0
    score += 1.0 if "$" in item else 0.0
    score -= 1.0 if _ASIDE.match(item) else 0.0
    score -= 1.0 if len(item) > 180 else 0.0
    # A label ("Binary Softmax classifier.") names a point without stating it.
    score -= 3.0 if len(item.split()) < 6 and "$" not in item else 0.0
    # A lead-in ("… gives us the softmax function:") states its point in the formula after it.
    score -= 3.0 if item.rstrip().endswith(":") else 0.0
    score -= 3.0 if _ASKS.match(item) or item.rstrip().endswith("?") else 0.0
    return score


def _unique(items: Iterable[T]) -> list[T]:
    return list(dict.fromkeys(items))


def with_style(profile: Profile, **changes: object) -> ProfileStyle:
    """The profile's style with some fields changed (tests that break a rule on purpose)."""
    return replace(style_for(profile), **changes)  # type: ignore[arg-type]
