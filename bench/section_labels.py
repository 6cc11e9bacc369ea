"""section_label_accuracy (issue #31): the share of the labelled gold spans of syllabusqa-dev
whose chunk's section label names the heading a reader sees above the span (the fixture
tests/fixtures/section_labels/syllabusqa_dev.jsonl, labelled by reading the PDFs). Each
document is loaded and chunked as ingestion does, with no index or embedding. Prints the
figure, the same share for the loaded blocks before chunking (block_label_accuracy: what the
loader's heading detection gets right, apart from how chunks are labelled), the misses
grouped by cause (where along load -> chunk the heading was lost), and each miss: file, page,
the span's start, the gold heading, the chunk's label and, where it differs, the label of the
block holding the span.

To see what a change to the loader or the chunker wins and loses, save a run before it and
compare after it:

    python bench/section_labels.py --save /tmp/before.json      # on main
    python bench/section_labels.py --compare /tmp/before.json   # on the branch

Usage: python bench/section_labels.py [--dataset DIR] [--fixture FILE] [--save FILE]
[--compare FILE]"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from pathlib import Path

from bot.evaluation.section_labels import (
    SYLLABUSQA_CASES,
    SectionLabelRun,
    load_cases,
    measure_section_labels,
)
from core.evaluation.section_labels import MissCause, SectionLabelCase, SectionLabelResult

DATASET = Path("/work/shared/datasets/syllabusqa-dev")
SPAN_START = 50


def report(run: SectionLabelRun) -> str:
    results = run.results
    hits = sum(result.hit for result in results)
    block_hits = sum(result.block_hit for result in results)
    lines = [
        f"section_label_accuracy={_rate(run.accuracy)} ({hits}/{len(results)})",
        f"block_label_accuracy={_rate(run.block_accuracy)} ({block_hits}/{len(results)})"
        "  (the loader's sections before chunking: the span's block names the heading)",
    ]
    misses: dict[MissCause, list[tuple[SectionLabelResult, str]]] = defaultdict(list)
    for result, span in zip(results, run.spans, strict=True):
        if result.cause is not None:
            misses[result.cause].append((result, span))
    for cause in sorted(misses, key=lambda c: -len(misses[c])):
        lines.append("")
        lines.append(f"{len(misses[cause])} misses: {cause.value}")
        lines.extend(_line(result, span) for result, span in misses[cause])
    return "\n".join(lines)


def _line(result: SectionLabelResult, span: str) -> str:
    block = "" if result.block_label == result.label else f" | block: {result.block_label!r}"
    return f"{_where(result.case, span)} | label: {result.label!r}{block}"


def _where(case: SectionLabelCase, span: str) -> str:
    start = " ".join(span.split())[:SPAN_START]
    return f"  {case.file} p{case.page} | {start!r} | gold: {case.heading!r}"


def _rate(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def saved(run: SectionLabelRun) -> list[dict[str, object]]:
    """Each case's outcome, for a later --compare."""
    return [
        {
            "question_id": r.case.question_id,
            "span_index": r.case.span_index,
            "label": r.label,
            "hit": r.hit,
            "block_label": r.block_label,
            "block_hit": r.block_hit,
        }
        for r in run.results
    ]


def comparison(run: SectionLabelRun, before: list[dict[str, object]]) -> str:
    """The cases whose chunk or block label flipped since the saved run."""
    earlier = {(str(row["question_id"]), row["span_index"]): row for row in before}
    lines: list[str] = []
    for level, field, label_field in (
        ("chunk", "hit", "label"),
        ("block", "block_hit", "block_label"),
    ):
        flips: dict[str, list[str]] = {"lost": [], "won": []}
        for result, span in zip(run.results, run.spans, strict=True):
            old = earlier.get(_key(result.case))
            if old is None:
                continue
            now = result.hit if field == "hit" else result.block_hit
            if bool(old[field]) == now:
                continue
            label = result.label if field == "hit" else result.block_label
            flips["won" if now else "lost"].append(
                f"{_where(result.case, span)} | {level}: {label!r} | was: {old[label_field]!r}"
            )
        for kind in ("lost", "won"):
            lines.append(f"{level} labels {kind} since the saved run: {len(flips[kind])}")
            lines.extend(flips[kind])
    return "\n".join(lines)


def _key(case: SectionLabelCase) -> tuple[str, int]:
    return case.question_id, case.span_index


def main() -> None:
    parser = argparse.ArgumentParser(description="section_label_accuracy on syllabusqa-dev")
    parser.add_argument("--dataset", type=Path, default=DATASET)
    parser.add_argument("--fixture", type=Path, default=SYLLABUSQA_CASES)
    parser.add_argument("--save", type=Path, help="write each case's outcome to this JSON file")
    parser.add_argument("--compare", type=Path, help="list the flips since a --save file")
    args = parser.parse_args()
    run = measure_section_labels(args.dataset, load_cases(args.fixture))
    print(report(run))
    if args.compare:
        print()
        print(comparison(run, json.loads(args.compare.read_text(encoding="utf-8"))))
    if args.save:
        args.save.write_text(json.dumps(saved(run), indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
