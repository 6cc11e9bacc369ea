"""The pdflatex path takes text only through its escaping filter: a formula reaches TeX only
when every command in it is a known math command (no list of forbidden ones), and pdflatex
runs with shell escape off, paranoid file access and none of the bot's environment. Hostile
input is compiled for real where pdflatex is installed."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from core.lessons import Citation, Deck, Profile, Slide, latex_engine, style_for
from core.lessons.latex_engine import Latex, latex_source
from core.lessons.latex_math import is_safe_math

HOSTILE = [
    r"\input{/etc/passwd}",
    r"\include{/etc/passwd}",
    r"\immediate\write18{touch pwned}",
    r"\write18{touch pwned}",
    r"\providecommand{\x}{\input{/etc/passwd}}\x",
    r"\DeclareRobustCommand{\x}{y}",
    r"\InputIfFileExists{/etc/passwd}{}{}",
    r"\@@input /etc/passwd",
    r"^^5cinput{/etc/passwd}",
    r"\csname input\endcsname{/etc/passwd}",
    r"\text{\input{/etc/passwd}}",
    r"\begin{document}",
    r"\end{document}\input{/etc/passwd}",
    r"x^2 % \end",
    r"\def\x{1}",
    r"#1",
    r"a$ \input{/etc/passwd} $b",
    r"x} \input{/etc/passwd} {",
    r"\frac{1}{2}\newline\openin5=/etc/passwd",
]

needs_pdflatex = pytest.mark.skipif(
    shutil.which("pdflatex") is None, reason="pdflatex is not installed (TeX is not on pip)"
)


def test_the_course_formulas_are_admitted(formula_corpus: list[str]) -> None:
    assert [formula for formula in formula_corpus if not is_safe_math(formula)] == []


@pytest.mark.parametrize("formula", HOSTILE)
def test_a_formula_with_anything_but_math_commands_is_refused(formula: str) -> None:
    assert not is_safe_math(formula)


def test_escaped_specials_and_spacing_stay_math() -> None:
    assert is_safe_math(r"50\% \text{ of } \{a, b\} \, \; x_{i} \\ y")
    assert not is_safe_math(r"x \\% comment")  # a row break, then a comment


def hostile_deck() -> Deck:
    slides = [
        Slide(
            title=r"\input{/etc/passwd} & {braces} % ^^5c",
            content=[r"See $\input{/etc/passwd}$ and \write18{touch pwned} and $x^2$"],
            math=[*HOSTILE[n : n + 7], r"\frac{a}{b}"],
            citations=[Citation(file=r"\jobname.pdf", page=1, section=r"\x", chunk_id="c")],
        )
        for n in range(0, len(HOSTILE), 7)
    ]
    return Deck(topic="t", slides=slides)


def body(source: str) -> str:
    return source.split(r"\begin{document}", 1)[1]


def test_every_value_reaches_the_template_escaped_and_only_admitted_math_as_latex() -> None:
    source = latex_source(hostile_deck(), style_for(Profile.STANDARD), {0: r"\x.html"}, True, set())

    commands = set(re.findall(r"\\([A-Za-z@]+)", body(source)))
    template = {"end", "document", "newpage", "hfill", "smalltext", "color", "par", "fontsize"}
    template |= {"selectfont", "bfseries", "vspace", "begin", "itemize", "item", "texttt"}
    template |= {"ttfamily", "vfill", "textbackslash", "textasciitilde", "frac", "raggedright"}
    assert commands - template == set()
    assert r"\[ \frac{a}{b} \]" in source and "$x^2$" in source
    assert r"\textbackslash{}input\{/etc/passwd\} \& \{braces\} \% \^{}\^{}5c" in source


def test_the_filter_escapes_whatever_is_not_marked_latex() -> None:
    assert latex_engine._finalize(r"\input{x}") == r"\textbackslash{}input\{x\}"
    assert latex_engine._finalize(Latex(r"\frac{1}{2}")) == r"\frac{1}{2}"
    assert latex_engine._finalize(28.0) == "28.0"


def test_pdflatex_runs_without_shell_escape_with_paranoid_files_and_no_secrets(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: dict[str, object] = {}

    def run(command: list[str], **options: object) -> subprocess.CompletedProcess[bytes]:
        seen.update(options, command=command)
        return subprocess.CompletedProcess(command, 1)

    monkeypatch.setenv("COURSEBOT_TELEGRAM_TOKEN", "123:secret")
    monkeypatch.setattr(subprocess, "run", run)

    latex_engine._run("/usr/bin/pdflatex", "x", tmp_path, "deck")

    env = seen["env"]
    assert isinstance(env, dict)
    assert env["shell_escape"] == "f"
    assert env["openin_any"] == env["openout_any"] == "p"
    assert not [name for name in env if name.startswith("COURSEBOT_")]
    assert "-no-shell-escape" in seen["command"]  # type: ignore[operator]
    assert seen["cwd"] == tmp_path


@needs_pdflatex
def test_hostile_tex_run_by_the_engine_reads_and_writes_nothing_outside_its_folder(
    tmp_path: Path,
) -> None:
    """The second wall, tried on raw TeX as if the first had a hole: no shell, no file
    outside the working folder read or written."""
    outside = tmp_path / "outside"
    outside.mkdir()
    secret = outside / "secret.txt"
    secret.write_text("the-secret-line\n")
    work = tmp_path / "work"
    work.mkdir()
    source = (
        "\\documentclass{article}\\begin{document}\n"
        f"\\newread\\secret\\openin\\secret={secret} \n"
        "\\ifeof\\secret\\typeout{CLOSED}\\else\\read\\secret to\\line\\typeout{OPEN:\\line}\\fi\n"
        "\\immediate\\write18{touch pwned}\n"
        "\\newwrite\\out\\immediate\\openout\\out=../escaped.tex "
        "\\immediate\\write\\out{x}\\immediate\\closeout\\out\n"
        "text\\end{document}\n"
    )

    latex_engine._run(shutil.which("pdflatex") or "", source, work, "hostile")

    log = (work / "hostile.log").read_text("utf-8", "replace")
    assert "CLOSED" in log and "the-secret-line" not in log
    assert not (work / "pwned").exists()
    assert not (tmp_path / "escaped.tex").exists()


@needs_pdflatex
def test_a_hostile_deck_renders_without_reading_any_file(tmp_path: Path) -> None:
    pdf = latex_engine.render_latex(
        hostile_deck(), style_for(Profile.STANDARD), figures={}, widgets={}, marker=False
    )
    assert pdf.startswith(b"%PDF")
    assert b"root:x:0:0" not in pdf
