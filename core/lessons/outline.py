"""An extractive study deck, with no language model: slides assembled from the passages
retrieval found on the topic.

Passages are grouped by document section (or page when a chunk has no section); each group
is a slide titled by its section, its bullets are the group's sentences that bear most on
the topic, in their original order, one sentence each; display formulas (`$$...$$`,
`\\[...\\]`) become the slide's formulas and inline ones (`\\(...\\)`, `$...$`) stay in their
sentence as `$...$`; every slide cites the chunks it quotes. The count respects the bounds
asked for: the best-ranked groups are kept when there are too many, long slides are split
when there are too few, and a deck the material cannot fill raises `NotEnoughMaterialError`.
The profile's rules (ADHD bullets, recap) are applied by `profiles.adapt_deck`."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import PurePath

from core.index.chunk_index import SearchHit
from core.lessons.markup import (
    NotSlideText,
    looks_like_code,
    slide_text,
    slide_title,
    without_images,
)
from core.lessons.models import (
    MAX_CELL_CHARS,
    MAX_TABLE_COLUMNS,
    MAX_TABLE_ROWS,
    Citation,
    Deck,
    Profile,
    Slide,
    SlideBounds,
    SlideKind,
    SlideTable,
)
from core.lessons.profiles import (
    ADHD_MAX_BULLETS,
    adapt_deck,
    is_one_idea,
    recap_slide,
    rules_for,
)
from core.plain_math import mark_plain_math
from core.replies import cited_section, section_levels
from core.retrieval import GENERAL_KIND
from core.text import looks_like_heading, math_spans, names_a_file, split_sentences

MAX_BULLET_CHARS = 240
MIN_BULLET_WORDS = 3
MAX_FORMULAS_PER_SLIDE = 2
TABLE_ROOM = 2  # a table on a slide takes the room of this many bullets

# Each formula's marks, longest first: `\\(` is how Markdown escapes `\(`.
_DELIMITERS = (
    ("$$", "$$"), ("\\\\[", "\\\\]"), ("\\\\(", "\\\\)"), ("\\[", "\\]"), ("\\(", "\\)"),
    ("$", "$"),
)  # fmt: skip
_RULE_CELL = re.compile(r":?-*:?")
_INLINE_DOLLAR = re.compile(r"(?<![\\$])\$([^$\n]+?)(?<!\\)\$")
# A table as chunks hold it: lines of cells between pipes.
_TABLE_BLOCK = re.compile(r"(?m)(?:^\|.*\|[ \t]*(?:\n|$))+")
_LIST_MARK = re.compile(r"^\s*(?:[-*•–·]|\d+[.)])\s+")
_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_STOPWORDS = frozenset(
    "a an and are as at be by for from how in is it of on or the to what when which with".split()  # noqa: SIM905
)


class NotEnoughMaterialError(ValueError):
    """The material found on the topic cannot fill the smallest deck asked for."""


@dataclass
class _Group:
    file_name: str
    key: str  # section, or "page N"
    title: str
    best_score: float
    order: tuple[int, int]  # page, chunk index: where the group starts in its document
    syllabus: bool = False
    sentences: list[tuple[str, Citation]] = field(default_factory=list)
    formulas: list[tuple[str, Citation]] = field(default_factory=list)
    tables: list[tuple[SlideTable, Citation]] = field(default_factory=list)


def build_extractive_deck(
    topic: str,
    hits: Sequence[SearchHit],
    *,
    profile: Profile = Profile.STANDARD,
    bounds: SlideBounds | None = None,
) -> Deck:
    """A deck on `topic` from `hits` (best first), for `profile`, within `bounds`."""
    bounds = bounds or SlideBounds()
    rules = rules_for(profile)
    groups = _groups(hits, one_idea=rules.one_idea_per_bullet)
    terms = _terms(topic)
    per_slide = min(rules.slide_bullets, rules.max_bullets or rules.slide_bullets)
    recap_slots = 1 if (rules.needs_recap or bounds.maximum > 1) else 0
    if rules.needs_recap and bounds.maximum < 2:
        raise NotEnoughMaterialError("this profile ends on a recap: ask for at least 2 slides")
    content_max = bounds.maximum - recap_slots
    # A syllabus's sections (where the slides are, what the textbook is) fill a deck only
    # when the teaching material alone cannot.
    teaching = [g for g in groups if not g.syllabus]
    if len(teaching) >= bounds.minimum - recap_slots:
        groups = teaching
    # The best-ranked groups, then in the order of the material.
    chosen = sorted(groups, key=lambda g: -g.best_score)[:content_max]
    chosen.sort(key=lambda g: (g.file_name, g.order))
    _distinct_titles(chosen)
    pairs = [(g, s) for g in chosen if (s := _slide(g, terms, per_slide)) is not None]
    if not pairs:
        raise NotEnoughMaterialError(f"the material has nothing usable on {topic!r}")
    # Too few: split the slides with the most to say (a group with more sentences than
    # fit is cut into parts), then add the recap.
    needed_content = bounds.minimum - recap_slots
    slides = _grow(pairs, terms, per_slide, needed_content)
    total = len(slides) + recap_slots
    if total < bounds.minimum:
        raise NotEnoughMaterialError(
            f"the material on {topic!r} fills {total} slides, {bounds.minimum} were asked for"
        )
    if recap_slots:
        slides.append(recap_slide(slides, rules.max_bullets or ADHD_MAX_BULLETS, topic))
    deck = Deck(topic=topic, profile=profile, slides=slides)
    deck = adapt_deck(deck, bounds)
    problems = bounds.problems(deck)
    if problems:
        raise NotEnoughMaterialError(problems[0])
    return deck


def _groups(hits: Sequence[SearchHit], *, one_idea: bool = False) -> list[_Group]:
    """The hits grouped by section; with `one_idea`, only sentences that are one idea each
    (a longer one would be cut into fragments by the profile's rule)."""
    groups: dict[tuple[str, str], _Group] = {}
    for hit in hits:
        chunk = hit.chunk
        key = chunk.section.strip() or (f"page {chunk.page}" if chunk.page else chunk.file_name)
        group = groups.get((chunk.file_name, key))
        if group is None:
            # The innermost heading names the slide; the path is in its sources.
            levels = section_levels(chunk.section)
            title = (
                slide_title(levels[-1])
                if levels
                else _document_title(chunk.title, chunk.file_name, chunk.page)
            )
            group = _Group(
                chunk.file_name,
                key,
                title,
                hit.score,
                (chunk.page or 0, chunk.chunk_index),
                syllabus=chunk.kind == GENERAL_KIND,
            )
            groups[(chunk.file_name, key)] = group
        group.best_score = max(group.best_score, hit.score)
        group.order = min(group.order, (chunk.page or 0, chunk.chunk_index))
        citation = Citation(
            file=chunk.file_name, page=chunk.page, section=chunk.section.strip(), chunk_id=chunk.id
        )
        passage = split_passage(chunk.text)
        sentences = [s for s in passage.sentences if not one_idea or is_one_idea(s)]
        group.sentences += [(s, citation) for s in sentences]
        known = {f for f, _ in group.formulas}
        group.formulas += [(f, citation) for f in passage.formulas if f not in known]
        group.tables += [(t, citation) for t in passage.tables]
    return list(groups.values())


def _distinct_titles(groups: list[_Group]) -> None:
    """Two slides named alike ("Summary" of two documents) take their section's outer
    heading, then their document's name."""
    for group in groups:
        twins = [g for g in groups if g.title == group.title]
        if len(twins) < 2:
            continue
        for twin in twins:
            outer = cited_section(twin.key)
            twin.title = outer if outer != twin.title else f"{twin.title} ({twin.file_name})"


def _document_title(title: str, file_name: str, page: int | None) -> str:
    """A slide from a document's text before its first section: named by the document's
    stored title (its heading or front matter title, which the section leaves out), else by
    its file name."""
    name = slide_title(title) if title.strip() not in ("", PurePath(file_name).stem) else ""
    if not name:
        name = re.sub(r"\.[A-Za-z0-9]+$", "", file_name).replace("_", " ").replace("-", " ")
        name = " ".join(name.split()) or file_name
    return f"{name}, page {page}" if page else name


@dataclass(frozen=True, slots=True)
class Passage:
    """What a slide can take from a passage: its sentences (inline math as `$...$`, markup
    and list marks removed), its display formulas (LaTeX without delimiters) and its tables,
    in reading order each."""

    sentences: list[str]
    formulas: list[str]
    tables: list[SlideTable]


def split_passage(text: str) -> Passage:
    """`text` read for slides: whole sentences only (one longer than a bullet may be is left
    out, never cut), code blocks and bare links left out, tables kept as tables (a longer
    one in parts of `MAX_TABLE_ROWS` rows, its column names repeated)."""
    passage = Passage([], [], [])
    end = 0
    for table in _TABLE_BLOCK.finditer(text):
        _split_prose(text[end : table.start()], passage)
        passage.tables.extend(_tables(table.group()))
        end = table.end()
    _split_prose(text[end:], passage)
    return passage


def _tables(block: str) -> list[SlideTable]:
    """A block of `| a | b |` lines as tables: the first line names the columns (a line of
    empty cells: none), a Markdown rule line is skipped."""
    lines = [line.strip() for line in block.splitlines() if line.strip()]
    rows = [[_cell(c) for c in line.strip("|").split("|")] for line in lines]
    rows = [row for row in rows if not all(_RULE_CELL.fullmatch(c) for c in row)]
    if not rows:
        return []
    header, body = rows[0], rows[1:]
    if not any(header):
        header = []
    if not body:  # one line: a row, not names of columns
        header, body = [], [rows[0]]
    width = min(max(len(header), *(len(r) for r in body)), MAX_TABLE_COLUMNS)
    header = (header + [""] * width)[:width] if header else []
    body = [(row + [""] * width)[:width] for row in body]
    if any(len(cell) > MAX_CELL_CHARS for row in [header, *body] for cell in row):
        return []
    return [
        SlideTable(header=header, rows=body[i : i + MAX_TABLE_ROWS])
        for i in range(0, len(body), MAX_TABLE_ROWS)
    ]


def _cell(text: str) -> str:
    try:
        return slide_text(mark_plain_math(_as_inline_math(text.strip())))
    except NotSlideText:
        return ""


def _as_inline_math(text: str) -> str:
    """Every inline formula (`\\(…\\)`, `\\\\(…\\\\)` as Markdown escapes it, `$…$`) as `$…$`."""
    out, at = [], 0
    for start, end in math_spans(text):
        out.append(text[at:start])
        out.append(f"${_strip_marks(text[start:end])}$")
        at = end
    out.append(text[at:])
    return "".join(out)


def _strip_marks(span: str) -> str:
    for opener, closer in _DELIMITERS:
        fits = len(span) >= len(opener) + len(closer)
        if fits and span.startswith(opener) and span.endswith(closer):
            return " ".join(span[len(opener) : len(span) - len(closer)].split())
    return span


def _is_display(span: str) -> bool:
    return span.startswith(("$$", "\\[", "\\\\["))


def _split_prose(text: str, passage: Passage) -> None:
    text = without_images(text)
    blocks = [b for b in re.split(r"\n\s*\n", text) if b.strip() and not looks_like_code(b)]
    text = "\n\n".join(blocks)
    # Display formulas are the slide's formulas; each ends the sentence before it (its
    # lead-in often ends with a colon). Inline ones stay in their sentence as `$...$`.
    pieces, at = [], 0
    for start, end in math_spans(text):
        span = text[start:end]
        pieces.append(text[at:start])
        if _is_display(span):
            formula = _strip_marks(span)
            if formula and formula not in passage.formulas:
                passage.formulas.append(formula)
            pieces.append("\n\n")
        else:
            pieces.append(f"${_strip_marks(span)}$")
        at = end
    pieces.append(text[at:])
    text = "".join(pieces)
    # Plain-text formulas ("x^2", "lim_{h->0}") as LaTeX too, so they typeset and stay whole.
    text = mark_plain_math(text)
    # Protect inline math from the sentence splitter ("$x = 1.5$ is ..." has a full stop).
    held: list[str] = []

    def hold(match: re.Match[str]) -> str:
        held.append(match.group(0))
        return f"\x00{len(held) - 1}\x00"

    protected = _INLINE_DOLLAR.sub(hold, text)
    for line in re.split(r"\n\s*\n|\n(?=\s*(?:[-*•–·]|\d+[.)])\s)", protected):
        line = _LIST_MARK.sub("", " ".join(line.split()))
        for sentence in split_sentences(line):
            sentence = re.sub(r"\x00(\d+)\x00", lambda m: held[int(m.group(1))], sentence)
            sentence = _LIST_MARK.sub("", sentence).strip()
            try:
                sentence = slide_text(sentence)
            except NotSlideText:
                continue
            if _usable(sentence):
                passage.sentences.append(sentence)


def _usable(sentence: str) -> bool:
    """A whole sentence a bullet can hold: long enough to say something, short enough for a
    slide (a longer one is left out, never cut), no heading, no file name."""
    words = _WORD.findall(re.sub(r"\$[^$]*\$", " x ", sentence))
    return (
        len(words) >= MIN_BULLET_WORDS
        and len(sentence) <= MAX_BULLET_CHARS
        and not looks_like_heading(sentence)
        and not names_a_file(sentence)
    )


def _terms(text: str) -> set[str]:
    return {_stem(w) for w in _WORD.findall(text.lower()) if w not in _STOPWORDS}


def _stem(word: str) -> str:
    for suffix in ("ives", "ing", "ies", "es", "s", "ed"):
        if len(word) > len(suffix) + 3 and word.endswith(suffix):
            return word[: -len(suffix)]
    return word


def _relevance(sentence: str, terms: set[str]) -> float:
    words = _terms(sentence)
    return len(words & terms) + (0.5 if "$" in sentence else 0.0)


def _ranked(sentences: list[tuple[str, Citation]], terms: set[str]) -> list[int]:
    """Indices of distinct sentences, those that bear most on the topic first (ties go to
    the earlier one: material usually defines before it elaborates)."""
    seen: set[str] = set()
    distinct = []
    for i, (text, _) in enumerate(sentences):
        if text.lower() not in seen:
            seen.add(text.lower())
            distinct.append(i)
    return sorted(distinct, key=lambda i: (-_relevance(sentences[i][0], terms), i))


def _slide(group: _Group, terms: set[str], per_slide: int, part: int = 0) -> Slide | None:
    """Part `part` of a group: its next `per_slide` best sentences, in original order, and
    its table of that part (a table takes the room of two sentences)."""
    table = group.tables[part] if part < len(group.tables) else None

    def room(n: int) -> int:
        return max(per_slide - TABLE_ROOM, 1) if n < len(group.tables) else per_slide

    ranked = _ranked(group.sentences, terms)
    start = sum(room(n) for n in range(part))
    picked = sorted(ranked[start : start + room(part)])
    formulas = group.formulas[:MAX_FORMULAS_PER_SLIDE] if part == 0 else []
    if not picked and not formulas and table is None:
        return None
    chosen = [group.sentences[i] for i in picked]
    cited = [c for _, c in chosen] + [c for _, c in formulas] + ([table[1]] if table else [])
    citations = list(dict.fromkeys(cited))
    title = group.title if part == 0 else f"{group.title} (continued)"
    return Slide(
        title=title[:120],
        content=[text for text, _ in chosen],
        math=[f for f, _ in formulas],
        tables=[table[0]] if table else [],
        citations=citations,
        kind=SlideKind.CONTENT,
        accessibility_notes="Sentences quoted from the course material; formulas typeset "
        "from their LaTeX source.",
    )


def _grow(
    pairs: list[tuple[_Group, Slide]], terms: set[str], per_slide: int, needed: int
) -> list[Slide]:
    """Continuation slides for the groups with sentences left over, until `needed`; each
    goes right after its group's previous slide."""
    slides = [slide for _, slide in pairs]
    groups = [group for group, _ in pairs]
    owner = {id(slide): group for group, slide in pairs}
    part = 1
    while len(slides) < needed:
        added = False
        for group in sorted(groups, key=lambda g: -len(g.sentences)):
            if len(slides) >= needed:
                break
            extra = _slide(group, terms, per_slide, part)
            if extra is None or not (extra.content or extra.tables):
                continue
            last = max(i for i, s in enumerate(slides) if owner.get(id(s)) is group)
            slides.insert(last + 1, extra)
            owner[id(extra)] = group
            added = True
        if not added:
            break
        part += 1
    return slides
