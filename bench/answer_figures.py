"""The quoted answers' figures on one fixed evaluation set, printed together, so that a change
to answer composition is kept only when it lowers none of them.

The set: syllabusqa-dev's table questions (their ids from `bench/pdf_tables.py --ids-out`),
a fixed sample of its other questions with gold spans (the first --others by a hash of their
id: the same questions on every run and branch), and every question of each teaching course
given. Each dataset is asked as `coursebot eval DATASET --answers --budget 4000` would ask it,
on an index kept under --index-root (ingested once, then reused). Prints, per group,
answer_span_hit, first_quote_hit, quotes per grounded answer, span_hit@5 and wrong_abstain;
with --save the per-question records (answers included) for `--compare` on a later run,
which prints each figure's change and the questions won and lost.

Run: python bench/answer_figures.py --table-ids IDS [--teaching DIR ...] [--save RUN.json]
[--compare BEFORE.json]"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

from bot.console.eval_report import report_json
from bot.evaluation import EvalOptions, load_dataset
from bot.evaluation.runner import EvalDataset, run_eval
from config import load_settings

SYLLABUS = Path("/work/shared/datasets/syllabusqa-dev")
TEACHING = (
    Path("/work/shared/datasets/teaching/cs231n-notes"),
    Path("/work/shared/datasets/teaching/d2l-dl-basics"),
)
BUDGET = 4000
FIGURES = ("answer_span_hit", "first_quote_hit", "answer_quotes", "span_hit@5")


def _sample_key(question_id: str) -> str:
    return hashlib.sha256(question_id.encode()).hexdigest()


def syllabus_groups(root: Path, table_ids: set[str], others: int) -> dict[str, EvalDataset]:
    """The table questions and the fixed sample of the other questions with gold spans."""
    dataset = load_dataset(root)
    tables = tuple(q for q in dataset.questions if q.id in table_ids)
    rest = sorted(
        (q for q in dataset.questions if q.gold_spans and q.id not in table_ids),
        key=lambda q: _sample_key(q.id),
    )[:others]
    return {
        "tables": replace(dataset, questions=tables),
        "others": replace(dataset, questions=tuple(rest)),
    }


async def _run(groups: dict[str, tuple[EvalDataset, Path]]) -> dict[str, list[dict[str, Any]]]:
    settings = load_settings()
    records: dict[str, list[dict[str, Any]]] = {}
    for name, (dataset, index) in groups.items():
        options = EvalOptions(answers=True, index_dir=index, budget=BUDGET)
        result = await run_eval(dataset, settings, options)
        records[name] = report_json(result)["questions"]
    return records


def _figures(records: list[dict[str, Any]]) -> dict[str, float]:
    figures: dict[str, float] = {}
    for metric in FIGURES:
        grounded_only = metric == "answer_quotes"
        values = [
            float(r[metric])
            for r in records
            if r.get(metric) is not None and (r.get("grounded") or not grounded_only)
        ]
        figures[metric] = sum(values) / len(values) if values else float("nan")
    answerable = [r for r in records if r["answerable"] and r.get("grounded") is not None]
    figures["wrong_abstain"] = sum(not r["grounded"] for r in answerable) / max(len(answerable), 1)
    return figures


def _line(name: str, records: list[dict[str, Any]], before: list[dict[str, Any]] | None) -> str:
    now = _figures(records)
    was = _figures(before) if before is not None else {}
    cells = []
    for metric, value in now.items():
        cell = f"{metric}={value:.3f}"
        if metric in was:
            cell += f" ({value - was[metric]:+.3f})"
        cells.append(cell)
    return f"{name:<14} n={len(records):<4} " + "  ".join(cells)


def _changes(name: str, records: list[dict[str, Any]], before: list[dict[str, Any]]) -> list[str]:
    old = {r["id"]: r for r in before}
    lines = []
    for r in records:
        was = old.get(r["id"])
        if was is None or was.get("answer_span_hit") == r.get("answer_span_hit"):
            continue
        sign = "+" if r.get("answer_span_hit") else "-"
        lines.append(f"  {sign} {name} {r['id']}")
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--syllabus", type=Path, default=SYLLABUS)
    parser.add_argument("--table-ids", type=Path, required=True)
    parser.add_argument("--others", type=int, default=300)
    parser.add_argument("--teaching", type=Path, nargs="*", default=list(TEACHING))
    parser.add_argument("--index-root", type=Path, default=Path("/tmp/coursebot-answer-figures"))
    parser.add_argument("--save", type=Path, help="write the per-question records here")
    parser.add_argument("--compare", type=Path, help="a --save file of an earlier run")
    args = parser.parse_args()
    if not args.table_ids.is_file():
        print(f"answer_figures: no table ids file at {args.table_ids}", file=sys.stderr)
        return 2
    table_ids = set(args.table_ids.read_text(encoding="utf-8").split())
    index = args.index_root / args.syllabus.name
    groups = {
        name: (dataset, index)
        for name, dataset in syllabus_groups(args.syllabus, table_ids, args.others).items()
    }
    for course in args.teaching:
        groups[course.name] = (load_dataset(course), args.index_root / course.name)
    records = asyncio.run(_run(groups))
    before = json.loads(args.compare.read_text(encoding="utf-8")) if args.compare else {}
    for name, found in records.items():
        print(_line(name, found, before.get(name)))
    for name, found in records.items():
        if name in before:
            print("\n".join(_changes(name, found, before[name])))
    if args.save:
        args.save.write_text(json.dumps(records, ensure_ascii=False, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
