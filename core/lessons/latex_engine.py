"""The pdflatex engine: the reference design's Jinja2 template rendered to LaTeX and
compiled by `pdflatex` (used only where TeX is installed and the setting selects it;
`render.resolve_engine`).

Every value the template prints goes through one escaping filter (the environment's
`finalize`, as autoescape does for HTML): text never reaches TeX as TeX. The only exception is
a formula that `latex_math.is_safe_math` admits (known math commands and environments only, no
list of forbidden ones), passed in as `Latex`; any other formula is shown as its escaped
source. pdflatex runs with shell escape off (`-no-shell-escape`, `shell_escape=f`) and
paranoid file access (`openin_any=p`, `openout_any=p`: no absolute paths, no `..`, no dot
files) in a temporary folder, under a time limit. A formula TeX rejects is found by compiling
each formula alone once the deck fails, and shown as its source on the next run.

The visual profile is never rendered here: pdflatex cannot tag a figure with alt text, so
`render` keeps that profile on Typst."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Mapping
from pathlib import Path

import jinja2

from core.lessons.figures import SlideFigure
from core.lessons.latex_math import is_safe_math
from core.lessons.layout import wrap_chars, wrap_plain
from core.lessons.math import split_inline
from core.lessons.models import Deck, Slide
from core.lessons.profiles import ProfileStyle
from core.lessons.typst_engine import RenderError

PDFLATEX_TIMEOUT_S = 60.0
# kpathsea's settings for the pdflatex process: no shell escape at all, and files opened for
# reading or writing only below the working folder.
PDFLATEX_ENV = {"shell_escape": "f", "openin_any": "p", "openout_any": "p"}
_ESCAPES = {
    "\\": r"\textbackslash{}", "{": r"\{", "}": r"\}", "$": r"\$", "&": r"\&", "%": r"\%",
    "#": r"\#", "_": r"\_", "^": r"\^{}", "~": r"\textasciitilde{}", "<": r"\textless{}",
    ">": r"\textgreater{}", "|": r"\textbar{}", "•": r"\textbullet{}",
}  # fmt: skip

TEMPLATE = r"""
\documentclass{article}
\usepackage[paperwidth=297mm,paperheight=167.0625mm,margin=14mm,top=12mm]{geometry}
\usepackage{cmap}
\usepackage[T1]{fontenc}
\usepackage[utf8]{inputenc}
\usepackage{lmodern}
\usepackage{helvet}
\renewcommand{\familydefault}{\sfdefault}
\usepackage{amsmath,amssymb}
\usepackage{xcolor}
\usepackage{graphicx}
\usepackage{enumitem}
\pagestyle{empty}
\setlength{\parindent}{0pt}
\definecolor{bg}{HTML}{((( style.background )))}
\definecolor{fg}{HTML}{((( style.text_color )))}
\definecolor{muted}{HTML}{((( style.muted_color )))}
\newcommand{\smalltext}{%
  \fontsize{((( style.small_pt )))}{((( style.small_pt * 1.6 )))}\selectfont}
