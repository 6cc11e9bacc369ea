"""LaTeX math as Typst math, for the Typst engine.

Course material writes formulas in LaTeX; Typst has its own math syntax. The `tex2typst`
wheel converts (the tex2typst converter, run in an embedded JavaScript engine, no network,
no Node). Every converted formula is then compiled on its own by Typst, exactly as the deck
template will place it, so a formula that converts but does not typeset (an unknown macro,
`\\frac{1}{`) is known before the deck is compiled: a deck compile then cannot fail on math,
and such a formula is shown as its LaTeX source instead, never dropped.

Converted math never contains `#`: in Typst math that switches to code, which must not come
from course material or a model."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

import tex2typst
import typst

from core.lessons.fonts import typst_fonts

# The same markup the deck template uses for a display formula (see `typst_engine`).
_PROBE = '#math.equation(block: true, eval(sys.inputs.formula, mode: "math"))'
_INLINE_MATH = re.compile(r"(?<!\\)\$(?!\$)(.+?)(?<!\\)\$")
# LaTeX spellings the converter does not know, as ones it does (found on the teaching
# courses' 1,118 formulas: 90 did not typeset, most for `\textrm`).
_SPELLINGS = (
    (re.compile(r"\\(?:textrm|textnormal|mbox|textup)\s*\{"), r"\\text{"),
    (re.compile(r"\\operatorname\*"), r"\\operatorname"),
    (re.compile(r"\\[hv]space\*?\s*\{[^{}]*\}"), r"\\quad "),
    (re.compile(r"\\stackrel(?=\s*\{)"), r"\\overset"),
    (re.compile(r"\{([^{}]*)\}\s*\\choose\s*\{([^{}]*)\}"), r"\\binom{\1}{\2}"),
)
# Symbols the converter names as a newer Typst does.
_TYPST_NAMES = (("dot.circle", "dot.o"),)


@dataclass(frozen=True, slots=True)
class TypstMath:
    """A formula: its LaTeX source and, when it typesets, the Typst math for it; otherwise
    why not."""

    source: str
    typst: str | None
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.typst is not None


def to_typst(latex: str) -> TypstMath:
    """`latex` (without `$` delimiters) as Typst math, checked by compiling it."""
    return _convert(latex.strip())


@functools.lru_cache(maxsize=4096)
def _convert(latex: str) -> TypstMath:
    if not latex:
        return TypstMath(latex, None, "empty formula")
    try:
        converted = tex2typst.tex2typst(_known_spelling(latex))
    except Exception as error:  # the converter raises ValueError, its JS engine others
        return TypstMath(latex, None, f"not LaTeX it can read: {_first_line(error)}")
    converted = converted.strip()
    for newer, ours in _TYPST_NAMES:
        converted = re.sub(rf"\b{re.escape(newer)}\b", ours, converted)
    if not converted:
        return TypstMath(latex, None, "the formula converts to nothing")
    if re.search(r"(?<!\\)#", converted):
        return TypstMath(latex, None, "the formula would contain Typst code")
    problem = typeset_error(converted)
    if problem is not None:
        return TypstMath(latex, None, problem)
    return TypstMath(latex, converted)


def _known_spelling(latex: str) -> str:
    for pattern, replacement in _SPELLINGS:
        latex = pattern.sub(replacement, latex)
    return latex


def typeset_error(typst_math: str) -> str | None:
    """Why Typst cannot typeset `typst_math` as a display formula (None when it can)."""
    compiler = typst.Compiler(font_paths=typst_fonts(), ignore_system_fonts=True)
    try:
        compiler.compile(input=_PROBE.encode(), format="pdf", sys_inputs={"formula": typst_math})
    except typst.TypstError as error:
        return f"Typst cannot typeset it: {_first_line(error.message)}"
    return None


def split_inline(text: str) -> list[tuple[str, str]]:
    """`text` cut into ("text", ...) and ("math", latex) runs at `$...$` pairs."""
    runs: list[tuple[str, str]] = []
    at = 0
    for match in _INLINE_MATH.finditer(text):
        if match.start() > at:
            runs.append(("text", text[at : match.start()]))
        runs.append(("math", match.group(1)))
        at = match.end()
    if at < len(text):
        runs.append(("text", text[at:]))
    return runs


def _first_line(error: object) -> str:
    return str(error).strip().splitlines()[0][:200] if str(error).strip() else "unknown error"
