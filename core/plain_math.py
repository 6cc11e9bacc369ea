"""Formulas written in plain text ("f'(a) = lim_{h->0} (f(a + h) - f(a)) / h", "d/dx x^n =
n * x^(n-1)"), found where they are unambiguous and given as LaTeX, so lessons and flashcards
typeset them and chunking never splits one.

Conservative by design: prose must never become math. Text is read word by word (words
joined while a bracket is open); a word is mathematical only when it is made of letters,
digits, operators and brackets, and every run of letters in it is one letter or a known name
in its place (`sin(`, `lim_`, `sqrt(`, `alpha`). So "and/or", paths, file names and links
never qualify. Such words joined by operators make a candidate, and a candidate counts only
with a sign that it is math: a power (`x^2`), a subscript (`x_1`), a limit, a root, a
derivative (`d/dx`), or a relation (`=`, `!=`, `<=`, `->`) between a function of a variable,
an expression with an operator, or a lone variable and a number. A bare `1/2`, `3/4`,
`24/7`, a date or a version has none of these and stays text. Text in backticks, in a link,
already in math marks, or in a paragraph with a line that looks like code (a comment, an
import, a snake_case name, a method call...) is left alone."""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass

from core.text import math_spans

# Longer candidates are left as text: a real formula in prose is short, and it bounds the
# work on a hostile word.
MAX_FORMULA_CHARS = 300
# A bracket left open joins at most this many following words.
MAX_JOINED_WORDS = 24


def _names(text: str) -> frozenset[str]:
    return frozenset(text.split())


_GREEK = _names(
    "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi pi rho sigma "
    "tau phi chi psi omega Gamma Delta Theta Lambda Xi Pi Sigma Phi Psi Omega"
)
# Names read as functions only when applied: "sin(x)", "lim_{...}", "sqrt(2)", "ln(x)".
_FUNCTIONS = _names(
    "sin cos tan cot sec csc arcsin arccos arctan sinh cosh tanh exp log ln lim sqrt"
)
_INFINITY = frozenset({"inf", "infinity"})
_OPERATORS = {
    "=": "=",
    "+": "+",
    "-": "-",
    "*": r"\cdot",
    "/": "/",
    "<": "<",
    ">": ">",
    "<=": r"\leq",
    ">=": r"\geq",
    "!=": r"\neq",
    "->": r"\to",
    "+-": r"\pm",
    "≤": r"\leq",
    "≥": r"\geq",
    "≠": r"\neq",
    "≈": r"\approx",
    "×": r"\times",
    "·": r"\cdot",
    "÷": r"\div",
    "±": r"\pm",
    "→": r"\to",
}
_RELATIONS = frozenset({"=", "<", ">", "<=", ">=", "!=", "->", "≤", "≥", "≠", "≈", "→"})
_ARITHMETIC = frozenset({"+", "-", "*", "/", "+-", "×", "·", "÷", "±"})

_WORD = re.compile(r"\S+")
_PARAGRAPH = re.compile(r"(?:[^\n]|\n(?![ \t]*\n))+")
_MATH_WORD = re.compile(r"[A-Za-z0-9.()\[\]{}^_'+\-*/=<>!,|]+")
_LETTERS = re.compile(r"[A-Za-z]+")
# Code, not math: Python's power and equality, C's increments and logic, assignments.
_CODE = re.compile(r"\*\*|==|\+\+|--|&&|\|\||[+\-*/]=|::|\.\w+\(")
_TRAILING = re.compile(r"[.,;:!?]+$")
_SKIPPED = re.compile(r"`[^`]*`|https?://\S+|www\.\S+|\[[^\]]*\]\([^)]*\)")
# A line of code, as a Markdown code block keeps it: a comment, a definition or an import,
# a statement ending in a colon, a method call, an assignment to a snake_case name or an
# item, an indented line, a notebook's magic or a docstring.
_CODE_LINE = re.compile(
    r"(?:^|\s)#+\s|^\s*(?:def|class)\s+\w+.*:\s*$|^\s*(?:import|from)\s+[\w.]+"
    r"|^\s*(?:for|while|if|elif|else|with|try|except)\b.*:\s*$|\w\.\w+\(|\b[a-z]+_\w*\s*="
    r"|\w\[[^\]]*\]\s*=|^(?: {4}|\t)|%%|\"\"\"|'''|;\s*$|;\s*[A-Za-z_]\w*\s*=(?!=)"
    r"|\b[A-Za-z]\w*_[A-Za-z]{2,}",
    re.MULTILINE,
)
_DERIVATIVE = re.compile(r"(?<![A-Za-z])d(\^\d)?([A-Za-z])?/d([A-Za-z])(\^\d)?(?![A-Za-z])")
_LIMIT = re.compile(r"(?<![A-Za-z])lim_")
_POWER = re.compile(r"[A-Za-z0-9)}\]]\^[-A-Za-z0-9({]")
_SUBSCRIPT = re.compile(r"(?<![A-Za-z0-9])[A-Za-z]_[A-Za-z0-9{]")
_APPLIED = re.compile(r"(?<![A-Za-z])([A-Za-z]'*|sin|cos|tan|exp|log|ln|sqrt)\(")
_LONE_VARIABLE = re.compile(r"[b-hj-z]")  # not "a" or "i", which are words
_NUMBER = re.compile(r"-?\d+(\.\d+)?")
# A term that multiplies the one before it when written side by side: a power or an
# application ("e^x", "x^(n-1)", "cos(3x)", "(x^2 + 1)^4").
_TERM_OPERAND = re.compile(
    r"-?(?:\d+(?:\.\d+)?|\d*[A-Za-z](?:\^\w+|_\w+)?'*|[A-Za-z]*'*\(.*\)'*|\[.*\])"
)
_TERM = re.compile(r"\^|^[A-Za-z]*'*\(")


