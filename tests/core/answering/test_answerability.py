"""The answerability model: the fitted file shipped with the package reads back with the
answerer's features, a model fitted on other features is refused, and the decision is the
logistic model's chance against its threshold."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from core.answering.answerability import FEATURES, Answerability, Evidence

ANSWERED = Evidence(
    support=0.9,
    typed_support=0.9,
    asks_type=1.0,
    spread=1.0,
    missing=0.0,
    leads=0.5,
    similarity=0.7,
    similarity_3=0.6,
    best_unit_similarity=0.7,
    covering_similarity=0.7,
    top_score=1.0,
    second_score=0.5,
    key_terms=3.0,
    yes_no=0.0,
)
# Nothing of the question in the passages, nothing of what it asks for, and far in meaning.
NOT_STATED = replace(
    ANSWERED,
    support=0.0,
    typed_support=0.0,
    spread=0.0,
    missing=1.0,
    leads=0.0,
    similarity=0.1,
    similarity_3=0.1,
    best_unit_similarity=0.1,
    covering_similarity=0.1,
)


def test_the_shipped_model_reads_the_answerers_features_and_separates_the_plain_cases() -> None:
    model = Answerability.load()
    assert model.weights.shape == model.mean.shape == model.scale.shape == (len(FEATURES),)
    assert 0 < model.threshold < 1
    assert model.declines(NOT_STATED)
    assert not model.declines(ANSWERED)


def test_a_saved_model_reads_back_the_same(tmp_path: Path) -> None:
    n = len(FEATURES)
    model = Answerability(np.zeros(n), np.ones(n), np.linspace(-1, 1, n), 0.25, 0.4)
    model.save(tmp_path / "model.npz")
    again = Answerability.load(tmp_path / "model.npz")
    assert again.unanswerable(ANSWERED) == pytest.approx(model.unanswerable(ANSWERED))
    assert again.threshold == 0.4


def test_a_model_fitted_on_other_features_is_refused(tmp_path: Path) -> None:
    np.savez(
        tmp_path / "old.npz",
        features=np.array(["support"]),
        mean=np.zeros(1),
        scale=np.ones(1),
        weights=np.ones(1),
        bias=np.float64(0),
        threshold=np.float64(0.5),
    )
    with pytest.raises(ValueError, match="fitted on features"):
        Answerability.load(tmp_path / "old.npz")


def test_the_decision_is_the_chance_against_the_threshold() -> None:
    n = len(FEATURES)
    weights = np.zeros(n)
    weights[FEATURES.index("support")] = -10.0  # less support, likelier unanswerable
    model = Answerability(np.full(n, 0.0), np.ones(n), weights, 3.0, 0.5)
    assert model.unanswerable(replace(ANSWERED, support=0.3)) == pytest.approx(0.5)
    assert model.declines(replace(ANSWERED, support=0.29))
    assert not model.declines(replace(ANSWERED, support=0.31))
