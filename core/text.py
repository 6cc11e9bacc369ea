"""Text rules used everywhere: sentence splitting (one rule for chunking, quoting, study
facts and lesson slides), where a formula is (never split inside), what a heading looks like
(quoting and lesson slides), what names a file, how a user-supplied name is shown on one
printable line, and how names and codes compare."""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_right
from collections.abc import Sequence

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=\S)")
# A full stop after an abbreviation or an initial ends no sentence ("Dec. 18th",
# "Dr. Moreno", "R.S. Baker"); "Hall A." does.
_ABBREVIATION = re.compile(
    r"(\b[A-Z]\.\s?[A-Z]|\b(Dr|Prof|Mr|Mrs|Ms|St|No|vs|e\.g|i\.e|approx|Ch|Sec|Fig|pp?|Vol|"
    r"Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept?|Oct|Nov|Dec|Mon|Tue|Tues|Wed|Thu|Thurs|Fri|Sat|Sun))\.$"
)


# Longer than any abbreviation the rule knows, with the character before it.
_TAIL = 12


def split_sentences(text: str) -> list[str]:
    """Split after `.`, `!` or `?` followed by white space, but not after an abbreviation or
    an initial, nor before a lower-case word ("e.g. the mean"), nor inside a formula
    (`math_spans`); line breaks inside a sentence are kept, a joined false end becomes one
    space."""
    sentences: list[list[str]] = []
    for part in split_outside_math(_SENTENCE_END, text):
        if not part:
            continue
        # The tail is enough to see an abbreviation, and keeps a long run of false ends
        # linear (a block of one huge "sentence" is joined once, at the end).
        if sentences and (_ABBREVIATION.search(sentences[-1][-1][-_TAIL:]) or part[:1].islower()):
            sentences[-1].append(part)
        else:
            sentences.append([part])
    return [" ".join(parts) for parts in sentences]


# Math as Markdown and LaTeX write it: display `$$…$$` and `\[…\]`, inline `$…$` and `\(…\)`
# (`\\(…\\)` and `\\[…\\]` where Markdown escapes the backslash). `\$` is a dollar sign.
_MATH_MARK = re.compile(r"\\\\[()\[\]]|\\[()\[\]$]|\$\$|\$")
_MATH_CLOSES = {"$$": "$$", "$": "$", "\\(": "\\)", "\\[": "\\]"}
# An inline `$` pair spanning more is two dollar signs ("$5 and $10"), not a formula.
_MAX_INLINE_MATH = 400


def math_spans(text: str) -> list[tuple[int, int]]:
    """The (start, end) of each formula in `text`, in order: an opening mark and the next
    closing one of its kind; a mark with no closer is text. An inline `$` closes at the next
    dollar mark, and, as in Pandoc, neither touches a space inside ("$5 and $10" is money).
    One pass over the marks, and a binary search for each opener's closer."""
    found: list[tuple[int, int, str]] = []
    for match in _MATH_MARK.finditer(text):
        mark = match.group().replace("\\\\", "\\")
        if mark != "\\$":  # an escaped dollar sign is text
            found.append((match.start(), match.end(), mark))
    starts: dict[str, list[int]] = {}
    for index, (_, _, mark) in enumerate(found):
        starts.setdefault(mark, []).append(index)
    spans: list[tuple[int, int]] = []
    end = 0
    for index, (start, _, mark) in enumerate(found):
        if start < end or mark not in _MATH_CLOSES:
            continue
        if mark == "$":
            closer = _inline_dollar_closer(text, found, index)
        else:
            # The next closer of its kind: marks are in order, so a search in its list.
            kind = starts.get(_MATH_CLOSES[mark], [])
            n = bisect_right(kind, index)
            closer = kind[n] if n < len(kind) else None
        if closer is not None:
            spans.append((start, found[closer][1]))
            end = found[closer][1]
    return spans


def _inline_dollar_closer(text: str, found: list[tuple[int, int, str]], index: int) -> int | None:
    start, after, _ = found[index]
    following = next((n for n in range(index + 1, len(found)) if found[n][2][0] == "$"), None)
    if following is None or after >= len(text) or text[after].isspace():
        return None
    close_start, close_end, close_mark = found[following]
    if close_mark != "$" or close_start - start > _MAX_INLINE_MATH or close_start == after:
        return None
    if text[close_start - 1].isspace() or text[close_end : close_end + 1].isdigit():
        return None
    return following