@dataclass(frozen=True, slots=True)
class PlainFormula:
    """A formula at text[start:end], and the LaTeX for it."""

    start: int
    end: int
    latex: str


@dataclass(frozen=True, slots=True)
class _Item:
    start: int
    end: int
    text: str
    operator: bool
    last: bool  # sentence punctuation or a closing bracket of the prose follows: a run ends


def plain_formulas(text: str, skip: Sequence[tuple[int, int]] = ()) -> list[PlainFormula]:
    """The plain-text formulas in `text`, in order, none overlapping a span of `skip` (the
    formulas already in math marks) nor code, a link or a Markdown link target."""
    code = _code(text)
    skipped = _merged([*skip, *code, *((m.start(), m.end()) for m in _SKIPPED.finditer(text))])
    found: list[PlainFormula] = []
    run: list[_Item] = []
    for item in _items(text, skipped):
        if item is None:
            found.extend(_formulas(text, run))
            run = []
            continue
        run.append(item)
        if item.last:
            found.extend(_formulas(text, run))
            run = []
    found.extend(_formulas(text, run))
    return found


def _code(text: str) -> list[tuple[int, int]]:
    """The paragraphs (lines between blank ones) of `text` with a line of code in them:
    Markdown keeps a code block's lines, and most of them show no sign of code alone."""
    return [
        paragraph.span()
        for paragraph in _PARAGRAPH.finditer(text)
        if _CODE_LINE.search(paragraph.group())
    ]


