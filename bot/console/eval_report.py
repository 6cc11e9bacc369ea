"""How `coursebot eval` shows its results: a per-type table, the one-line summary (the last
line of stdout, parsed by scripts), the JSON report, and a progress bar while asking."""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from bot.common.wording import plural
from bot.evaluation import EvalResult
from core.evaluation import Metrics, QuestionResult
from core.material import FileStatus

MISSING = "-"
OVERALL = "all"


def format_metric(name: str, value: float | int) -> str:
    """Counts and mean character counts as integers, latencies with 1 decimal, rates with 3."""
    if name == "n":
        return str(value)
    if name.endswith("_chars"):
        return f"{value:.0f}"
    if name.endswith(("_ms", "_quotes")):
        return f"{value:.1f}"
    return f"{value:.3f}"


def summary_line(metrics: Metrics) -> str:
    """`eval: n=… source_hit@1=… …`, leaving out the figures that were not computed."""
    fields = (
        f"{name}={format_metric(name, value)}"
        for name, value in metrics.named().items()
        if value is not None
    )
    return "eval: " + " ".join(fields)


def render_table(result: EvalResult) -> str:
    """One row per question type and an overall row; columns only for computed figures."""
    rows = [*result.by_type.items(), (OVERALL, result.overall)]
    names = [
        name for name in result.overall.named() if any(m.named()[name] is not None for _, m in rows)
    ]
    header = ["type", *names]
    body = [[kind, *(_cell(m, name) for name in names)] for kind, m in rows]
    widths = [max(len(row[i]) for row in [header, *body]) for i in range(len(header))]

    def line(cells: list[str]) -> str:
        first = cells[0].ljust(widths[0])
        rest = (cell.rjust(width) for cell, width in zip(cells[1:], widths[1:], strict=True))
        return "  ".join([first, *rest])

    rule = "  ".join("-" * width for width in widths)
    return "\n".join([line(header), rule, *(line(row) for row in body[:-1]), rule, line(body[-1])])


def _cell(metrics: Metrics, name: str) -> str:
    value = metrics.named()[name]
    return MISSING if value is None else format_metric(name, value)


def render_header(result: EvalResult) -> str:
    options = result.options
    index = str(options.index_dir) if options.index_dir else "temporary"
    courses = len({q.course for q in result.questions})
    mode = f"answers with k={options.k}" if options.answers else f"k={options.k}"
    budget = f"budget {options.budget} chars" if options.budget else "no budget"
    # An index created before unit vectors ranks by chunk vectors: the figures differ.
    vectors = "unit vectors" if result.config.unit_vectors else "chunk vectors only"
    return (
        f"{result.dataset.name}: {len(result.questions)} questions in {courses} courses · "
        f"variant {options.variant} · {mode} · {budget} · {vectors} · index {index} · "
        f"ingest {result.ingest_s:.1f} s · ask {result.ask_s:.1f} s"
    )


def render_ingest_summary(result: EvalResult) -> str:
    statuses = [r.status for course in result.ingested for r in course.report.results]
    chunks = sum(course.report.chunks for course in result.ingested)
    counts = ", ".join(f"{statuses.count(s)} {s.value}" for s in FileStatus)
    return (
        f"ingested {plural(len(statuses), 'file')} in {plural(len(result.ingested), 'course')} "
        f"({counts}; {plural(chunks, 'new chunk')})"
    )


def report_json(result: EvalResult) -> dict[str, Any]:
    """The whole run as JSON-ready data: its configuration, overall and per-type figures,
    questions."""
    options = result.options
    return {
        "dataset": str(result.dataset),
        "variant": options.variant,
        "k": options.k,
        "budget": options.budget,
        "answers": options.answers,
        "index": str(options.index_dir) if options.index_dir else None,
        "config": _jsonable(result.config),
        "ingest_s": round(result.ingest_s, 3),
        "ask_s": round(result.ask_s, 3),
        "overall": _metrics_json(result.overall),
        "by_type": {kind: _metrics_json(m) for kind, m in result.by_type.items()},
        "warnings": list(result.warnings),
        "questions": [_question_json(q) for q in result.questions],
    }


def _metrics_json(metrics: Metrics) -> dict[str, Any]:
    return metrics.named() | {
        "n_sources": metrics.n_sources,
        "n_spans": metrics.n_spans,
        "n_answerable": metrics.n_answerable,
        "n_unanswerable": metrics.n_unanswerable,
        "n_answer_spans": metrics.n_answer_spans,
        "n_grounded": metrics.n_grounded,
        "n_key_facts": metrics.n_key_facts,
    }


def _question_json(result: QuestionResult) -> dict[str, Any]:
    score = result.score
    return {
        "id": result.id,
        "course": result.course,
        "type": result.type,
        "answerable": result.answerable,
        "retrieved": list(result.retrieved),
        "source_hit@1": score.source_hit_1,
        "source_hit@5": score.source_hit_5,
        "rr@10": score.reciprocal_rank,
        "span_hit@5": score.span_hit_5,
        "ctx_chars": result.ctx_chars,
        "latency_ms": None if result.latency_ms is None else round(result.latency_ms, 3),
        "grounded": result.grounded,
        "support": _jsonable(result.support),
        "evidence": result.evidence,
        "answer": result.answer,
        "answer_chars": result.answer_chars,
        "answer_span_hit": result.answer_span_hit,
        "first_quote_hit": result.first_quote_hit,
        "answer_quotes": result.answer_quotes,
        "key_facts": result.key_facts,
        "error": result.error,
    }


def _jsonable(value: object) -> Any:
    """An answer's `support`, whatever its type, as JSON data."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, enum.Enum):
        return _jsonable(value.value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _jsonable(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [_jsonable(v) for v in value]
    if hasattr(value, "item"):  # numpy scalars
        return _jsonable(value.item())
    return str(value)


@contextmanager
def question_progress_bar(console: Console) -> Iterator[Callable[[int, int], None]]:
    bar = Progress(
        TextColumn("[bold]asking"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("questions"),
        TimeElapsedColumn(),
        console=console,
        transient=False,
    )
    task = bar.add_task("asking", total=None)

    def update(done: int, total: int) -> None:
        bar.update(task, total=total, completed=done)

    with bar:
        yield update
