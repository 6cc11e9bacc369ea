"""How long lesson rendering takes, per slide and per deck, on each engine: a deck per
reading profile, then each engine's median over its profiles; and each formula of a
course-material corpus on its own (LaTeX to Typst conversion plus the Typst probe compile
that decides whether it typesets), plus the PDF checks.

Each deck is the extractive deck built from small sample chunks (four sections, display and
inline math), rendered `--repeat` times; the median is printed in ms per deck and per slide.
Typst is always timed; pdflatex where it is installed, and otherwise one line says it was
not measured. Nothing is asserted.

Then, on the real teaching courses (`../shared/datasets/teaching`, skipped with a line when
absent): the share of their formulas (`$…$`, `$$…$$`, `\\(…\\)` and Markdown's escaped
`\\\\(…\\\\)`) that typeset, and over one extractive deck per topic and profile (the courses'
own chunks, ranked by shared words): bullets cut with "…", bullets or titles printing source
markup, recap points that are slide titles, and the PDF checks failed.

Run: python bench/lessons.py [--repeat 5] [--slides 3-6] [--teaching DIR]"""

from __future__ import annotations

import argparse
import logging
import re
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import structlog

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from core.index.chunk_index import SearchHit
from core.index.payload import ChunkRecord
from core.lessons import (
    Engine,
    Profile,
    SlideBounds,
    build_extractive_deck,
    check_pdf,
    pdflatex_available,
    render_deck,
)
from core.lessons.math import _convert, to_typst
from core.lessons.typst_engine import RenderError

ROOT = Path(__file__).resolve().parents[1]
TEACHING = ROOT.parent / "shared/datasets/teaching"
_SOURCE_MATH = re.compile(
    r"\$\$(.+?)\$\$|\\\\\[(.+?)\\\\\]|\\\[(.+?)\\\]|\\\\\((.+?)\\\\\)|\\\((.+?)\\\)"
    r"|(?<![\\$])\$([^$\n]+?)(?<!\\)\$",
    re.S,
)
_MARKUP = re.compile(r"\]\(|!\[|:(?:label|numref|eqref|cite|eqlabel):|^\||\|\s*$|\*\*|`")

CHUNKS = [
    ("calculus-week3.pdf", 4, "The derivative",
     "The derivative of a function measures how fast its value changes. Formally, the "
     "derivative of $f$ at $a$ is a limit: $$f'(a) = \\lim_{h \\to 0} \\frac{f(a+h) - f(a)}{h}$$ "
     "If this limit exists, $f$ is differentiable at $a$. Geometrically, $f'(a)$ is the slope "
     "of the tangent line at $(a, f(a))$."),
    ("calculus-week3.pdf", 5, "Rules of differentiation",
     "- The power rule: the derivative of $x^n$ is $n x^{n-1}$.\n- The product rule: "
     "$(fg)' = f'g + fg'$.\n- The chain rule differentiates a composition. "
     "\\[ \\frac{d}{dx} f(g(x)) = f'(g(x))\\, g'(x) \\]\n- Derivatives of sums are sums of "
     "derivatives."),
    ("calculus-week3.pdf", 6, "Derivatives and motion",
     "Velocity is the derivative of position with respect to time. Acceleration is the "
     "derivative of velocity; it is the second derivative of position."),
    ("lecture-notes.md", None, "Common mistakes",
     "Students often forget the chain rule when differentiating $\\sin(x^2)$. The derivative "
     "of a constant is zero, not the constant itself."),
]  # fmt: skip

