"""Fits the extractive answerer's answerability model from eval runs and prints the trade-off.

Reads the per-question records of `coursebot eval DATASET --answers --json OUT` (each has
`answerable`, its `course` and the answer's `evidence`: the figures the extractive answerer
decided on, `core.answering.answerability.Evidence`). The courses are split in two by a
seeded shuffle: a logistic model (scikit-learn, a dev dependency) is fitted on the first
half's questions, and the operating point is chosen on the other half's: the threshold
declining the most unanswerable questions while declining at most --max-wrong of the
answerable ones. Both halves' figures are printed, the whole curve on the held-out half, and
a cross-validation by course (every question scored by a model that never saw its course).
With --out the fitted model is written as the numpy file the answerer reads
(core/answering/answerability.npz). Several eval runs may be given: they are pooled.

Run: python bench/abstention.py RUN.json [RUN2.json ...] [--out core/answering/answerability.npz]"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import GroupKFold
from sklearn.preprocessing import StandardScaler

from core.answering.answerability import FEATURES, Answerability

SEED = 7
FOLDS = 5


@dataclass(frozen=True)
class Questions:
    features: np.ndarray  # one row a question, FEATURES in order
    unanswerable: np.ndarray  # bool
    courses: np.ndarray  # str

    def part(self, rows: np.ndarray) -> Questions:
        return Questions(self.features[rows], self.unanswerable[rows], self.courses[rows])


@dataclass(frozen=True)
class Point:
    threshold: float
    abstain: float  # share of unanswerable questions declined
    wrong_abstain: float  # share of answerable questions declined
    precision: float  # share of declines that were right


def read(paths: list[Path]) -> Questions:
    rows, labels, courses = [], [], []
    for path in paths:
        for q in json.loads(path.read_text())["questions"]:
            evidence = dict(q.get("evidence") or ())
            if set(FEATURES) - set(evidence):
                continue  # no evidence: an LLM answered, or the question had no key terms
            rows.append([evidence[name] for name in FEATURES])
            labels.append(not q["answerable"])
            courses.append(f"{path}:{q['course']}")
    return Questions(np.array(rows, dtype=np.float64), np.array(labels), np.array(courses))


def fit(questions: Questions) -> tuple[StandardScaler, LogisticRegression]:
    scaler = StandardScaler().fit(questions.features)
    model = LogisticRegression(C=1.0, max_iter=1000)
    model.fit(scaler.transform(questions.features), questions.unanswerable)
    return scaler, model


def chances(fitted: tuple[StandardScaler, LogisticRegression], features: np.ndarray) -> np.ndarray:
    scaler, model = fitted
    return model.predict_proba(scaler.transform(features))[:, 1]


def point(p: np.ndarray, unanswerable: np.ndarray, threshold: float) -> Point:
    declined = p >= threshold
    right = int((declined & unanswerable).sum())
    return Point(
        threshold=threshold,
        abstain=right / max(int(unanswerable.sum()), 1),
        wrong_abstain=int((declined & ~unanswerable).sum()) / max(int((~unanswerable).sum()), 1),
        precision=right / int(declined.sum()) if declined.any() else 1.0,
    )


def curve(p: np.ndarray, unanswerable: np.ndarray) -> list[Point]:
    """Every distinct operating point, from declining nothing to declining everything."""
    return [point(p, unanswerable, t) for t in [np.inf, *np.unique(p)[::-1], 0.0]]


def operating_point(p: np.ndarray, unanswerable: np.ndarray, max_wrong: float) -> Point:
    """The threshold declining the most unanswerable questions within `max_wrong`."""
    allowed = [pt for pt in curve(p, unanswerable) if pt.wrong_abstain <= max_wrong]
    return max(allowed, key=lambda pt: (pt.abstain, pt.threshold))


def course_halves(questions: Questions) -> tuple[np.ndarray, np.ndarray]:
    names = np.unique(questions.courses)
    np.random.default_rng(SEED).shuffle(names)
    first = np.isin(questions.courses, names[: len(names) // 2])
    return np.flatnonzero(first), np.flatnonzero(~first)


def cross_validated(questions: Questions) -> np.ndarray:
    """Each question's chance from a model fitted without its course."""
    p = np.zeros(len(questions.unanswerable))
    folds = GroupKFold(n_splits=min(FOLDS, len(np.unique(questions.courses))))
    for train, test in folds.split(questions.features, groups=questions.courses):
        p[test] = chances(fit(questions.part(train)), questions.features[test])
    return p


def show(name: str, pt: Point) -> str:
    return (
        f"{name}: threshold={pt.threshold:.3f} abstain={pt.abstain:.3f} "
        f"wrong_abstain={pt.wrong_abstain:.3f} precision={pt.precision:.3f}"
    )


def print_curve(points: list[Point], targets: list[float]) -> None:
    """The best abstain within each wrong_abstain level: the trade-off in a few rows."""
    print("wrong_abstain<=  abstain  threshold  precision")
    for target in targets:
        allowed = [pt for pt in points if pt.wrong_abstain <= target]
        best = max(allowed, key=lambda pt: (pt.abstain, pt.threshold))
        print(f"{target:14.2f}  {best.abstain:7.3f}  {best.threshold:9.3f}  {best.precision:9.3f}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("eval_json", type=Path, nargs="+")
    parser.add_argument("--max-wrong", type=float, default=0.05)
    parser.add_argument("--out", type=Path, help="write the fitted model here (.npz)")
    args = parser.parse_args()
    questions = read(args.eval_json)
    if not len(questions.unanswerable):
        print("no `evidence`: run the eval with --answers and no LLM", file=sys.stderr)
        return 2
    train, held = course_halves(questions)
    fitted = fit(questions.part(train))
    p_train = chances(fitted, questions.features[train])
    p_held = chances(fitted, questions.features[held])
    chosen = operating_point(p_held, questions.unanswerable[held], args.max_wrong)
    courses = len(np.unique(questions.courses))
    print(
        f"questions={len(questions.unanswerable)} unanswerable={int(questions.unanswerable.sum())}"
        f" courses={courses}; fitted on {len(train)} questions of half the courses, "
        f"chosen on {len(held)} of the others"
    )
    levels = [0.01, 0.02, 0.03, 0.05, 0.075, 0.10, 0.15, 0.20, 0.30]
    print("held-out half:")
    print_curve(curve(p_held, questions.unanswerable[held]), levels)
    print(show("chosen on the held-out half", chosen))
    print(
        show(
            "same threshold, fitting half",
            point(p_train, questions.unanswerable[train], chosen.threshold),
        )
    )
    p_cv = cross_validated(questions)
    print(f"cross-validated by course ({FOLDS} folds):")
    print_curve(curve(p_cv, questions.unanswerable), levels)
    print(
        show(
            "same threshold, cross-validated", point(p_cv, questions.unanswerable, chosen.threshold)
        )
    )
    scaler, model = fitted
    for name, weight in sorted(
        zip(FEATURES, model.coef_[0], strict=True), key=lambda w: -abs(w[1])
    ):
        print(f"  {name:22s} {weight:+.3f}")
    if args.out:
        Answerability(
            mean=scaler.mean_,
            scale=scaler.scale_,
            weights=model.coef_[0],
            bias=float(model.intercept_[0]),
            threshold=chosen.threshold,
        ).save(args.out)
        print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
