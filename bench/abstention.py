"""Calibrates the extractive abstention threshold from an eval run.

Reads the per-question records of `coursebot eval DATASET --answers --json OUT` (each has
`answerable` and the answer's `support`: how well the best quoted sentence matched) and
prints, for a range of thresholds, the precision and recall of abstention (abstaining is
right exactly when the question is unanswerable), then the threshold with the best F1.

Run: python bench/abstention.py OUT.json"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Point:
    threshold: float
    precision: float
    recall: float
    wrong_abstain: float

    @property
    def f1(self) -> float:
        total = self.precision + self.recall
        return 2 * self.precision * self.recall / total if total else 0.0


def sweep(records: list[tuple[float, bool]], thresholds: list[float]) -> list[Point]:
    unanswerable = sum(1 for _, answerable in records if not answerable)
    answerable_total = len(records) - unanswerable
    points = []
    for threshold in thresholds:
        abstained = [answerable for support, answerable in records if support < threshold]
        right = sum(1 for answerable in abstained if not answerable)
        wrong = len(abstained) - right
        points.append(
            Point(
                threshold=threshold,
                precision=right / len(abstained) if abstained else 1.0,
                recall=right / unanswerable if unanswerable else 0.0,
                wrong_abstain=wrong / answerable_total if answerable_total else 0.0,
            )
        )
    return points


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("eval_json", type=Path)
    args = parser.parse_args()
    data = json.loads(args.eval_json.read_text())
    records = [
        (q["support"], q["answerable"]) for q in data["questions"] if q.get("support") is not None
    ]
    if not records:
        print("no `support` values: run the eval with --answers and no LLM", file=sys.stderr)
        return 2
    thresholds = [round(0.05 * step, 2) for step in range(2, 15)]
    points = sweep(records, thresholds)
    print(f"questions={len(records)} unanswerable={sum(1 for _, a in records if not a)}")
    print("threshold  precision  recall  f1     wrong_abstain")
    for p in points:
        row = f"{p.threshold:9.2f}  {p.precision:9.3f}  {p.recall:6.3f}  {p.f1:.3f}"
        print(f"{row}  {p.wrong_abstain:.3f}")
    best = max(points, key=lambda p: p.f1)
    print(
        f"best: threshold={best.threshold:.2f} precision={best.precision:.3f} "
        f"recall={best.recall:.3f} wrong_abstain={best.wrong_abstain:.3f}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
