"""Evaluation metrics as pure functions: text normalisation, gold-span matching, source hits,
reciprocal rank, context and answer sizes, where the answer puts the fact (the first quote)
and which of the reference answer's key facts it shows, latency percentiles and their
aggregation, overall and per question type.

A gold span "hits" a chunk (or a shown answer) when at least 80% of the span's word tokens
(as a multiset) occur among its tokens, both sides normalised first: the spans are copied from
the PDFs' text, so they differ from extracted text in ligatures, line-end hyphenation and
spacing."""

from __future__ import annotations

import math
import re
import unicodedata
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction

SPAN_COVERAGE = Fraction(4, 5)
HIT_AT = (1, 5)
MRR_DEPTH = 10
SPAN_DEPTH = 5
RETRIEVE_DEPTH = max(MRR_DEPTH, SPAN_DEPTH, *HIT_AT)

# A word broken across lines: "exam-\nination" (also the soft and the Unicode hyphen).
_LINE_END_HYPHEN = re.compile(r"(\w)[-\u00ad\u2010]\s*\n\s*(?=\w)")
_NOT_WORD = re.compile(r"[^\w\s]|_")
# A citation mark as answers show them: "[3]".
_CITATION = re.compile(r"\[\d{1,3}\]")
# A word, with decimal parts kept ("22.5", "1,000"); key facts are the words holding a digit.
_FACT_WORD = re.compile(r"\w+(?:[.,]\d+)*")


def normalise(text: str) -> str:
    """NFKC (which also splits ligatures such as "ﬁ"), line-end hyphenation joined, soft
    hyphens dropped, case folded, punctuation and symbols turned into spaces, whitespace
    collapsed."""
    text = unicodedata.normalize("NFKC", text)
    text = _LINE_END_HYPHEN.sub(r"\1", text)
    text = text.replace("\u00ad", "").casefold()
    return " ".join(_NOT_WORD.sub(" ", text).split())


def tokens(text: str) -> list[str]:
    """The word tokens of a text after normalisation."""
    return normalise(text).split()


def span_coverage(span: Counter[str], chunk: Counter[str]) -> Fraction:
    """Share of the span's tokens (a multiset) that the chunk's tokens contain."""
    total = sum(span.values())
    if total == 0:
        return Fraction(0)
    return Fraction(sum((span & chunk).values()), total)


def span_in_chunk(span: str, chunk: str) -> bool:
    return span_coverage(Counter(tokens(span)), Counter(tokens(chunk))) >= SPAN_COVERAGE


def any_span_hit(spans: Iterable[str], chunks: Iterable[str]) -> bool:
    """True when any gold span is covered by any of the chunks."""
    span_bags = [bag for bag in (Counter(tokens(s)) for s in spans) if bag]
    if not span_bags:
        return False
    for chunk in chunks:
        chunk_bag = Counter(tokens(chunk))
        if any(span_coverage(bag, chunk_bag) >= SPAN_COVERAGE for bag in span_bags):
            return True
    return False


def _same_file(name: str) -> str:
    return unicodedata.normalize("NFC", name).casefold()


def source_hit(ranked_files: Sequence[str], gold_sources: Iterable[str], k: int) -> bool:
    """Whether one of the first k retrieved chunks comes from a gold file (case-insensitive)."""
    gold = {_same_file(g) for g in gold_sources}
    return any(_same_file(name) in gold for name in ranked_files[:k])


def reciprocal_rank(
    ranked_files: Sequence[str], gold_sources: Iterable[str], depth: int = MRR_DEPTH
) -> float:
    """1/rank of the first chunk from a gold file within `depth`, else 0."""
    gold = {_same_file(g) for g in gold_sources}
    for rank, name in enumerate(ranked_files[:depth], start=1):
        if _same_file(name) in gold:
            return 1.0 / rank
    return 0.0