\pagecolor{bg}
\color{fg}
\setlist[itemize]{label=\textbullet, leftmargin=1.2em, itemsep=0.5em}
\begin{document}
\raggedright
((* for s in slides *))
((* if not loop.first *))\newpage((* endif *))
((* if s.marker *))\hfill{\smalltext\color{muted}((( s.marker )))}\par
((* endif *))
{\fontsize{((( style.title_pt )))}{((( style.title_pt * 1.3 )))}\selectfont\bfseries
((* for line in s.title *))((( line )))((* if not loop.last *))\\((* endif *))((* endfor *))\par}
\vspace{0.6em}
{\fontsize{((( style.body_pt * s.scale )))}{((( style.body_pt * s.scale * s.pitch )))}\selectfont
((* if s.bullets *))\begin{itemize}
((* for item in s.bullets *))  \item ((* for line in item *))((* for run in line *))
((*- if not loop.first *)) ((* endif *))
((*- if run.math *))$((( run.math )))$((* elif run.code *))\texttt{((( run.code )))}
((*- else *))((( run.text )))((* endif *))((* endfor *))((* if not loop.last *))\\((* endif *))
((*- endfor *))
((* endfor *))\end{itemize}((* endif *))
((* for f in s.formulas *))
((* if f.math *))\[ ((( f.math ))) \]
((* else *)){\ttfamily\smalltext Formula as written:\\ ((* for line in f.source -*))
((( line )))((* if not loop.last *))\\((* endif *))((* endfor *))\par}
((* endif *))
((* endfor *))
((* if s.widget *)){\smalltext\color{muted}((( s.widget )))\par}((* endif *))
}
((* if s.citations *))\vfill{\smalltext\color{muted}((* for line in s.citations -*))
((( line )))((* if not loop.last *))\\((* endif *))((* endfor *))\par}
((* endif *))
((* endfor *))
\end{document}
"""


class Latex(str):
    """LaTeX that may reach TeX as it is: only formulas `is_safe_math` admitted."""


def _finalize(value: object) -> str:
    """What the template prints: `Latex` as it is, everything else escaped."""
    return value if isinstance(value, Latex) else escape(str(value))


_ENV = jinja2.Environment(
    block_start_string="((*",
    block_end_string="*))",
    variable_start_string="(((",
    variable_end_string=")))",
    comment_start_string="((=",
    comment_end_string="=))",
    autoescape=False,  # LaTeX, not HTML: `finalize` escapes instead
    finalize=_finalize,
    undefined=jinja2.StrictUndefined,
    keep_trailing_newline=True,
)


def escape(text: str) -> str:
    return "".join(_ESCAPES.get(c, c) for c in text)


def render_latex(
    deck: Deck,
    style: ProfileStyle,
    *,
    figures: Mapping[int, SlideFigure],
    widgets: Mapping[int, str],
    marker: bool,
) -> bytes:
    pdflatex = shutil.which("pdflatex")
    if pdflatex is None:
        raise RenderError("pdflatex is not installed")
    rejected: set[str] = set()
    with tempfile.TemporaryDirectory(prefix="coursebot-latex-") as folder:
        root = Path(folder)
        for _ in range(2):
            source = latex_source(deck, style, widgets, marker, rejected)
            pdf, log_text = _run(pdflatex, source, root, "deck")
            if pdf is not None:
                return pdf
            # Find the formulas TeX rejects, show them as source, try once more. Only admitted
            # formulas are tried: the others never reach TeX.
            tried = {m for m in _formulas(deck) - rejected if _math(m, rejected) is not None}
            newly = {m for m in tried if not _compiles(pdflatex, m, root)}
            if not newly:
                raise RenderError(f"pdflatex failed: {_last_error(log_text)}")
            rejected |= newly
    raise RenderError("pdflatex failed twice")


def _formulas(deck: Deck) -> set[str]:
    found = set()
    for slide in deck.slides:
        found.update(slide.math)
        for item in slide.content:
            found.update(v for kind, v in split_inline(item) if kind == "math")
    return found


def _math(formula: str, rejected: set[str]) -> Latex | None:
    """The formula as LaTeX for TeX, or None: shown as its source instead."""
    if formula in rejected or "\n\n" in formula or not is_safe_math(formula):
        return None
    return Latex(formula)


def latex_source(
    deck: Deck, style: ProfileStyle, widgets: Mapping[int, str], marker: bool, rejected: set[str]
) -> str:
    """The deck as LaTeX. Values are handed to the template as plain text (escaped there);
    only admitted formulas go in as `Latex`."""
    width = style.line_chars
    slides = []
    for index, slide in enumerate(deck.slides):
        widget = widgets.get(index)
        slides.append(
            {
                "marker": f"Slide {index + 1} of {len(deck.slides)}" if marker else "",
                "title": wrap_plain(slide.title, width),
                "bullets": [_item(item, width - 2, rejected) for item in slide.content],
                "formulas": [
                    {"math": math, "source": []}
                    if (math := _math(f, rejected)) is not None
                    else {"math": None, "source": wrap_chars(f, width)}
                    for f in slide.math
                ],
                "widget": f"Interactive widget: open {widget}, sent with this PDF."
                if widget
                else "",
                "citations": wrap_plain(_sources(slide), width) if slide.citations else [],
                "scale": 1.0,
                # Baseline distance as a multiple of the size: Typst's leading plus the cap
                # height of the face (0.73 em), so both engines space lines alike.
                "pitch": style.leading_em + 0.73,
            }
        )
    context = {"style": {**_colours(style), **_sizes(style)}, "slides": slides}
    return _ENV.from_string(TEMPLATE).render(**context)


def _item(text: str, width: int, rejected: set[str]) -> list[list[dict[str, object]]]:
    """An item wrapped to `width` characters: lines of runs, each plain text, an admitted
    formula, or a formula shown as its source (`$...$` in a typewriter face)."""
    lines = []
    for line in _wrap_runs(text, width):
        runs: list[dict[str, object]] = []
        for kind, value in line:
            math = _math(value, rejected) if kind == "math" else None
            if math is not None:
                runs.append({"math": math})
            elif kind == "math":
                runs.append({"math": None, "code": f"${value}$"})
            else:
                runs.append({"math": None, "code": None, "text": value})
        lines.append(runs)
    return lines


def _wrap_runs(text: str, width: int) -> list[list[tuple[str, str]]]:
    atoms: list[tuple[str, str]] = []
    for kind, value in split_inline(text):
        atoms += [("math", value)] if kind == "math" else [("text", w) for w in value.split()]
    lines: list[list[tuple[str, str]]] = []
    current: list[tuple[str, str]] = []
    used = 0
    for kind, value in atoms:
        size = len(value) + (2 if kind == "math" else 0)
        if current and used + 1 + size > width:
            lines.append(current)
            current, used = [], 0
        current.append((kind, value))
        used += size + (1 if used else 0)
    if current:
        lines.append(current)
    return lines


def _sources(slide: Slide) -> str:
    labels = list(dict.fromkeys(c.label() for c in slide.citations))
    return "Sources: " + "; ".join(labels) if labels else ""


def _colours(style: ProfileStyle) -> dict[str, str]:
    return {
        name: getattr(style, name).lstrip("#").upper()
        for name in ("background", "text_color", "muted_color")
    }


def _sizes(style: ProfileStyle) -> dict[str, float]:
    return {"small_pt": style.small_pt, "title_pt": style.title_pt, "body_pt": style.body_pt}


def _run(pdflatex: str, source: str, root: Path, name: str) -> tuple[bytes | None, str]:
    (root / f"{name}.tex").write_text(source, encoding="utf-8")
    # Not the bot's environment (tokens, database URLs): a path to find TeX, a home of its own.
    env = {"PATH": os.environ.get("PATH", os.defpath), "HOME": str(root), **PDFLATEX_ENV}
    try:
        subprocess.run(
            [pdflatex, "-no-shell-escape", "-interaction=nonstopmode", "-halt-on-error",
             f"{name}.tex"],
            cwd=root, env=env, capture_output=True, timeout=PDFLATEX_TIMEOUT_S, check=False,
        )  # fmt: skip
    except subprocess.TimeoutExpired:
        return None, "pdflatex timed out"
    log_path = root / f"{name}.log"
    log_text = log_path.read_text("utf-8", "replace") if log_path.exists() else ""
    pdf_path = root / f"{name}.pdf"
    if pdf_path.exists() and "! " not in log_text:
        pdf = pdf_path.read_bytes()
        pdf_path.unlink()
        return pdf, log_text
    return None, log_text


def _compiles(pdflatex: str, formula: str, root: Path) -> bool:
    probe = (
        "\\documentclass{article}\\usepackage{amsmath,amssymb}\\begin{document}\n"
        f"\\[ {formula} \\]\n\\end{{document}}\n"
    )
    pdf, _ = _run(pdflatex, probe, root, "probe")
    return pdf is not None


def _last_error(log_text: str) -> str:
    errors = [line for line in log_text.splitlines() if line.startswith("! ")]
    return errors[0][2:200] if errors else "no error in the log"
