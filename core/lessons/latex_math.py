"""Formulas for pdflatex: a formula reaches TeX only when every command in it is a known math
command, and every environment a known math environment.

TeX is a programming language: a list of forbidden commands is never complete
(`\\providecommand`, `\\DeclareRobustCommand`, `\\InputIfFileExists`, `\\@@input`, a `^^5c`
that TeX reads as a backslash...). So the rule is the other way round: the formula is read
token by token as TeX reads it, and any control sequence outside the lists below, a `^^`
character code, a comment, a parameter, math-mode delimiters or an unbalanced brace makes it
"not safe": the deck then shows it as its escaped source. Commands outside the list that are
harmless lose only their typesetting, never their text.

pdflatex also runs without shell escape and with paranoid file access (`latex_engine`): this
list is not the only wall."""

from __future__ import annotations

import re

_GREEK = """alpha beta gamma delta epsilon varepsilon zeta eta theta vartheta iota kappa lambda mu
nu xi pi varpi rho varrho sigma varsigma tau upsilon phi varphi chi psi omega Gamma Delta
Theta Lambda Xi Pi Sigma Upsilon Phi Psi Omega"""
_SYMBOLS = """infty partial nabla forall exists nexists neg lnot emptyset varnothing in notin ni
subset subseteq supset supseteq subsetneq cup cap setminus times div pm mp cdot circ bullet
star ast leq le geq ge neq ne approx equiv sim simeq cong propto ll gg prec succ preceq succeq
to rightarrow leftarrow Rightarrow Leftarrow Leftrightarrow leftrightarrow iff implies impliedby
mapsto longrightarrow longleftarrow Longrightarrow Longleftarrow longmapsto uparrow downarrow
mid nmid parallel perp angle prime ell hbar Re Im aleph land lor wedge vee oplus otimes odot
top bot models vdash dashv colon therefore because triangle square Box checkmark dagger
cdots ldots dots vdots ddots langle rangle lfloor rfloor lceil rceil lvert rvert lVert rVert
vert Vert backslash not quad qquad sum prod coprod int iint iiint oint bigcup bigcap bigoplus
bigotimes bigvee bigwedge sin cos tan cot sec csc arcsin arccos arctan sinh cosh tanh log ln lg
exp lim liminf limsup max min sup inf det dim ker deg gcd lcm arg Pr mod bmod pmod"""
_STRUCTURE = """frac dfrac tfrac cfrac sqrt binom dbinom tbinom left right middle big Big bigg
Bigg bigl bigr Bigl Bigr biggl biggr limits nolimits displaystyle textstyle scriptstyle
overline underline overbrace underbrace overset underset stackrel substack hat widehat bar
tilde widetilde dot ddot vec check breve acute grave mathring boxed mathbb mathbf mathcal
mathrm mathit mathsf mathtt mathfrak boldsymbol operatorname text textrm textbf textit
textnormal phantom begin end"""
MATH_COMMANDS = frozenset((_GREEK + " " + _SYMBOLS + " " + _STRUCTURE).split())
_ENVIRONMENTS = """matrix pmatrix bmatrix Bmatrix vmatrix Vmatrix smallmatrix cases aligned
gathered split array"""
MATH_ENVIRONMENTS = frozenset(_ENVIRONMENTS.split())
# A backslash and one non-letter: spacing, escaped specials, a row break.
MATH_SYMBOLS = frozenset(",;:! {}|\\%#$&_")

_CONTROL_WORD = re.compile(r"\\([A-Za-z]+)")
_ENVIRONMENT = re.compile(r"\s*\{([A-Za-z]+\*?)\}")
_NEVER = ("^^", "%", "#", "$")  # a character code, a comment, a parameter, a math delimiter


def is_safe_math(formula: str) -> bool:
    """Whether `formula` uses only known math commands and environments (see above)."""
    if any(text in _without_escapes(formula) for text in _NEVER) or "\n\n" in formula:
        return False
    depth = 0
    position = 0
    while position < len(formula):
        char = formula[position]
        if char == "\\":
            word = _CONTROL_WORD.match(formula, position)
            if word is None:  # a control symbol: a backslash and one character
                if formula[position + 1 : position + 2] not in MATH_SYMBOLS:
                    return False
                position += 2
                continue
            name = word.group(1)
            if name not in MATH_COMMANDS:
                return False
            position = word.end()
            if name in ("begin", "end"):
                environment = _ENVIRONMENT.match(formula, position)
                if environment is None or environment.group(1) not in MATH_ENVIRONMENTS:
                    return False
                position = environment.end()
            continue
        if char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
            if depth < 0:
                return False
        position += 1
    return depth == 0


def _without_escapes(formula: str) -> str:
    """The formula without its escaped specials (`\\%`, `\\#`, `\\$`, `\\\\`), which are text."""
    return re.sub(r"\\[\\%#$]", "", formula)
