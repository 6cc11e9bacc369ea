"""The evaluation metrics: normalisation, the 80% span rule, hits, MRR, percentiles, context
and answer figures, and the per-type aggregation."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from fractions import Fraction

import pytest

from core.evaluation.metrics import (
    QuestionResult,
    RetrievalScore,
    answer_holds_span,
    any_span_hit,
    by_type,
    first_quote,
    key_facts,
    key_facts_shown,
    normalise,
    percentile,
    quote_count,
    reciprocal_rank,
    score_retrieval,
    source_hit,
    span_coverage,
    span_in_chunk,
    summarise,
    tokens,
)


def test_normalise_splits_ligatures_and_folds_case() -> None:
    assert normalise("The ﬁnal Exam is ﬂexible") == "the final exam is flexible"


def test_normalise_joins_words_hyphenated_at_a_line_end() -> None:
    assert normalise("the exam-\nination week") == "the examination week"
    assert normalise("the exam-\r\n   ination") == "the examination"
    assert normalise("soft\u00adhyphen") == "softhyphen"


def test_normalise_keeps_hyphens_inside_a_line_as_word_breaks() -> None:
    assert normalise("mid-term exam") == "mid term exam"


def test_normalise_drops_punctuation_and_collapses_whitespace() -> None:
    assert normalise("  “Class   participation” (individual):\t10%!\n") == (
        "class participation individual 10"
    )
    assert tokens("http://www.cbo.gov/") == ["http", "www", "cbo", "gov"]


def test_a_span_copied_from_the_pdf_matches_the_extracted_text() -> None:
    span = "The ﬁnal exam-\nination is worth 30%."
    chunk = "Grading\nThe final examination is worth 30 % of the grade."
    assert span_in_chunk(span, chunk)


def test_span_coverage_counts_tokens_as_a_multiset() -> None:
    span = tokens("the the the exam")
    chunk = tokens("the exam")
    assert span_coverage(Counter(span), Counter(chunk)) == Fraction(2, 4)


def test_eighty_percent_of_the_span_tokens_is_a_hit() -> None:
    assert span_in_chunk("one two three four five", "one two three four six")  # 4/5


def test_just_under_eighty_percent_is_a_miss() -> None:
    assert not span_in_chunk("one two three four", "one two three five")  # 3/4
    # 7/9 = 0.778 < 0.8 <= 8/10
    assert not span_in_chunk("a b c d e f g h i", "a b c d e f g x y")
    assert span_in_chunk("a b c d e f g h i j", "a b c d e f g h x y")


def test_an_empty_span_never_hits() -> None:
    assert not span_in_chunk("...", "anything at all")
    assert not any_span_hit([], ["anything"])


def test_any_gold_span_in_any_chunk_is_a_hit() -> None:
    spans = ["office hours are on tuesday", "late work loses ten percent"]
    chunks = ["nothing here", "Late work loses 10 percent per day; late work loses ten percent"]
    assert any_span_hit(spans, chunks)
    assert not any_span_hit(spans, ["nothing here", "nor here"])


def test_source_hit_compares_file_names_case_insensitively_within_k() -> None:
    ranked = ["notes.md", "Syllabus.PDF", "other.md"]
    assert source_hit(ranked, ["syllabus.pdf"], 5)
    assert not source_hit(ranked, ["syllabus.pdf"], 1)
    assert not source_hit([], ["syllabus.pdf"], 5)


def test_reciprocal_rank_is_one_over_the_first_gold_rank_within_ten() -> None:
    assert reciprocal_rank(["a", "b", "gold", "gold"], ["GOLD"]) == pytest.approx(1 / 3)
    assert reciprocal_rank(["gold"], ["gold"]) == 1.0
    assert reciprocal_rank(["x"] * 10 + ["gold"], ["gold"]) == 0.0
    assert reciprocal_rank([], ["gold"]) == 0.0


def test_percentile_interpolates_between_ranks() -> None:
    assert percentile([], 50) is None
    assert percentile([7.0], 95) == 7.0
    assert percentile([4.0, 1.0, 3.0, 2.0], 50) == 2.5
    values = [float(v) for v in range(1, 101)]
    assert percentile(values, 95) == pytest.approx(95.05)
    assert percentile(values, 0) == 1.0
    assert percentile(values, 100) == 100.0


def test_score_retrieval_leaves_out_what_a_question_has_no_gold_for() -> None:
    unanswerable = score_retrieval(
        ["a.md"], ["text"], answerable=False, gold_sources=["a.md"], gold_spans=[]
    )
    assert unanswerable == RetrievalScore()
    scored = score_retrieval(
        ["b.md", "a.md"],
        ["nothing", "the exam is on monday"],
        answerable=True,
        gold_sources=["A.md"],
        gold_spans=["The exam is on Monday."],
    )
    assert scored == RetrievalScore(
        source_hit_1=False, source_hit_5=True, reciprocal_rank=0.5, span_hit_5=True
    )


def test_span_hit_looks_at_the_top_five_chunks_only() -> None:
    texts = ["x"] * 5 + ["the exam is on monday"]
    scored = score_retrieval(
        ["f"] * 6, texts, answerable=True, gold_sources=[], gold_spans=["the exam is on monday"]
    )
    assert scored.span_hit_5 is False
    assert scored.source_hit_5 is None


def _result(
    kind: str,
    *,
    answerable: bool = True,
    hit: bool | None = None,
    rr: float | None = None,
    span: bool | None = None,
    latency: float | None = 10.0,
    grounded: bool | None = None,
) -> QuestionResult:
    return QuestionResult(
        id=f"{kind}-{hit}-{span}",
        course="c",
        type=kind,
        answerable=answerable,
        retrieved=(),
        score=RetrievalScore(hit, hit, rr, span),
        latency_ms=latency,
        grounded=grounded,
    )


def test_summarise_averages_each_figure_over_the_questions_it_applies_to() -> None:
    results = [
        _result("factual", hit=True, rr=1.0, span=True, latency=10.0),
        _result("factual", hit=False, rr=0.0, span=None, latency=30.0),
        _result("no answer", answerable=False, latency=20.0),
    ]
    metrics = summarise(results)
    assert metrics.n == 3
    assert metrics.source_hit_5 == 0.5
    assert metrics.mrr_10 == 0.5
    assert metrics.span_hit_5 == 1.0
    assert (metrics.n_sources, metrics.n_spans) == (2, 1)
    assert metrics.p50_ms == 20.0
    assert metrics.abstain is None and metrics.wrong_abstain is None


def test_abstention_rates_split_answerable_from_unanswerable_questions() -> None:
    results = [
        _result("no answer", answerable=False, grounded=False),
        _result("no answer", answerable=False, grounded=True),
        _result("factual", grounded=True),
        _result("factual", grounded=True),
        _result("factual", grounded=True),
        _result("factual", grounded=False),
    ]
    metrics = summarise(results)
    assert metrics.abstain == 0.5
    assert metrics.wrong_abstain == 0.25


def test_by_type_aggregates_each_question_type_separately_in_name_order() -> None:
    results = [
        _result("yes/no", hit=True, rr=1.0),
        _result("factual", hit=False, rr=0.0),
        _result("factual", hit=True, rr=0.5),
        _result("no answer", answerable=False),
    ]
    groups = by_type(results)
    assert list(groups) == ["factual", "no answer", "yes/no"]
    assert groups["factual"].n == 2
    assert groups["factual"].source_hit_1 == 0.5
    assert groups["factual"].mrr_10 == 0.25
    assert groups["yes/no"].source_hit_5 == 1.0
    assert groups["no answer"].source_hit_5 is None
    assert groups["no answer"].named()["n"] == 1


def test_summarise_of_nothing_computes_nothing() -> None:
    metrics = summarise([])
    assert metrics.n == 0
    assert all(v is None for k, v in metrics.named().items() if k != "n")
    assert (metrics.n_answer_spans, metrics.n_grounded) == (0, 0)


def test_a_quoted_answer_holds_a_span_despite_its_quote_marks_and_citation_markers() -> None:
    shown = "“The final exam is on 14 December at 09:00 in Hall A.” [1]\n“Bring ID.” [2]"
    assert answer_holds_span(shown, ["The final exam is on 14 December at 09:00 in Hall A."])


def test_an_answer_holding_under_eighty_percent_of_every_span_is_a_miss() -> None:
    assert not answer_holds_span(
        "The final exam is in Hall A.", ["The final exam is on 14 December at 09:00 in Hall A."]
    )
    assert not answer_holds_span("", ["The final exam is on 14 December."])


def test_an_answer_to_a_question_without_gold_spans_is_not_judged() -> None:
    assert answer_holds_span("anything at all", []) is None


def test_context_chars_are_averaged_over_every_question_that_retrieved() -> None:
    results = [
        replace(_result("factual"), ctx_chars=1000),
        replace(_result("factual"), ctx_chars=3000),
        _result("factual"),  # a question whose course has no folder: nothing was read
    ]
    metrics = summarise(results)
    assert metrics.ctx_chars == 2000.0
    assert metrics.named()["ctx_chars"] == 2000.0


def test_answer_span_hit_counts_declines_as_misses_and_answer_chars_only_grounded_answers() -> None:
    results = [
        replace(_result("factual", grounded=True), answer_chars=120, answer_span_hit=True),
        replace(_result("factual", grounded=True), answer_chars=280, answer_span_hit=False),
        replace(_result("factual", grounded=False), answer_chars=54, answer_span_hit=False),
        replace(_result("factual", grounded=True), answer_chars=600, answer_span_hit=None),
        _result("factual"),  # not answered (no --answers)
    ]
    metrics = summarise(results)
    assert metrics.answer_span_hit == pytest.approx(1 / 3)
    assert metrics.n_answer_spans == 3
    assert metrics.answer_chars == pytest.approx((120 + 280 + 600) / 3)
    assert metrics.n_grounded == 3


EXTRACTIVE = (
    "“Homework | 20% | weekly problem sets” [1]\n"
    "“The final exam is on December 14 in room B12.” [2]\n"
    "“Office hours are on Tuesdays.” [1]"
)


def test_the_first_quote_is_the_first_line_up_to_its_citation() -> None:
    assert first_quote(EXTRACTIVE) == "“Homework | 20% | weekly problem sets” [1]"
    assert first_quote("\nThe exam is on May 3 [2], in hall A [3].") == "The exam is on May 3 [2]"
    assert first_quote("No citation at all.") == "No citation at all."
    assert first_quote("") == ""


def test_a_gold_span_in_the_third_quote_is_an_answer_hit_but_no_first_quote_hit() -> None:
    gold = ["The final exam is on December 14 in room B12."]
    assert answer_holds_span(EXTRACTIVE, gold) is True
    assert answer_holds_span(first_quote(EXTRACTIVE), gold) is False


def test_quotes_are_the_lines_holding_a_citation() -> None:
    assert quote_count(EXTRACTIVE) == 3
    assert quote_count("I could not find this in the course material.") == 0


def test_key_facts_are_the_reference_words_holding_a_digit() -> None:
    reference = "REL301m, semester 8 in the K20D-21A curriculum, 3 credits; worth 22.5%."
    assert key_facts(reference) == {"rel301m", "8", "k20d", "21a", "3", "22.5"}
    assert key_facts("The Napoleonic wars.") == frozenset()


def test_key_facts_shown_is_the_share_of_them_the_answer_holds_as_words() -> None:
    reference = "3 progress tests 30%, final exam 35% (MAS291)."
    shown = "“Progress tests (3): 30%” [1]\n“Final exam: 40%” [2]"  # 35 and MAS291 missing
    assert key_facts_shown(reference, shown) == pytest.approx(2 / 4)
    assert key_facts_shown(reference, "3 tests 30% 35% mas291") == 1.0
    assert key_facts_shown(reference, "") == 0.0
    assert key_facts_shown("No number here.", shown) is None
    # A fact inside a longer number is not shown: "130" does not state "30".
    assert key_facts_shown("30%", "130 points") == 0.0


def test_summarise_reports_first_quote_hits_quotes_per_answer_and_key_facts() -> None:
    results = [
        replace(
            _result("plan", grounded=True), first_quote_hit=True, answer_quotes=2, key_facts=1.0
        ),
        replace(
            _result("plan", grounded=True), first_quote_hit=False, answer_quotes=4, key_facts=0.5
        ),
        replace(_result("plan", grounded=False), first_quote_hit=False, key_facts=0.0),
        _result("plan"),  # not answered
    ]
    metrics = summarise(results)
    assert metrics.first_quote_hit == pytest.approx(1 / 3)
    assert metrics.answer_quotes == 3.0  # grounded answers only
    assert metrics.key_facts == pytest.approx(0.5)
    assert metrics.key_facts_all == pytest.approx(1 / 3)
    assert metrics.n_key_facts == 3
