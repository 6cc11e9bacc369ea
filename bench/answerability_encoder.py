"""Measures the trained answerability cross-encoder on courses it never saw, against today's
decision.

Inputs: the passages file of `scripts/train_answerability_encoder.py pairs` (the packed
passages of every question, as the answer path reads them), the model as `... export` wrote
it (int8 ONNX, what would ship), the split.json `... train` wrote beside the trained folder
(it names the held-out courses), and a `coursebot eval --answers --json` run holding those
courses' questions (each question's
`evidence`, the features today's decision reads). Each question's score is the highest
cross-encoder logit over its passages ("some passage states the answer").

Printed, on the held-out courses only:
- the abstain-vs-wrong_abstain curve of the shipped decision (core/answering/answerability.npz)
  and of a logistic model over today's features, cross-validated by course (leave one course
  out, so no course is scored by a model fitted on it);
- the curve of the cross-encoder score alone, and of the logistic model over today's features
  plus that score (cross-validated the same way);
- thresholds chosen at --max-wrong on one half of the held-out courses, applied to the other
  half (both ways): the figure an unseen course would see.
With --teaching DIR ... (pairs and eval files of other datasets, `NAME=PAIRS,EVAL`), the
threshold chosen on all held-out syllabusqa courses is applied to each, and their own curves
printed: the out-of-domain check.

Run: python bench/answerability_encoder.py PAIRS.jsonl EVAL.json --model MODEL.onnx
       --split MODEL_DIR/split.json [--teaching cs231n=P.jsonl,E.json ...]"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import LeaveOneGroupOut
from sklearn.preprocessing import StandardScaler

from bench.abstention import Point, curve, operating_point, point, print_curve, show
from core.answering.answerability import FEATURES, Answerability, Evidence
from core.embedding.minilm_onnx import session_for
from core.embedding.token_counter import load_tokenizer

LEVELS = [0.01, 0.02, 0.03, 0.05, 0.075, 0.10, 0.15, 0.20, 0.30]


@dataclass(frozen=True)
class Scored:
    ids: list[str]
    courses: np.ndarray
    unanswerable: np.ndarray  # bool
    encoder: np.ndarray  # best passage logit a question
    features: np.ndarray  # today's evidence, FEATURES in order (NaN rows: none recorded)


def load_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def load_evidence(path: Path) -> dict[str, list[float]]:
    out = {}
    for q in json.loads(path.read_text())["questions"]:
        evidence = dict(q.get("evidence") or ())
        if not set(FEATURES) - set(evidence):
            out[q["id"]] = [evidence[name] for name in FEATURES]
    return out


class OnnxScorer:
    """The exported pair model on onnxruntime, fed as scripts/train_answerability_encoder.py
    trained it: the bundled MiniLM tokenizer, the pair truncated on the passage's side."""

    def __init__(self, path: Path, max_length: int, threads: int) -> None:
        self.session = session_for(path, threads)
        self.tokenizer = load_tokenizer()
        self.tokenizer.enable_truncation(max_length, strategy="only_second")

    def score(self, question: str, passages: list[str]) -> np.ndarray:
        encodings = self.tokenizer.encode_batch([(question, text) for text in passages])
        width = max(len(e.ids) for e in encodings)
        ids = np.zeros((len(passages), width), dtype=np.int64)
        mask, types = np.zeros_like(ids), np.zeros_like(ids)
        for row, encoding in enumerate(encodings):
            n = len(encoding.ids)
            ids[row, :n], mask[row, :n], types[row, :n] = encoding.ids, 1, encoding.type_ids
        feeds = {"input_ids": ids, "attention_mask": mask, "token_type_ids": types}
        return np.asarray(self.session.run(None, feeds)[0]).reshape(len(passages), -1)[:, 0]


def score_questions(
    rows: list[dict], scorer: OnnxScorer, evidence: dict[str, list[float]]
) -> tuple[Scored, float]:
    """Every question's best passage logit; and the mean milliseconds per question."""
    best, spent = [], 0.0
    for row in rows:
        texts = [p["text"] for p in row["passages"]]
        started = time.perf_counter()
        best.append(float(scorer.score(row["question"], texts).max()) if texts else -20.0)
        spent += time.perf_counter() - started
    missing = [float("nan")] * len(FEATURES)
    return Scored(
        ids=[r["id"] for r in rows],
        courses=np.array([r["course"] for r in rows]),
        unanswerable=np.array([not r["answerable"] for r in rows]),
        encoder=-np.array(best),  # higher: more likely not stated
        features=np.array([evidence.get(r["id"], missing) for r in rows], dtype=np.float64),
    ), 1000 * spent / max(len(rows), 1)


def logistic_cv(x: np.ndarray, y: np.ndarray, groups: np.ndarray) -> np.ndarray:
    """Each row's chance from a logistic model fitted without its course."""
    p = np.zeros(len(y))
    for train, test in LeaveOneGroupOut().split(x, groups=groups):
        scaler = StandardScaler().fit(x[train])
        model = LogisticRegression(C=1.0, max_iter=1000).fit(scaler.transform(x[train]), y[train])
        p[test] = model.predict_proba(scaler.transform(x[test]))[:, 1]
    return p


def auc(p: np.ndarray, y: np.ndarray) -> float:
    """The chance that an unanswerable question outscores an answerable one."""
    pos, neg = p[y], p[~y]
    if not len(pos) or not len(neg):
        return float("nan")
    greater = (pos[:, None] > neg[None, :]).mean()
    ties = (pos[:, None] == neg[None, :]).mean()
    return float(greater + ties / 2)


