"""section_label_accuracy on syllabusqa-dev: every case of the committed fixture resolves to a
gold span found on its page of the loaded PDF, and the measure computes. The figure itself is
printed by bench/section_labels.py, not asserted here."""

from __future__ import annotations

import pytest
from support.paths import SHARED_DATASETS

from bot.evaluation.section_labels import SYLLABUSQA_CASES, load_cases, measure_section_labels
from core.evaluation.section_labels import MissCause

DATASET = SHARED_DATASETS / "syllabusqa-dev"


def test_the_fixture_spreads_its_cases_over_many_syllabi() -> None:
    cases = load_cases(SYLLABUSQA_CASES)
    assert len(cases) == 150
    assert len({(case.question_id, case.span_index) for case in cases}) == 150
    assert len({case.file for case in cases}) >= 40
    assert all(case.heading.strip() for case in cases)


def test_every_case_resolves_to_its_span_and_the_accuracy_computes() -> None:
    if not (DATASET / "questions.jsonl").is_file():
        pytest.skip("syllabusqa-dev is not present next to the project")
    run = measure_section_labels(DATASET, load_cases(SYLLABUSQA_CASES))
    lost = [r.case for r in run.results if r.cause is MissCause.SPAN_NOT_FOUND]
    assert lost == []
    assert len(run.results) == 150
    assert run.accuracy is not None
    assert 0.0 <= run.accuracy <= 1.0
