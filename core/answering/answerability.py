"""Whether the packed passages answer a question, decided with no model call.

The extractive answerer measures what it already has (`Evidence`): how much of the
question's key terms the best unit holds, and whether a unit holding them also holds what the
question asks for (a date for "when", a number for "how many", a name for "who"), how close
the stored unit vectors come to the question (late chunking), the fused retrieval scores.
A logistic model over those figures, fitted offline on labelled answerable and unanswerable
questions (`bench/abstention.py` re-fits it from a `coursebot eval --json` run and prints the
whole trade-off), gives the chance that the material does not state the answer; above the
model's threshold the bot says so. The fitted weights ship as a small numpy file read once
here: no learning library at answer time."""

from __future__ import annotations

from dataclasses import astuple, dataclass, fields
from importlib.resources import files
from pathlib import Path
from typing import Self

import numpy as np

# The fitted model shipped with the package (bench/abstention.py --out writes it).
MODEL_FILE = "answerability.npz"


@dataclass(frozen=True, slots=True)
class Evidence:
    """What the extractive path measured on one question and its passages; the model's
    features, in this order.

    `support`: the best unit's weighted share of the question's key terms;
    `typed_support`: the same among units holding what the question asks for (a date, a
    number, a name; `support` when it asks for none); `asks_type`: 1 when it asks for one;
    `spread`: the key terms' weighted share found anywhere in the passages; `missing`:
    the share of key terms (unweighted) found nowhere in them;
    `leads`: the best share of key terms among a unit's first words;
    `similarity`: the best stored unit vector's cosine with the question (0 without unit
    vectors); `similarity_3`: the mean of the best three; `best_unit_similarity`: that of
    the unit scoring best overall; `covering_similarity`: that of the unit holding the most
    key terms;
    `top_score`, `second_score`: the fused retrieval scores of the first two passages;
    `key_terms`: how many key terms the question has; `yes_no`: 1 for a question asking
    whether ("Is there ...?", "Can I ...?")."""

    support: float
    typed_support: float
    asks_type: float
    spread: float
    missing: float
    leads: float
    similarity: float
    similarity_3: float
    best_unit_similarity: float
    covering_similarity: float
    top_score: float
    second_score: float
    key_terms: float
    yes_no: float

    def vector(self) -> np.ndarray:
        return np.array(astuple(self), dtype=np.float64)


FEATURES = tuple(field.name for field in fields(Evidence))


@dataclass(frozen=True)
class Answerability:
    """A fitted logistic model: features standardised by `mean` and `scale`, then
    `weights` and `bias` give the log-odds that the question is unanswerable; at or above
    `threshold` (a probability) the answer is declined."""

    mean: np.ndarray
    scale: np.ndarray
    weights: np.ndarray
    bias: float
    threshold: float

    @classmethod
    def load(cls, path: Path | None = None) -> Self:
        """The model in `path`, or the one shipped with the package."""
        source = path or files("core.answering").joinpath(MODEL_FILE)
        with source.open("rb") as raw, np.load(raw, allow_pickle=False) as data:
            names = tuple(str(name) for name in data["features"])
            if names != FEATURES:
                raise ValueError(f"{source} was fitted on features {names}, not {FEATURES}")
            return cls(
                mean=data["mean"],
                scale=data["scale"],
                weights=data["weights"],
                bias=float(data["bias"]),
                threshold=float(data["threshold"]),
            )

    def save(self, path: Path) -> None:
        np.savez(
            path,
            features=np.array(FEATURES),
            mean=self.mean,
            scale=self.scale,
            weights=self.weights,
            bias=np.float64(self.bias),
            threshold=np.float64(self.threshold),
        )

    def unanswerable(self, evidence: Evidence) -> float:
        """The chance that the passages do not state the answer."""
        return float(np.exp(-np.logaddexp(0.0, -self._log_odds(evidence))))

    def _log_odds(self, evidence: Evidence) -> float:
        return float(((evidence.vector() - self.mean) / self.scale) @ self.weights) + self.bias

    def declines(self, evidence: Evidence) -> bool:
        return self.unanswerable(evidence) >= self.threshold
