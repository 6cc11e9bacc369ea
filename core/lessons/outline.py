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

from core.answering.quote_units import UnitKind, passage_units
from core.index.chunk_index import SearchHit
from core.lessons.models import Citation, Deck, Profile, Slide, SlideBounds, SlideKind
from core.lessons.profiles import ADHD_MAX_BULLETS, adapt_deck, recap_slide, rules_for
from core.plain_math import mark_plain_math
from core.retrieval import GENERAL_KIND
from core.text import looks_like_heading, names_a_file, split_sentences

MAX_BULLET_CHARS = 220
MIN_BULLET_WORDS = 3
BULLETS_PER_SLIDE = 4  # room for a formula and the sources on a 16:9 page at 20 pt
MAX_FORMULAS_PER_SLIDE = 2

_DISPLAY_MATH = re.compile(r"\$\$(.+?)\$\$|\\\[(.+?)\\\]", re.S)
_INLINE_PAREN = re.compile(r"\\\((.+?)\\\)", re.S)
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
    groups = _groups(hits)
    terms = _terms(topic)
    per_slide = min(BULLETS_PER_SLIDE, rules.max_bullets or BULLETS_PER_SLIDE)
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
        slides.append(recap_slide(slides, rules.max_bullets or ADHD_MAX_BULLETS))
    deck = Deck(topic=topic, profile=profile, slides=slides)
    deck = adapt_deck(deck, bounds)
    problems = bounds.problems(deck)
    if problems:
        raise NotEnoughMaterialError(problems[0])
    return deck


def _groups(hits: Sequence[SearchHit]) -> list[_Group]:
    groups: dict[tuple[str, str], _Group] = {}
    for hit in hits:
        chunk = hit.chunk
        key = chunk.section.strip() or (f"page {chunk.page}" if chunk.page else chunk.file_name)
        group = groups.get((chunk.file_name, key))
        if group is None:
            title = chunk.section.strip() or _title_from_file(chunk.file_name, chunk.page)
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
        sentences, formulas = split_passage(chunk.text)
        group.sentences += [(s, citation) for s in sentences]
        group.formulas += [(f, citation) for f in formulas]
    return list(groups.values())


def _title_from_file(file_name: str, page: int | None) -> str:
    stem = re.sub(r"\.[A-Za-z0-9]+$", "", file_name).replace("_", " ").replace("-", " ")
    stem = " ".join(stem.split()) or file_name
    return f"{stem}, page {page}" if page else stem


def split_passage(text: str) -> tuple[list[str], list[str]]:
    """A passage's sentences (inline math as `$...$`, list marks removed), each row of a
    table with its column names ("Exam: Midterm 2; Date: Fri Apr 7"), and its display
    formulas (LaTeX without delimiters)."""
    sentences: list[str] = []
    formulas: list[str] = []
    end = 0
    for table in _TABLE_BLOCK.finditer(text):
        _split_prose(text[end : table.start()], sentences, formulas)
        rows = [u.text for u in passage_units(0, table.group()) if u.kind is UnitKind.ROW]
        sentences += [_shorten(row) for row in rows if _usable(row)]
        end = table.end()
    _split_prose(text[end:], sentences, formulas)
    return sentences, formulas


def _split_prose(text: str, sentences: list[str], formulas: list[str]) -> None:
    formulas += [(m.group(1) or m.group(2)).strip() for m in _DISPLAY_MATH.finditer(text)]
    # A display formula ends the sentence before it (its lead-in often ends with a colon).
    text = _DISPLAY_MATH.sub("\n\n", text)
    text = _INLINE_PAREN.sub(lambda m: f"${m.group(1).strip()}$", text)
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
            if _usable(sentence):
                sentences.append(_shorten(sentence))


def _usable(sentence: str) -> bool:
    words = _WORD.findall(re.sub(r"\$[^$]*\$", " x ", sentence))
    return (
        len(words) >= MIN_BULLET_WORDS
        and not looks_like_heading(sentence)
        and not names_a_file(sentence)
    )


def _shorten(sentence: str) -> str:
    if len(sentence) <= MAX_BULLET_CHARS:
        return sentence
    cut = sentence[:MAX_BULLET_CHARS]
    # Never cut inside inline math: back up to before an unclosed `$`.
    if cut.count("$") % 2:
        cut = cut[: cut.rfind("$")]
    cut = cut[: cut.rfind(" ")] if " " in cut else cut
    return cut.rstrip(",;:") + "…"


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
    """Part `part` of a group: its next `per_slide` best sentences, in original order."""
    ranked = _ranked(group.sentences, terms)
    picked = sorted(ranked[part * per_slide : (part + 1) * per_slide])
    formulas = group.formulas[:MAX_FORMULAS_PER_SLIDE] if part == 0 else []
    if not picked and not formulas:
        return None
    chosen = [group.sentences[i] for i in picked]
    citations = list(dict.fromkeys([c for _, c in chosen] + [c for _, c in formulas]))
    title = group.title if part == 0 else f"{group.title} (continued)"
    return Slide(
        title=title[:120],
        content=[text for text, _ in chosen],
        math=[f for f, _ in formulas],
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
            if extra is None or not extra.content:
                continue
            last = max(i for i, s in enumerate(slides) if owner.get(id(s)) is group)
            slides.insert(last + 1, extra)
            owner[id(extra)] = group
            added = True
        if not added:
            break
        part += 1
    return slides