FORMULAS = [
    r"\frac{a}{b} + \dfrac{1}{1+x^2}", r"\lim_{x \to 0} \frac{\sin x}{x} = 1",
    r"\sum_{k=1}^{n} k = \frac{n(n+1)}{2}", r"\int_0^1 x^2 \, dx = \frac{1}{3}",
    r"\oint_C \vec{F} \cdot d\vec{r}", r"\begin{pmatrix} a & b \\ c & d \end{pmatrix}",
    r"A = \begin{bmatrix} 1 & 0 & 0 \\ 0 & 1 & 0 \\ 0 & 0 & 1 \end{bmatrix}",
    r"|x| = \begin{cases} x & \text{if } x \ge 0 \\ -x & \text{otherwise} \end{cases}",
    r"\begin{aligned} f(x) &= (x+1)^2 \\ &= x^2 + 2x + 1 \end{aligned}",
    r"\alpha + \beta = \gamma, \quad \Delta \Omega \varepsilon \theta",
    r"\hat{x}, \bar{y}, \tilde{z}, \dot{q}, \vec{v}", r"x_i^2 + y_{ij}^{n+1}",
    r"\frac{\partial^2 u}{\partial t^2} = c^2 \nabla^2 u",
    r"x = \frac{-b \pm \sqrt{b^2-4ac}}{2a}", r"\prod_{i=1}^{n} (1 + x_i)",
    r"\binom{n}{k} = \frac{n!}{k!(n-k)!}", r"e^{i\pi} + 1 = 0",
    r"\mathbb{R}^n, \mathbf{x} \in \mathcal{X}", r"P(A \mid B) = \frac{P(B \mid A) P(A)}{P(B)}",
    r"\overline{AB}, \underline{x}", r"\frac{1}{",
]  # fmt: skip


def _hits() -> list[SearchHit]:
    return [
        SearchHit(
            chunk=ChunkRecord(
                id=f"c{n}",
                course_id="sample",
                document_id=f"sample/{name}",
                file_name=name,
                text=text,
                page=page,
                section=section,
                kind="notes",
                visibility="public",
                owner_id=None,
                chunk_index=n,
            ),
            score=1.0 - n / 10,
        )
        for n, (name, page, section, text) in enumerate(CHUNKS)
    ]


def _median_ms(run: Callable[[], object], repeat: int) -> tuple[float, object]:
    times, result = [], None
    for _ in range(repeat):
        started = time.perf_counter()
        result = run()
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times), result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=5, help="renders per deck (median kept)")
    parser.add_argument("--slides", default="3-6", help="slide bounds of each deck, e.g. 3-6")
    parser.add_argument("--teaching", type=Path, default=TEACHING, help="teaching courses")
    args = parser.parse_args(argv)
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING))
    bounds = SlideBounds.parse(args.slides)
    engines = [Engine.TYPST] + ([Engine.PDFLATEX] if pdflatex_available() else [])
    per_engine: dict[Engine, list[tuple[float, int]]] = {engine: [] for engine in engines}
    render_deck(build_extractive_deck("derivatives", _hits(), bounds=bounds))  # warm fonts

    print(f"decks ({args.slides} slides, median of {args.repeat})")
    print(f"{'engine':<9} {'profile':<9} {'slides':>6} {'ms/deck':>9} {'ms/slide':>9} "
          f"{'check ms':>9} {'KiB':>6} problems")  # fmt: skip
    for engine in engines:
        for profile in Profile:
            deck = build_extractive_deck("derivatives", _hits(), profile=profile, bounds=bounds)
            if engine is Engine.PDFLATEX and profile is Profile.VISUAL:
                continue  # rendered by Typst whatever the setting (figures need alt text)
            ms, pdf = _median_ms(lambda d=deck, e=engine: render_deck(d, engine=e), args.repeat)
            assert isinstance(pdf, bytes)
            check_ms, problems = _median_ms(lambda p=pdf, f=profile: check_pdf(p, f), 1)
            n = len(deck.slides)
            per_engine[engine].append((ms, n))
            print(f"{engine.value:<9} {profile.value:<9} {n:>6} {ms:>9.1f} {ms / n:>9.1f} "
                  f"{check_ms:>9.1f} {len(pdf) / 1024:>6.0f} {len(problems)}")  # fmt: skip

    print(f"\nper engine (median over its profiles, {args.slides} slides)")
    print(f"{'engine':<9} {'ms/deck':>9} {'ms/slide':>9}")
    for engine, runs in per_engine.items():
        deck_ms = statistics.median(ms for ms, _ in runs)
        slide_ms = statistics.median(ms / n for ms, n in runs)
        print(f"{engine.value:<9} {deck_ms:>9.1f} {slide_ms:>9.1f}")
    if Engine.PDFLATEX not in per_engine:
        print("pdflatex  not measured: pdflatex is not installed on this machine")

    print("\nformulas (conversion + Typst probe compile, uncached, median of 5)")
    print(f"{'ms':>7}  typesets  formula")
    total = []
    for formula in FORMULAS:

        def convert(f: str = formula) -> object:
            _convert.cache_clear()
            return _convert(f)

        ms, result = _median_ms(convert, 5)
        total.append(ms)
        ok = getattr(result, "ok", False)
        print(f"{ms:>7.2f}  {'yes' if ok else 'SOURCE':<8}  {formula[:60]}")
    print(f"median {statistics.median(total):.2f} ms, max {max(total):.2f} ms per formula")
    teaching(args.teaching)
    return 0


