"""section_label_accuracy (issue #31): the share of the labelled gold spans of syllabusqa-dev
whose chunk's section label names the heading a reader sees above the span (the fixture
tests/fixtures/section_labels/syllabusqa_dev.jsonl, labelled by reading the PDFs). Each
document is loaded and chunked as ingestion does, with no index or embedding. Prints the
figure, the misses grouped by cause (where along load -> chunk the heading was lost), and
each miss: file, page, the span's start, the gold heading and the chunk's label.

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
    accuracy = run.accuracy
    shown = "n/a" if accuracy is None else f"{accuracy:.3f}"
    lines = [f"section_label_accuracy={shown} ({hits}/{len(results)})"]
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
            )
    return "\n".join(lines)


def main() -> None:
    root = Path(sys.argv[1]) if len(sys.argv) > 1 else DATASET
    fixture = Path(sys.argv[2]) if len(sys.argv) > 2 else SYLLABUSQA_CASES
    print(report(measure_section_labels(root, load_cases(fixture))))


if __name__ == "__main__":
    main()
