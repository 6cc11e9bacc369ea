"""LaTeX formulas as plain text a chat can show (a Telegram poll, a Discord button's line):
`\\frac{1}{1 + \\exp(-x)}` reads `1/(1 + exp(-x))`, `\\mathbf{w}^\\top \\mathbf{x}` reads
`wᵀ x`. Only what reads unambiguously is rewritten; a formula with environments (`aligned`,
`cases`) or commands left over after the rewrite is refused (None): a quiz leaves it out
rather than show raw markup."""

from __future__ import annotations

import re

_SYMBOLS = {
    "alpha": "α", "beta": "β", "gamma": "γ", "delta": "δ", "epsilon": "ε", "varepsilon": "ε",
    "zeta": "ζ", "eta": "η", "theta": "θ", "lambda": "λ", "mu": "μ", "nu": "ν", "xi": "ξ",
    "pi": "π", "rho": "ρ", "sigma": "σ", "tau": "τ", "phi": "φ", "varphi": "φ", "chi": "χ",
    "psi": "ψ", "omega": "ω", "Gamma": "Γ", "Delta": "Δ", "Theta": "Θ", "Lambda": "Λ",
    "Sigma": "Σ", "Phi": "Φ", "Psi": "Ψ", "Omega": "Ω", "sum": "Σ", "prod": "Π",
    "partial": "∂", "nabla": "∇", "infty": "∞", "cdot": "·", "times": "×", "odot": "⊙",
    "circ": "∘", "cdots": "⋯", "ldots": "…", "dots": "…", "in": "∈", "leq": "≤", "le": "≤",
    "geq": "≥", "ge": "≥", "neq": "≠", "approx": "≈", "to": "→", "rightarrow": "→",
    "mid": "|", "top": "ᵀ", "prime": "′", "pm": "±", "propto": "∝", "sim": "~",
    "exp": "exp", "log": "log", "ln": "ln", "max": "max", "min": "min", "sin": "sin",
    "cos": "cos", "tan": "tan", "tanh": "tanh", "lim": "lim", "arg": "arg", "det": "det",
    "quad": " ", "qquad": " ", ",": " ", ";": " ", "!": "", " ": " ",
}  # fmt: skip
# Commands whose argument is shown as it is: fonts and operator names.
_AS_IS = re.compile(
    r"\\(?:mathbf|mathrm|mathit|mathsf|mathcal|boldsymbol|textrm|text|operatorname|bm)\s*"
    r"(?:\{([^{}]*)\}|([A-Za-z]))"
)
_ACCENTS = {"hat": "\u0302", "tilde": "\u0303", "bar": "\u0304", "vec": "\u20d7"}
_ACCENT = re.compile(r"\\(hat|tilde|bar|vec)\s*\{([^{}]*)\}")
_BLACKBOARD = {"R": "ℝ", "N": "ℕ", "Z": "ℤ", "E": "𝔼", "P": "ℙ", "Q": "ℚ", "C": "ℂ"}
_MATHBB = re.compile(r"\\mathbb\s*\{([A-Z])\}")
_FRAC = re.compile(r"\\[dt]?frac\s*\{([^{}]*)\}\s*\{([^{}]*)\}")
_SQRT = re.compile(r"\\sqrt\s*\{([^{}]*)\}")
_SIZING = re.compile(r"\\(?:left|right|big|Big|bigg|Bigg)(?=[()\[\]|.\\])\.?")
_COMMAND = re.compile(r"\\([A-Za-z]+|[,;! ])")
_REFUSED = re.compile(r"\\begin|\\end|&|\\\\\\\\")
_SINGLE_BRACES = re.compile(r"([_^])\{([^{}\s]{1})\}")


def readable(latex: str) -> str | None:
    """The formula as plain text, or None where it does not read plainly."""
    text = latex.strip()
    if _REFUSED.search(text):
        return None
    for _ in range(4):  # nested commands rewrite from the inside out
        text = _AS_IS.sub(lambda m: m[1] if m[1] is not None else m[2], text)
        text = _MATHBB.sub(lambda m: _BLACKBOARD.get(m[1], m[1]), text)
        text = _ACCENT.sub(lambda m: _accented(m[1], m[2]), text)
        text = _FRAC.sub(lambda m: f"{_grouped(m[1])}/{_grouped(m[2])}", text)
        text = _SQRT.sub(lambda m: f"√({m[1]})", text)
    text = _SIZING.sub("", text)
    text = _COMMAND.sub(lambda m: _SYMBOLS.get(m[1], m[0]), text)
    if "\\" in text:
        return None
    text = text.replace("^ᵀ", "ᵀ").replace("^{ᵀ}", "ᵀ")
    text = _SINGLE_BRACES.sub(r"\1\2", text)
    text = " ".join(text.split())
    if text.count("{") != text.count("}") or text.count("(") != text.count(")"):
        return None
    return text


def _accented(accent: str, body: str) -> str:
    mark = _ACCENTS[accent]
    return f"{body}{mark}" if len(body) == 1 else f"{accent}({body})"


def _grouped(part: str) -> str:
    part = part.strip()
    return part if re.fullmatch(r"[\w.′ᵀ^_]+", part) else f"({part})"
