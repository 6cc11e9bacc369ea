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
from core.evaluation.section_labels import (
    MissCause,
    SectionLabelCase,
    SectionLabelResult,
    heading_key,
    label_names,
    section_label_accuracy,
)

__all__ = [
    "Metrics",
    "MissCause",
    "QuestionResult",
    "RetrievalScore",
    "SectionLabelCase",
    "SectionLabelResult",
    "answer_holds_span",
    "any_span_hit",
    "by_type",
    "first_quote",
    "heading_key",
    "key_facts",
    "key_facts_shown",
    "label_names",
    "normalise",
    "percentile",
    "quote_count",
    "reciprocal_rank",
    "score_retrieval",
    "section_label_accuracy",
    "source_hit",
    "span_in_chunk",
    "summarise",
    "tokens",
]
