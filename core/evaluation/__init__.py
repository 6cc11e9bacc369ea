"""Evaluation of retrieval and answers on a dataset of courses and questions
(`coursebot eval`): the metrics, as pure functions. The run that produces them is
`bot.evaluation`."""

from core.evaluation.metrics import (
    Metrics,
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
    span_in_chunk,
    summarise,
    tokens,
)

__all__ = [
    "Metrics",
    "QuestionResult",
    "RetrievalScore",
    "answer_holds_span",
    "any_span_hit",
    "by_type",
    "first_quote",
    "key_facts",
    "key_facts_shown",
    "normalise",
    "percentile",
    "quote_count",
    "reciprocal_rank",
    "score_retrieval",
    "source_hit",
    "span_in_chunk",
    "summarise",
    "tokens",
]