def _merged(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    merged: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


def mark_plain_math(text: str) -> str:
    """`text` with each plain-text formula written as `$latex$` (math already in marks is
    left as it is, so marking twice changes nothing)."""
    out: list[str] = []
    at = 0
    for formula in plain_formulas(text, math_spans(text)):
        out.append(text[at : formula.start])
        out.append(f"${formula.latex}$")
        at = formula.end
    out.append(text[at:])
    return "".join(out)


def formula_spans(text: str) -> list[tuple[int, int]]:
    """Where every formula of `text` is, in math marks or in plain text, in order."""
    marked = math_spans(text)
    plain = [(f.start, f.end) for f in plain_formulas(text, marked)]
    return sorted(marked + plain)


# --- words ---------------------------------------------------------------------------------


def _items(text: str, skipped: list[tuple[int, int]]) -> list[_Item | None]:
    """Each word as an item, or None where it breaks a run (prose, code, a skipped span)."""
    words = list(_WORD.finditer(text))
    starts = [start for start, _ in skipped]
    items: list[_Item | None] = []
    index = 0
    while index < len(words):
        word = words[index]
        if _in_skipped(word.start(), word.end(), skipped, starts):
            items.append(None)
            index += 1
            continue
        item, used = _item(text, words, index)
        items.append(item)
        index += used
    return items


def _in_skipped(start: int, end: int, skipped: list[tuple[int, int]], starts: list[int]) -> bool:
    """Whether [start, end) overlaps a span of `skipped` (sorted, not overlapping)."""
    n = bisect_right(starts, end - 1)
    return n > 0 and skipped[n - 1][1] > start


def _item(text: str, words: list[re.Match[str]], index: int) -> tuple[_Item | None, int]:
    """The item starting at words[index] and how many words it takes (an open bracket joins
    the following words until it closes)."""
    start = words[index].start()
    word = words[index].group()
    depth = _net(word)
    if depth > 0 and word.strip("([{") and _MATH_WORD.fullmatch(word):
        for used in range(2, min(MAX_JOINED_WORDS, len(words) - index) + 1):
            joined = words[index + used - 1]
            if not _MATH_WORD.fullmatch(joined.group()) or joined.end() - start > MAX_FORMULA_CHARS:
                break
            depth += _net(joined.group())
            if depth > 0:
                continue
            raw = text[start : joined.end()]
            core = _TRAILING.sub("", raw)
            item = _checked(start, core, last=core != raw) if _depth(core) == 0 else None
            if item is not None:
                return item, used
            break
    core = _TRAILING.sub("", word)
    item = _checked(start, core, last=core != word)
    if item is None and word[:1] in "([{":
        # An open bracket that never closes may be the prose's own: "(see x^2 above".
        stripped = word.lstrip("([{")
        core = _TRAILING.sub("", stripped)
        item = _checked(start + len(word) - len(stripped), core, last=core != stripped)
    return item, 1


def _net(word: str) -> int:
    return sum(word.count(c) for c in "([{") - sum(word.count(c) for c in ")]}")


def _checked(start: int, core: str, *, last: bool) -> _Item | None:
    # A closing bracket of the prose: "(as in x^2)".
    while _depth(core) < 0 and core[-1:] in ")]}":
        core = core[:-1]
        last = True
    if not core or _depth(core) != 0:
        return None
    if core in _OPERATORS:
        return _Item(start, start + len(core), core, operator=True, last=last)
    if not _is_math_word(core):
        return None
    return _Item(start, start + len(core), core, operator=False, last=last)


def _is_math_word(word: str) -> bool:
    joined = word.replace(" ", "")
    if not _MATH_WORD.fullmatch(joined) or _CODE.search(joined):
        return False
    if re.search(r"[A-Za-z]\.|\.[A-Za-z]", joined):  # "e.g", "f.x", a file name
        return False
    checked = _DERIVATIVE.sub("D", joined)
    for letters in _LETTERS.finditer(checked):
        name = letters.group()
        after = checked[letters.end() : letters.end() + 1]
        if len(name) == 1 or name in _GREEK or name in _INFINITY:
            continue
        if name in _FUNCTIONS and after in ("(", "_", "^"):
            continue
        if name == "lim" and after in ("_", ""):
            continue
        return False
    return True


def _depth(text: str) -> int:
    """Open brackets left at the end (negative: more closed than opened)."""
    depth = 0
    for char in text:
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
            if depth < 0:
                return depth
    return depth


# --- runs ----------------------------------------------------------------------------------


def _formulas(text: str, run: list[_Item]) -> list[PlainFormula]:
    """The formulas in a run of mathematical words: pieces joined by operators (or led by a
    limit or a derivative) that show a sign of being math."""
    found = []
    for piece in _pieces(run):
        source = text[piece[0].start : piece[-1].end]
        if len(source) <= MAX_FORMULA_CHARS and _is_math(piece):
            found.append(PlainFormula(piece[0].start, piece[-1].end, to_latex(piece)))
    return found


def _pieces(run: list[_Item]) -> list[list[_Item]]:
    """Operands joined by binary operators; an operator at either end is dropped. Two
    operands side by side part, unless the first is a limit or a derivative ("lim_{x->a}
    f(x)"), or, after a relation or a limit, the second is a power or an
    application and the one before was not joined that way too ("= 2x e^x + x^2 e^x",
    "= 3 cos(3x)"): a row of a flattened table stays apart."""
    pieces: list[list[_Item]] = []
    current: list[_Item] = []
    side_by_side = in_expression = False
    for item in run:
        if current and not (item.operator and current[-1].operator):
            previous = current[-1]
            joins = item.operator or previous.operator or _leads(previous.text)
            side_by_side = not joins and in_expression and not side_by_side
            if joins or (side_by_side and _TERM.search(item.text)):
                current.append(item)
                in_expression = in_expression or _opens_expression(item)
                continue
        current = _close(current, pieces)
        side_by_side = False
        if not item.operator or item.text == "-":
            current = [item]
            in_expression = _opens_expression(item)
    _close(current, pieces)
    return pieces


def _opens_expression(item: _Item) -> bool:
    """After a relation or a limit, terms side by side multiply: "= 2x e^x"."""
    return item.text in _RELATIONS or _leads(item.text)


def _close(current: list[_Item], pieces: list[list[_Item]]) -> list[_Item]:
    while current and current[-1].operator:
        current = current[:-1]
    if current:
        pieces.append(current)
    return []


def _leads(word: str) -> bool:
    """A limit or a derivative applies to the operand after it: "lim_{x->a} f(x)"."""
    limit = word == "lim" or bool(_LIMIT.match(word) and word.endswith("}"))
    return limit or bool(_DERIVATIVE.fullmatch(word))


def _is_math(piece: list[_Item]) -> bool:
    words = [item.text for item in piece]
    joined = " ".join(words)
    if (
        _POWER.search(joined)
        or _SUBSCRIPT.search(joined)
        or _LIMIT.search(joined)
        or (words[0] == "lim" and len(words) > 1)
        or "sqrt(" in joined
        or _DERIVATIVE.search(joined)
    ):
        return True
    relations = [n for n, word in enumerate(words) if word in _RELATIONS]
    operands = [item.text for item in piece if not item.operator]
    # Without a power, a limit or the like, every operand must read as one: a number, a
    # variable term, an application or a bracket ("A/B", "24/7", "v2.0", a date are not).
    if not relations or not all(_TERM_OPERAND.fullmatch(word) for word in operands):
        return False
    # An operator between two operands: a leading minus alone is no expression.
    if _APPLIED.search(joined) or any(w in _ARITHMETIC for w in words[1:]):
        return any(_has_variable(w) for w in words)
    # "x != 1", "h -> 0", "n = 10": a lone variable and a number or another variable.
    if len(words) == 3 and relations == [1]:
        left, right = words[0], words[2]
        return bool(_LONE_VARIABLE.fullmatch(left)) and bool(
            _NUMBER.fullmatch(right) or _LONE_VARIABLE.fullmatch(right)
        )
    return False


def _has_variable(word: str) -> bool:
    """A one-letter name other than the words "a", "A" and "I"."""
    letters = _LETTERS.finditer(_DERIVATIVE.sub("", word))
    return any(len(m.group()) == 1 and m.group() not in "aAI" for m in letters)


# --- LaTeX ---------------------------------------------------------------------------------


def to_latex(piece: list[_Item]) -> str:
    """The piece as LaTeX: operators as commands, `^(...)` and `_(...)` grouped, known
    names as commands, `sqrt(...)` as a root and `(a)/(b)` as a fraction."""
    parts = [_OPERATORS[item.text] if item.operator else _word_latex(item.text) for item in piece]
    return " ".join(_fractions(" ".join(parts)).split())


def _word_latex(word: str) -> str:
    word = _DERIVATIVE.sub(_derivative, word)
    word = word.replace("->", r" \to ").replace("<=", r" \leq ").replace(">=", r" \geq ")
    word = word.replace("!=", r" \neq ").replace("+-", r" \pm ").replace("*", r" \cdot ")
    word = _roots(word)
    word = re.sub(r"(?<=\d) x (?=\d)", r" \\times ", word)  # "[3 x 4]": a matrix's size
    word = re.sub(r"(?<![A-Za-z\\])([A-Za-z]{2,})(?![A-Za-z])", _name, word)
    # Exponents and subscripts: "x^(n-1)" and "x^-1" group what the writer meant.
    word = re.sub(r"([\^_])\(([^()]*)\)", r"\1{\2}", word)
    word = re.sub(r"([\^_])(-?\d+(?:\.\d+)?)", _grouped, word)
    return word


def _grouped(match: re.Match[str]) -> str:
    mark, value = match.groups()
    return f"{mark}{value}" if len(value) == 1 else f"{mark}{{{value}}}"


def _derivative(match: re.Match[str]) -> str:
    order, function, variable, power = match.groups()
    return rf"\frac{{d{order or ''}{function or ''}}}{{d{variable}{power or ''}}}"


def _name(match: re.Match[str]) -> str:
    name = match.group(1)
    if name in _INFINITY:
        return r"\infty"
    if name in _GREEK or name in _FUNCTIONS:
        return "\\" + name
    return name


def _roots(word: str) -> str:
    """`sqrt(...)` as `\\sqrt{...}`, innermost last."""
    while (at := word.find("sqrt(")) >= 0:
        close = _closing(word, at + 4)
        if close is None:
            return word
        word = word[:at] + r"\sqrt{" + word[at + 5 : close] + "}" + word[close + 1 :]
    return word


def _closing(text: str, opening: int) -> int | None:
    depth = 0
    for position in range(opening, len(text)):
        if text[position] in "({":
            depth += 1
        elif text[position] in ")}":
            depth -= 1
            if depth == 0:
                return position
    return None


_OPERAND = r"((?:\((?:[^()]|\([^()]*\))*\)|\d+(?:\.\d+)?|[A-Za-z])(?:\^\{[^{}]*\}|\^\w)?)"
_FRACTION = re.compile(rf"(?<![\w}})\].'^_]){_OPERAND}\s*/\s*{_OPERAND}(?![\w(\\{{.'^_])")


def _fractions(latex: str) -> str:
    """`(a + b)/(c)`, `a/b` as `\\frac`: each side one bracketed group or one term (two
    levels of brackets at most); any other slash stays a slash, as inline math writes it."""

    def frac(match: re.Match[str]) -> str:
        return rf"\frac{{{_unwrapped(match.group(1))}}}{{{_unwrapped(match.group(2))}}}"

    return _FRACTION.sub(frac, latex)


def _unwrapped(operand: str) -> str:
    if operand.startswith("(") and _closing(operand, 0) == len(operand) - 1:
        return operand[1:-1]
    return operand