def teaching(folder: Path) -> None:
    """Formulas and decks of the real teaching courses (see the module's docstring)."""
    if not folder.is_dir():
        print(f"\nteaching courses: not found at {folder}; skipped")
        return
    from core.embedding.minilm_onnx import MiniLMOnnxEmbedder
    from ingestion.chunking import chunk_document
    from ingestion.loaders.markdown import load_markdown

    embedder = MiniLMOnnxEmbedder()
    print("\nteaching courses (formulas typeset; decks per topic x profile, 3-8 slides)")
    print(f"{'course':<15} {'formulas':>13} {'decks':>5} {'cut …':>5} {'markup':>6} "
          f"{'title recap':>11} {'failing PDFs':>12} {'tables':>6}")  # fmt: skip
    for course_dir in sorted(p for p in folder.iterdir() if (p / "courses").is_dir()):
        files = sorted((course_dir / "courses" / course_dir.name).glob("*.md"))
        formulas = [
            " ".join(next(g for g in m.groups() if g is not None).split())
            for f in files
            for m in _SOURCE_MATH.finditer(re.sub(r"```.*?```", "", f.read_text(), flags=re.S))
        ]
        typeset = sum(1 for f in formulas if to_typst(f).ok)
        records = []
        for path in files:
            document = load_markdown(path, path.name)
            for chunk in chunk_document(
                document, course_dir.name, embedder.count_tokens, embedder.max_tokens
            ):
                records.append(ChunkRecord(
                    id=f"{path.stem}-{chunk.index}", course_id=course_dir.name,
                    document_id=path.stem, file_name=path.name, text=chunk.passage or chunk.text,
                    page=chunk.page, section=chunk.section, kind="lecture", visibility="public",
                    owner_id=None, chunk_index=chunk.index,
                ))  # fmt: skip
        topics = [t for t in (course_dir / "topics.txt").read_text().splitlines() if t.strip()]
        decks = cut = markup = titled = failing = tables = 0
        for topic in topics:
            hits = _by_words(records, topic)
            for profile in Profile:
                deck = build_extractive_deck(topic, hits, profile=profile, bounds=SlideBounds(3, 8))
                decks += 1
                texts = [t for slide in deck.slides for t in (slide.title, *slide.content)]
                cut += sum(t.endswith("…") for t in texts)
                markup += sum(bool(_MARKUP.search(re.sub(r"\$[^$]*\$", "", t))) for t in texts)
                recap = deck.slides[-1]
                titled += len({s.title for s in deck.slides[:-1]} & set(recap.content))
                tables += sum(len(s.tables) for s in deck.slides)
                try:
                    failing += bool(check_pdf(render_deck(deck), profile))
                except RenderError:
                    failing += 1
                    print(f"  {topic!r} {profile.value}: the deck does not fit its pages")
        print(f"{course_dir.name:<15} {typeset:>5}/{len(formulas):<7} {decks:>5} {cut:>5} "
              f"{markup:>6} {titled:>11} {failing:>12} {tables:>6}")  # fmt: skip


def _by_words(records: list[ChunkRecord], topic: str, k: int = 16) -> list[SearchHit]:
    def words(text: str) -> set[str]:
        return {w for w in re.findall(r"[a-z]{3,}", text.lower()) if w not in {"and", "the"}}

    wanted = words(topic)
    scored = sorted(
        ((len(wanted & words(r.text)) / (len(wanted) or 1), r) for r in records),
        key=lambda pair: -pair[0],
    )
    return [SearchHit(chunk=r, score=score) for score, r in scored[:k] if score > 0]


if __name__ == "__main__":
    sys.exit(main())