def split_outside_math(
    pattern: re.Pattern[str], text: str, spans: Sequence[tuple[int, int]] | None = None
) -> list[str]:
    """`pattern.split(text)` at the matches that fall outside every formula: `spans` in
    order (`math_spans(text)` when None)."""
    spans = math_spans(text) if spans is None else spans
    parts: list[str] = []
    last = 0
    i = 0
    for match in pattern.finditer(text):
        while i < len(spans) and spans[i][1] <= match.start():
            i += 1
        if i < len(spans) and spans[i][0] < match.end():
            continue  # inside (or across the edge of) a formula
        parts.append(text[last : match.start()])
        last = match.end()
    parts.append(text[last:])
    return parts


# A heading: short, one line, no closing punctuation (the PDF loader keeps headings as
# blocks of their own; Markdown ones start with #).
MAX_HEADING_CHARS = 70
MAX_HEADING_WORDS = 9
# A list item's mark: a bullet glyph, "1." or "(a)".
LIST_MARK = re.compile(r"^\s*([•●○◦▪■□▫‣⁃∙·➢➤►▶✓✔❖◆◇*§Ø–—-]|\(?\d{1,2}[.)]|\(?[a-zA-Z][.)])\s+")
MARKDOWN_HEADING = re.compile(r"^#{1,6}\s+")
_SMALL_WORDS = frozenset(
    {"a", "an", "and", "as", "at", "by", "for", "from", "in", "of", "on", "or", "the", "to"}
    | {"vs", "with"}
)


def looks_like_heading(line: str) -> bool:
    """A Markdown heading, or a short line of words in Title Case or ALL CAPS with no closing
    punctuation, the way the PDF loader keeps headings (as blocks of their own): it names
    what follows, it says nothing itself."""
    if MARKDOWN_HEADING.match(line):
        return True
    if len(line) > MAX_HEADING_CHARS or line.endswith((".", ",", ";", "!", "?")):
        return False
    if LIST_MARK.match(line) or line.startswith("|") or "@" in line or "://" in line:
        return False
    words = re.findall(r"[^\W\d_][\w'’-]*", line)
    if not words or len(line.split()) > MAX_HEADING_WORDS or "%" in line:
        return False
    return line.isupper() or all(w[0].isupper() or w.lower() in _SMALL_WORDS for w in words)


# A line pointing at material: a file name right after an optional label ("Lecture 2 slides:
# lecture-02-derivatives.pdf (...)"), or a link anywhere. A file named inside a sentence is
# content ("a package is a folder holding an __init__.py file").
# The label's first character is none of the leading marks, and one space follows its colon:
# classes that could take the same characters re-scanned a line of "(" or tabs from each one.
_FILE_FIRST = re.compile(
    r"^[\s\"'`(]*(?:[^:\n\s\"'`(][^:\n]{0,39}:\s[\s\"'`(]*)?[\w./-]*\w"
    r"\.(pdf|md|txt|html?|docx?|pptx?|xlsx?|csv|ipynb|py|zip)\b",
    re.I,
)
_LINK = re.compile(r"https?://|www\.", re.I)


def names_a_file(text: str) -> bool:
    """Whether `text` points at a file or a link: it says where material is, not what it
    teaches, so study cards, quiz questions and lesson bullets are not made of it."""
    return bool(_FILE_FIRST.match(text) or _LINK.search(text))


# Marks that reorder the text around them (a name could be made to read backwards).
_BIDI_CONTROLS = frozenset(
    "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
)


def shown_name(name: str) -> str:
    """A file name as one printable line: control characters (a newline, a tab, an escape
    sequence), line separators and bidi overrides become repr-style escapes (`\\n`, `\\x1b`,
    `\\u202e`); everything else, other scripts and emoji included, is shown as it is."""
    return "".join(repr(c)[1:-1] if _unprintable(c) else c for c in name)


def _unprintable(char: str) -> bool:
    return unicodedata.category(char) in ("Cc", "Zl", "Zp") or char in _BIDI_CONTROLS


_AMPERSAND = re.compile(r"(?<!\S)&(?!\S)")


def fold(text: str) -> str:
    """Case-folded, accents and đ stripped, a free-standing "&" read as "and", whitespace
    collapsed: how names and codes compare ("Đàn Bầu" and "dan bau", "MAE101" and "mae101",
    "Image & Video Processing" and "image and video processing")."""
    spelled = _AMPERSAND.sub("and", text.casefold().replace("đ", "d"))
    decomposed = unicodedata.normalize("NFKD", spelled)
    bare = "".join(c for c in decomposed if not unicodedata.combining(c))
    return " ".join(bare.split())


_NOT_WORD = re.compile(r"[^\w]+|_")


def fold_name(text: str) -> str:
    """Folded (see `fold`) with punctuation and underscores as spaces: "Đàn Bầu" and
    "dan bau", "K20-K21" and "k20 k21" compare equal."""
    return " ".join(_NOT_WORD.sub(" ", fold(text)).split())
