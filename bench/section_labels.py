"""section_label_accuracy (issue #31): the share of the labelled gold spans of syllabusqa-dev
whose chunk's section label names the heading a reader sees above the span (the fixture
tests/fixtures/section_labels/syllabusqa_dev.jsonl, labelled by reading the PDFs). Each
document is loaded and chunked as ingestion does, with no index or embedding. Prints the
figure, the same share for the loaded blocks before chunking (block_label_accuracy: what the
loader's heading detection gets right, apart from how chunks are labelled), the misses
grouped by cause (where along load -> chunk the heading was lost), and each miss: file, page,
the span's start, the gold heading, the chunk's label and, where it differs, the label of the
block holding the span.

Usage: python bench/section_labels.py [DATASET_DIR [FIXTURE]]"""

from __future__ import annotations

import sys
from collections import defaultdict
from pathlib import Path

from bot.evaluation.section_labels import (
    SYLLABUSQA_CASES,
    SectionLabelRun,
    load_cases,
    measure_section_labels,
)
from core.evaluation.section_labels import MissCause, SectionLabelResult

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
        for result, span in misses[cause]:
            case = result.case
            start = " ".join(span.split())[:SPAN_START]
            lines.append(
                f"  {case.file} p{case.page} | {start!r} | gold: {case.heading!r}"
                f" | label: {result.label!r}"
                + (
                    ""
                    if result.block_label == result.label
                    else f" | block: {result.block_label!r}"
                )
            )
    return "\n".join(lines)


def _rate(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def main() -> None:
    root = Path(sys.argv[1]) if len(sys.argv) > 1 else DATASET
    fixture = Path(sys.argv[2]) if len(sys.argv) > 2 else SYLLABUSQA_CASES
    print(report(measure_section_labels(root, load_cases(fixture))))


if __name__ == "__main__":
    main()