def percentile(values: Sequence[float], q: float) -> float | None:
    """The q-th percentile (0-100) with linear interpolation between ranks; None if empty."""
    if not values:
        return None
    ordered = sorted(values)
    position = (len(ordered) - 1) * q / 100
    low = math.floor(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


@dataclass(frozen=True, slots=True)
class RetrievalScore:
    """One question's retrieval flags; None where the question has no gold to judge by."""

    source_hit_1: bool | None = None
    source_hit_5: bool | None = None
    reciprocal_rank: float | None = None
    span_hit_5: bool | None = None


def score_retrieval(
    ranked_files: Sequence[str],
    ranked_texts: Sequence[str],
    *,
    answerable: bool,
    gold_sources: Sequence[str],
    gold_spans: Sequence[str],
) -> RetrievalScore:
    """Score the ranked chunks (file names and texts, best first) of one question."""
    by_source = answerable and bool(gold_sources)
    return RetrievalScore(
        source_hit_1=source_hit(ranked_files, gold_sources, 1) if by_source else None,
        source_hit_5=source_hit(ranked_files, gold_sources, 5) if by_source else None,
        reciprocal_rank=reciprocal_rank(ranked_files, gold_sources) if by_source else None,
        span_hit_5=any_span_hit(gold_spans, ranked_texts[:SPAN_DEPTH]) if gold_spans else None,
    )


def first_quote(answer_text: str) -> str:
    """The answer's first quote: its first line with text, up to and with its first citation
    mark (extractive answers put one quote a line; a model's answer cites each statement)."""
    line = next((line for line in answer_text.splitlines() if line.strip()), "")
    mark = _CITATION.search(line)
    return line[: mark.end()] if mark else line


def quote_count(answer_text: str) -> int:
    """How many quotes an answer shows: its lines holding a citation mark."""
    return sum(1 for line in answer_text.splitlines() if _CITATION.search(line))


def key_facts(reference: str) -> frozenset[str]:
    """The reference answer's key facts: its words holding a digit (course codes such as
    "AIL303m", intakes, numbers, percentages), case folded."""
    text = unicodedata.normalize("NFKC", reference).casefold()
    return frozenset(w for w in _FACT_WORD.findall(text) if any(c.isdigit() for c in w))


def key_facts_shown(reference: str, answer_text: str) -> float | None:
    """Share of the reference answer's key facts that the shown answer holds as words; None
    when the reference states none."""
    wanted = key_facts(reference)
    if not wanted:
        return None
    return len(wanted & key_facts(answer_text)) / len(wanted)


def answer_holds_span(answer_text: str, gold_spans: Sequence[str]) -> bool | None:
    """Whether the shown answer holds some gold span (the same 80% token rule as retrieval);
    None when there is no gold span to judge by. An abstention holds none."""
    return any_span_hit(gold_spans, [answer_text]) if gold_spans else None


@dataclass(frozen=True, slots=True)
class QuestionResult:
    """What happened to one question: its retrieval, latency and (with answers) the reply."""

    id: str
    course: str
    type: str
    answerable: bool
    retrieved: tuple[str, ...]
    score: RetrievalScore
    latency_ms: float | None
    # Characters of the passages the answerer reads (the top k, packed to the budget).
    ctx_chars: int | None = None
    grounded: bool | None = None
    support: object | None = None
    # The figures the extractive answerer decided on, by name (bench/abstention.py fits on them).
    evidence: dict[str, float] | None = None
    error: str | None = None
    # With answers: the shown answer, its length, and whether it holds a gold span (None
    # when the question has no gold spans).
    answer: str | None = None
    answer_chars: int | None = None
    answer_span_hit: bool | None = None
    # The first quote holds a gold span (None without gold spans); how many quotes the
    # answer shows; the share of the reference answer's key facts shown (None without any).
    first_quote_hit: bool | None = None
    answer_quotes: int | None = None
    key_facts: float | None = None


@dataclass(frozen=True, slots=True)
class Metrics:
    """Aggregated figures; a rate is None when no question qualifies for it. The counts
    below are the denominators."""

    n: int
    source_hit_1: float | None = None
    source_hit_5: float | None = None
    mrr_10: float | None = None
    span_hit_5: float | None = None
    ctx_chars: float | None = None
    abstain: float | None = None
    wrong_abstain: float | None = None
    answer_span_hit: float | None = None
    first_quote_hit: float | None = None
    answer_chars: float | None = None
    answer_quotes: float | None = None
    key_facts: float | None = None
    key_facts_all: float | None = None
    p50_ms: float | None = None
    p95_ms: float | None = None
    n_sources: int = 0
    n_spans: int = 0
    n_unanswerable: int = 0
    n_answerable: int = 0
    n_answer_spans: int = 0
    n_grounded: int = 0
    n_key_facts: int = 0

    def named(self) -> dict[str, int | float | None]:
        """The figures under the names the summary line and JSON report use."""
        return {
            "n": self.n,
            "source_hit@1": self.source_hit_1,
            "source_hit@5": self.source_hit_5,
            "mrr@10": self.mrr_10,
            "span_hit@5": self.span_hit_5,
            "ctx_chars": self.ctx_chars,
            "abstain": self.abstain,
            "wrong_abstain": self.wrong_abstain,
            "answer_span_hit": self.answer_span_hit,
            "first_quote_hit": self.first_quote_hit,
            "answer_chars": self.answer_chars,
            "answer_quotes": self.answer_quotes,
            "key_facts": self.key_facts,
            "key_facts_all": self.key_facts_all,
            "p50_ms": self.p50_ms,
            "p95_ms": self.p95_ms,
        }


def _mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


def _rate(flags: Sequence[bool]) -> float | None:
    return _mean([1.0 if flag else 0.0 for flag in flags])


def summarise(results: Sequence[QuestionResult]) -> Metrics:
    """Aggregate question results. Abstention and answer figures count only questions that
    were answered (grounded is not None); answer_chars and answer_quotes only the grounded
    answers, so the fixed "not covered" sentence does not dilute how long quotes are.
    key_facts is the mean share of the reference's key facts shown, key_facts_all the share
    of questions showing all of them, over questions whose reference states any."""
    scores = [r.score for r in results]
    hit_1 = [s.source_hit_1 for s in scores if s.source_hit_1 is not None]
    hit_5 = [s.source_hit_5 for s in scores if s.source_hit_5 is not None]
    ranks = [s.reciprocal_rank for s in scores if s.reciprocal_rank is not None]
    spans = [s.span_hit_5 for s in scores if s.span_hit_5 is not None]
    unanswerable = [not r.grounded for r in results if r.grounded is not None and not r.answerable]
    answerable = [not r.grounded for r in results if r.grounded is not None and r.answerable]
    latencies = [r.latency_ms for r in results if r.latency_ms is not None]
    contexts = [float(r.ctx_chars) for r in results if r.ctx_chars is not None]
    answer_spans = [r.answer_span_hit for r in results if r.answer_span_hit is not None]
    answer_sizes = [
        float(r.answer_chars) for r in results if r.grounded and r.answer_chars is not None
    ]
    first_quotes = [r.first_quote_hit for r in results if r.first_quote_hit is not None]
    quotes = [float(r.answer_quotes) for r in results if r.grounded and r.answer_quotes is not None]
    facts = [r.key_facts for r in results if r.key_facts is not None]
    return Metrics(
        n=len(results),
        source_hit_1=_rate(hit_1),
        source_hit_5=_rate(hit_5),
        mrr_10=_mean(ranks),
        span_hit_5=_rate(spans),
        ctx_chars=_mean(contexts),
        abstain=_rate(unanswerable),
        wrong_abstain=_rate(answerable),
        answer_span_hit=_rate(answer_spans),
        first_quote_hit=_rate(first_quotes),
        answer_chars=_mean(answer_sizes),
        answer_quotes=_mean(quotes),
        key_facts=_mean(facts),
        key_facts_all=_rate([share == 1.0 for share in facts]),
        p50_ms=percentile(latencies, 50),
        p95_ms=percentile(latencies, 95),
        n_sources=len(hit_5),
        n_spans=len(spans),
        n_unanswerable=len(unanswerable),
        n_answerable=len(answerable),
        n_answer_spans=len(answer_spans),
        n_grounded=len(answer_sizes),
        n_key_facts=len(facts),
    )


def by_type(results: Sequence[QuestionResult]) -> dict[str, Metrics]:
    """`summarise` per question type, types in alphabetical order."""
    groups: dict[str, list[QuestionResult]] = {}
    for result in results:
        groups.setdefault(result.type, []).append(result)
    return {kind: summarise(groups[kind]) for kind in sorted(groups)}
