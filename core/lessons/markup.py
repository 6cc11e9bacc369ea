"""Source markup as slide text: chunks keep their Markdown as it was uploaded (links, images,
emphasis, inline HTML, code, and the roles of books written for Sphinx or d2l such as
`:label:` and `:numref:`), which a slide must not print.

`slide_text` cleans one piece of prose outside its formulas (math is left exactly as
written) and says when the piece is no sentence for a slide at all: a bare link (a table of
contents), or a sentence pointing to a figure, equation or table the slide does not show.
`looks_like_code` tells a code block from prose: the loader keeps a code block's lines,
while a paragraph is one line."""

from __future__ import annotations

import re

from core.text import math_spans

_IMAGE = re.compile(r"!\[[^\]\n]*\]\([^)\n]*\)")
_LINK = re.compile(r"\[([^\]\n]+)\]\([^)\n]*\)")
_ONLY_LINKS = re.compile(r"^(?:\s*[-*]?\s*\[[^\]\n]+\]\([^)\n]*\)[\s.,;]*)+$")
_HTML_TAG = re.compile(r"</?[A-Za-z][A-Za-z0-9-]*(?:\s[^<>]*)?/?>")
_HTML_ENTITY = {"&nbsp;": " ", "&amp;": "&", "&lt;": "<", "&gt;": ">", "&quot;": '"'}
_STRONG = re.compile(r"(\*\*|__)(?=\S)(.+?)(?<=\S)\1")
# A book's highlight: bold wrapped in brackets or parentheses ("we can [**test it**]", d2l's
# "(**implement a layer**)"), printed as the words alone, as slide_title does for headings.
_BRACKETED_STRONG = re.compile(
    r"\[(\*\*|__)(?=\S)([^\]\n]+?)(?<=\S)\1\]|\((\*\*|__)(?=\S)([^)\n]+?)(?<=\S)\3\)"
)
_EMPHASIS = re.compile(r"(?<![\w*])\*(?=[^\s*])([^*\n]+?)(?<=\S)\*(?![\w*])")
_UNDERSCORE_EMPHASIS = re.compile(r"(?<!\w)_(?=\S)([^_\n]+?)(?<=\S)_(?!\w)")
_CODE = re.compile(r"`([^`\n]+)`")
_MARKED_MATH = re.compile(r"(\*\*|__|\*)(\$[^$\n]+\$)\1")
_CODE_LINE = re.compile(
    r"^(?:\s+(?![-*•\d])\S|(?:def|class|import|return|#@tab)\b|from \S+ import\b)"
)
# Roles: `:label:` anchors and `:cite:` keys say nothing to a reader; a reference to a
# section reads as its name; one to a figure, equation or table the slide does not show
# makes its sentence unusable.
_ROLE = re.compile(r":([a-z]+):`([^`\n]*)`")
_SILENT_ROLES = frozenset({"label", "eqlabel", "cite", "citep", "citet", "width", "height"})
_SECTION_LABEL = re.compile(r"^(?:sec|subsec|chap|chapter|section)[_:-]+(.+)$", re.I)
_CODE_WORDS = re.compile(
    r"^\s*(?:def|class|import|from|return|for|while|if|else|elif|print|#@tab|#|//|%|>>>)\b"
    r"|[;{}]\s*$|\w\.\w+\(",
    re.M,
)


class NotSlideText(ValueError):
    """The piece is no sentence for a slide (a link list, a pointer to a figure)."""


def slide_text(text: str) -> str:
    """`text` without its markup, formulas untouched; `NotSlideText` when nothing a slide
    can show is left."""
    if _ONLY_LINKS.match(text):
        raise NotSlideText("a list of links")
    text = _MARKED_MATH.sub(r"\2", text)
    out: list[str] = []
    at = 0
    for start, end in math_spans(text):
        out.append(_clean(text[at:start]))
        out.append(text[start:end])
        at = end
    out.append(_clean(text[at:]))
    cleaned = " ".join("".join(out).split())
    cleaned = re.sub(r"\s+([,.;:!?])", r"\1", cleaned)
    cleaned = re.sub(r"\(\s*\)", "", cleaned).strip()
    if not cleaned:
        raise NotSlideText("only markup")
    return cleaned


def without_images(text: str) -> str:
    """`text` without its Markdown images (their alt text may hold formulas and full stops,
    so this goes before formulas and sentences are found)."""
    return _IMAGE.sub(" ", text)


def slide_title(text: str) -> str:
    """A heading as a slide title: its markup gone, and the brackets or parentheses a book
    wraps a whole heading in ("[**Concise Implementation**]") with it."""
    try:
        title = slide_text(without_images(text))
    except NotSlideText:
        return " ".join(text.split())
    while len(title) > 2 and (title[0], title[-1]) in (("[", "]"), ("(", ")")):
        title = title[1:-1].strip()
    return title or " ".join(text.split())


def _clean(prose: str) -> str:
    prose = _IMAGE.sub(" ", prose)
    prose = _LINK.sub(r"\1", prose)
    prose = _ROLE.sub(_role, prose)
    prose = _HTML_TAG.sub(" ", prose)
    for entity, char in _HTML_ENTITY.items():
        prose = prose.replace(entity, char)
    prose = _BRACKETED_STRONG.sub(lambda m: m.group(2) or m.group(4), prose)
    prose = _STRONG.sub(r"\2", prose)
    prose = _EMPHASIS.sub(r"\1", prose)
    prose = _UNDERSCORE_EMPHASIS.sub(r"\1", prose)
    return _CODE.sub(r"\1", prose)


def _role(match: re.Match[str]) -> str:
    role, target = match.group(1), match.group(2)
    if role in _SILENT_ROLES:
        return " "
    section = _SECTION_LABEL.match(target)
    if role in ("numref", "ref") and section:
        return "the section on " + section.group(1).replace("_", " ").replace("-", " ")
    raise NotSlideText(f"points to {target}, which the slide does not show")


def looks_like_code(block: str) -> bool:
    """A block of several lines written like a program (the loader joins a paragraph's
    lines, so prose arrives as one line)."""
    lines = [line for line in block.splitlines() if line.strip()]
    if len(lines) == 1:
        # A paragraph never starts with a space: the loader joins its lines.
        return bool(_CODE_LINE.match(lines[0]))
    if not lines or all(line.lstrip().startswith(("-", "|", "*")) for line in lines):
        return False
    hits = sum(1 for line in lines if _CODE_WORDS.search(line) or line.startswith(("  ", "\t")))
    return hits * 3 >= len(lines)
