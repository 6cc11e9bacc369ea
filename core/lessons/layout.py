"""Text cut into lines before any engine sees it.

Every engine gets its text already wrapped to the profile's `line_chars`, with explicit
line breaks: the rule "at most N characters a line" then holds whatever the glyph widths
are, and the column is made wide enough that the engine never needs to wrap again. Inline
math counts by an estimate of what it typesets to (`math_width`): its LaTeX source, two or
three times longer than the printed formula, pushed `$\\mathbf{o} = \\mathbf{W}
\\mathbf{x}$` onto a line of its own."""

from __future__ import annotations

import re
from dataclasses import dataclass

from core.lessons.math import split_inline, to_typst


@dataclass(frozen=True, slots=True)
class Run:
    """A piece of a line: text, typeset math (`math` is Typst), or math shown as its source."""

    text: str = ""
    math: str | None = None
    source: str | None = None
    glue: bool = False  # no space before it ("$x$." keeps its full stop attached)

    def width(self) -> int:
        if self.math is not None:
            return math_width(self.source or "")
        if self.source is not None:
            return len(self.source) + 2
        return len(self.text)


# Commands that print nothing of their own (fonts, accents, sizing, spacing, delimiters'
# sizes); any other command prints about one symbol.
_SILENT = re.compile(
    r"\\(?:math[a-z]+|boldsymbol|text[a-z]*|operatorname\*?|hat|bar|tilde|vec|dot|ddot|"
    r"widehat|overline|underline|left|right|big+[lr]?|Big+[lr]?|displaystyle|textstyle|"
    r"scriptstyle|limits|nolimits)(?![A-Za-z])"
)
_COMMAND = re.compile(r"\\[A-Za-z]+|\\.")
_SPACED = re.compile(r"[=+<>]|\\(?:leq|geq|neq|approx|in|to|cdot|times|pm)(?![A-Za-z])")


def math_width(latex: str) -> int:
    """About how many characters of body text `latex` takes once typeset: its symbols, a
    space each side of a relation or a sign, sub- and superscripts at full width (so it
    still errs long)."""
    spaced = len(_SPACED.findall(latex))
    plain = _COMMAND.sub("x", _SILENT.sub("", latex))
    symbols = len(re.sub(r"[\s{}_^]", "", plain))
    return symbols + 2 * spaced + 1


Line = list[Run]


def wrap_plain(text: str, width: int) -> list[str]:
    """Greedy word wrap; a word longer than `width` is cut."""
    lines: list[str] = []
    current = ""
    for word in text.split():
        while len(word) > width:
            if current:
                lines.append(current)
                current = ""
            lines.append(word[:width])
            word = word[width:]
        if not word:
            continue
        if not current:
            current = word
        elif len(current) + 1 + len(word) <= width:
            current += " " + word
        else:
            lines.append(current)
            current = word
    if current:
        lines.append(current)
    return lines


def wrap_chars(text: str, width: int) -> list[str]:
    """Cut at any character (for formula sources, which have few spaces)."""
    text = " ".join(text.split())
    return [text[i : i + width] for i in range(0, len(text), width)] or [""]


def wrap_rich(text: str, width: int, *, with_math: bool = True) -> list[Line]:
    """`text` with `$...$` inline math, wrapped to `width` characters a line."""
    atoms: list[Run] = []
    previous = ""
    for kind, value in split_inline(text) if with_math else [("text", text)]:
        glue = bool(atoms) and not previous[-1:].isspace() and not value[:1].isspace()
        if kind == "math":
            converted = to_typst(value)
            if converted.ok:
                atoms.append(Run(math=converted.typst, source=value, glue=glue))
            else:
                atoms.append(Run(text=f"${value}$", glue=glue))  # shown as written, never dropped
            previous = "$"
        else:
            for n, word in enumerate(value.split()):
                atoms.append(Run(text=word, glue=glue and n == 0))
            previous = value
    lines: list[Line] = []
    current: Line = []
    used = 0
    for atom in atoms:
        pieces = [atom]
        if atom.math is None and len(atom.text) > width:
            pieces = [Run(text=p) for p in wrap_chars(atom.text, width)]
        for piece in pieces:
            need = piece.width() + (1 if current and not piece.glue else 0)
            if current and used + need > width:
                # A glued piece ("." after a formula) takes the run before it along, so no
                # line starts with punctuation.
                carried = [current.pop()] if piece.glue and len(current) > 1 else []
                lines.append(current)
                current = [Run(r.text, r.math, r.source, glue=False) for r in carried]
                used = sum(r.width() for r in current)
                need = piece.width()
                if not current:
                    piece = Run(piece.text, piece.math, piece.source, glue=False)
            current.append(piece)
            used += need
    if current:
        lines.append(current)
    return lines


def line_text(line: Line) -> str:
    out = ""
    for n, run in enumerate(line):
        shown = run.text if run.math is None else f"${run.source}$"
        out += shown if n == 0 or run.glue else " " + shown
    return out
