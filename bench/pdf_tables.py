"""PDF tables on the syllabusqa-dev corpus: how many the loader finds, how fast it reads the
PDFs, which questions have their gold span in a detected table, and how two eval runs did
on those questions.

A question is a table question when one of its gold spans is covered (the eval's 80% token
rule, `core.evaluation.metrics.span_in_chunk`) by the header and at most three consecutive
rows of one detected table. Run:

  python bench/pdf_tables.py [DATASET_DIR] [--ids-out FILE] [--runs BEFORE.json AFTER.json …]

with eval runs written by `coursebot eval DATASET --answers --json OUT`; for each it prints
answer_span_hit and span_hit@5 over the table questions and over all of them. The loader
timing is load_pdf alone (no embedding), wall time on this machine."""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from core.evaluation.metrics import span_in_chunk
from ingestion.documents import BlockKind, Table
from ingestion.loaders.pdf import load_pdf

DEFAULT_DATASET = Path("/work/shared/datasets/syllabusqa-dev")
ROWS_PER_WINDOW = 3


def windows(table: Table) -> list[str]:
    """The table's header with each run of up to ROWS_PER_WINDOW rows."""
    rows = table.rows
    return [
        table.render(rows[start : start + size])
        for size in range(1, ROWS_PER_WINDOW + 1)
        for start in range(max(len(rows) - size + 1, 0))
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("dataset", nargs="?", type=Path, default=DEFAULT_DATASET)
    parser.add_argument("--ids-out", type=Path, help="write the table questions' ids here")
    parser.add_argument("--runs", type=Path, nargs="*", default=[], help="eval --json files")
    args = parser.parse_args()

    tables: dict[str, list[Table]] = {}
    pages = 0
    started = time.perf_counter()
    for course in sorted((args.dataset / "courses").iterdir()):
        for path in sorted(course.glob("*.pdf")):
            document = load_pdf(path, path.name)
            pages += document.page_count
            tables.setdefault(course.name, []).extend(
                block.table
                for block in document.blocks
                if block.kind is BlockKind.TABLE and block.table is not None
            )
    seconds = time.perf_counter() - started
    found = sum(map(len, tables.values()))
    print(f"load_pdf: {pages} pages in {seconds:.1f}s, {pages / seconds:.1f} pages/s")
    print(f"tables: {found} in {sum(1 for t in tables.values() if t)} of {len(tables)} courses")

    questions = [
        json.loads(line)
        for line in (args.dataset / "questions.jsonl").read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]
    with_spans = [q for q in questions if q.get("gold_spans")]
    in_tables = [
        q["id"]
        for q in with_spans
        if any(
            span_in_chunk(span, text)
            for table in tables.get(q["course"], [])
            for text in windows(table)
            for span in q["gold_spans"]
        )
    ]
    print(f"table questions: {len(in_tables)} of {len(with_spans)} with gold spans")
    print("ids: " + " ".join(in_tables))
    if args.ids_out:
        args.ids_out.write_text("\n".join(in_tables) + "\n", encoding="utf-8")

    chosen = set(in_tables)
    for run in args.runs:
        results = json.loads(run.read_text(encoding="utf-8"))["questions"]
        print(f"{run.name}: " + "  ".join(_figures(results, chosen)))


def _figures(results: list[dict], chosen: set[str]) -> list[str]:
    figures = []
    for name, subset in (
        ("tables", [r for r in results if r["id"] in chosen]),
        ("all", results),
    ):
        for metric in ("answer_span_hit", "span_hit@5"):
            flags = [r[metric] for r in subset if r.get(metric) is not None]
            share = sum(flags) / len(flags) if flags else float("nan")
            figures.append(f"{name} {metric}={share:.3f} (n={len(flags)})")
    return figures


if __name__ == "__main__":
    main()