def report(name: str, p: np.ndarray, y: np.ndarray) -> None:
    print(f"{name} (AUC {auc(p, y):.3f}):")
    print_curve(curve(p, y), LEVELS)


def halves_transfer(p: np.ndarray, y: np.ndarray, courses: np.ndarray, max_wrong: float) -> Point:
    """Thresholds chosen on one half of the courses, applied to the other, both ways, pooled."""
    names = np.unique(courses)
    first = np.isin(courses, names[::2])
    declined = np.zeros(len(y), dtype=bool)
    for chosen_on, applied_to in ((first, ~first), (~first, first)):
        threshold = operating_point(p[chosen_on], y[chosen_on], max_wrong).threshold
        declined[applied_to] = p[applied_to] >= threshold
    right = int((declined & y).sum())
    return Point(
        threshold=float("nan"),
        abstain=right / max(int(y.sum()), 1),
        wrong_abstain=int((declined & ~y).sum()) / max(int((~y).sum()), 1),
        precision=right / int(declined.sum()) if declined.any() else 1.0,
    )


def declined_in_eval(path: Path, ids: list[str], unanswerable: np.ndarray) -> Point:
    """What the eval run's answers did: a decline is an answer not grounded."""
    grounded = {q["id"]: bool(q.get("grounded")) for q in json.loads(path.read_text())["questions"]}
    declined = np.array([not grounded.get(i, True) for i in ids])
    right = int((declined & unanswerable).sum())
    return Point(
        threshold=float("nan"),
        abstain=right / max(int(unanswerable.sum()), 1),
        wrong_abstain=int((declined & ~unanswerable).sum()) / max(int((~unanswerable).sum()), 1),
        precision=right / int(declined.sum()) if declined.any() else 1.0,
    )


def shipped(features: np.ndarray) -> np.ndarray:
    model = Answerability.load()
    return np.array([model.unanswerable(Evidence(*row)) for row in features])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("pairs", type=Path)
    parser.add_argument("eval_json", type=Path)
    parser.add_argument("--model", type=Path, required=True, help="the exported .onnx file")
    parser.add_argument("--split", type=Path, required=True, help="the trained folder's split.json")
    parser.add_argument("--max-length", type=int, default=256)
    parser.add_argument("--max-wrong", type=float, default=0.05)
    parser.add_argument("--threads", type=int, default=1, help="onnxruntime threads")
    parser.add_argument("--teaching", nargs="*", default=[], metavar="NAME=PAIRS,EVAL")
    args = parser.parse_args()
    split_path = args.split
    for path in (args.pairs, args.eval_json, args.model, split_path):
        if not path.exists():
            print(f"no such file: {path}", file=sys.stderr)
            return 2
    held = set(json.loads(split_path.read_text())["held_out"])
    scorer = OnnxScorer(args.model, args.max_length, args.threads)
    rows = [r for r in load_jsonl(args.pairs) if r["course"] in held]
    if not rows:
        print(f"{args.pairs} holds no question of the held-out courses", file=sys.stderr)
        return 2
    scored, ms = score_questions(rows, scorer, load_evidence(args.eval_json))
    y = scored.unanswerable
    has = ~np.isnan(scored.features).any(axis=1)
    print(
        f"held-out courses={len(held)} questions={len(y)} unanswerable={int(y.sum())} "
        f"(with today's evidence: {int(has.sum())}); encoder {ms:.1f} ms/question "
        f"(mean {np.mean([len(r['passages']) for r in rows]):.1f} passages)"
    )
    print(show("today's answers (the eval run)", declined_in_eval(args.eval_json, scored.ids, y)))
    y_e, groups = y[has], scored.courses[has]
    today = shipped(scored.features[has])
    report("today's decision (shipped model)", today, y_e)
    print(show("  at its threshold", point(today, y_e, Answerability.load().threshold)))
    report(
        "today's features, logistic, leave-one-course-out",
        logistic_cv(scored.features[has], y_e, groups),
        y_e,
    )
    report("cross-encoder alone", scored.encoder, y)
    print(
        show(
            "  halves transfer", halves_transfer(scored.encoder, y, scored.courses, args.max_wrong)
        )
    )
    both = np.column_stack([scored.features[has], scored.encoder[has]])
    p_both = logistic_cv(both, y_e, groups)
    report("today's features + cross-encoder, logistic, leave-one-course-out", p_both, y_e)
    print(show("  halves transfer", halves_transfer(p_both, y_e, groups, args.max_wrong)))
    chosen = operating_point(scored.encoder, y, args.max_wrong)
    print(
        show(f"cross-encoder threshold chosen on held-out syllabusqa at {args.max_wrong}", chosen)
    )
    for spec in args.teaching:
        name, _, files = spec.partition("=")
        pairs_file, _, eval_file = files.partition(",")
        other, other_ms = score_questions(
            load_jsonl(Path(pairs_file)), scorer, load_evidence(Path(eval_file))
        )
        yo = other.unanswerable
        print(
            f"{name}: questions={len(yo)} unanswerable={int(yo.sum())}; "
            f"encoder {other_ms:.1f} ms/question"
        )
        print(show("  today's answers", declined_in_eval(Path(eval_file), other.ids, yo)))
        print(show("  that threshold", point(other.encoder, yo, chosen.threshold)))
        report("  cross-encoder alone, own curve", other.encoder, yo)
        ok = ~np.isnan(other.features).any(axis=1)
        print(
            show(
                "  today's decision",
                point(shipped(other.features[ok]), yo[ok], Answerability.load().threshold),
            )
        )
        report("  today's decision, own curve", shipped(other.features[ok]), yo[ok])
    return 0


if __name__ == "__main__":
    sys.exit(main())
