"""Answers quoted from the material, for when no LLM is configured.

The sentences of the best passages are scored against the question with the embedder; the
best ones are quoted with their citations. When even the best sentence is a weak match
(below a threshold calibrated on the dev questions) the bot says the material does not
cover the question instead of quoting something beside the point."""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from core.answering.citations import citation_for
from core.embedding.embedder import Embedder
from core.index import SearchHit, SparseEncoder
from core.prompts import ABSTENTION
from core.replies import Answer, Citation
from core.text import split_sentences

# Calibrated with `coursebot eval --answers` and bench/abstention.py on syllabusqa-dev
# (3,975 questions, 565 unanswerable): at 0.35 abstention precision is 0.31, recall 0.11,
# and 3.9% of answerable questions are declined. The best-F1 threshold (0.55, recall 0.62)
# would decline 43% of answerable questions, so we keep the one that rarely refuses: the
# sentence-similarity signal separates the two kinds of question only weakly.
DEFAULT_THRESHOLD = 0.35
PASSAGES_READ = 3
MAX_SENTENCES = 30
QUOTED = 3
# Quote further sentences only if they are nearly as good as the best one.
CLOSE_TO_BEST = 0.1
# Sentence embeddings match topic better than answer: "When is the final exam?" is closest
# to "The final exam is cumulative". A sentence holding the kind of thing the question asks
# for (a date for "when", a number for "how much") gets this much added when choosing quotes.
ANSWER_TYPE_BONUS = 0.15
# Sentences that contain the question's own key terms are likelier to answer it.
TERM_OVERLAP_WEIGHT = 0.2
# ... and likelier still when they open with them: "Final exam | 40% | Monday 2026-12-14"
# is about the final exam, "Make-up exam: if you miss the final exam ..." is not.
LEADS_WITH_SUBJECT_BONUS = 0.15
_MONTH = r"jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec"
_ANSWER_TYPES: tuple[tuple[re.Pattern[str], re.Pattern[str]], ...] = (
    (
        re.compile(r"^\s*(when|what time|what date|which day|by when)\b|\bdeadline\b", re.I),
        re.compile(
            rf"\d{{1,2}}[:/.]\d{{1,2}}|\b\d{{4}}-\d{{2}}-\d{{2}}\b|\b({_MONTH})[a-z]*\b"
            r"|\b(mon|tues|wednes|thurs|fri|satur|sun)day\b",
            re.I,
        ),
    ),
    (
        re.compile(r"^\s*where\b|\b(room|location|building)\b", re.I),
        re.compile(r"\b(room|hall|building|online|zoom|lab)\b|\b[A-Z]{1,3}\d{2,4}\b", re.I),
    ),
    (
        re.compile(
            r"^\s*(how (much|many|long)|what (percent|percentage|share))\b|\bworth\b"
            r"|\bweigh",
            re.I,
        ),
        re.compile(r"\d"),
    ),
    (
        re.compile(r"^\s*(who|whom)\b|\b(email|contact)\b", re.I),
        re.compile(r"@|\b(dr|prof|professor|mr|ms|mrs)\b\.?", re.I),
    ),
)


@dataclass(frozen=True, slots=True)
class _Sentence:
    hit: int
    position: int
    text: str


class ExtractiveAnswerer:
    def __init__(self, embedder: Embedder, threshold: float = DEFAULT_THRESHOLD) -> None:
        self.embedder = embedder
        self.threshold = threshold
        self.terms = SparseEncoder()

    async def answer(self, question: str, hits: list[SearchHit]) -> Answer:
        sentences = _sentences(hits[:PASSAGES_READ])
        if not sentences:
            return Answer(text=ABSTENTION, grounded=False, quoted=True, support=0.0)
        vectors = await self.embedder.embed([question, *(s.text for s in sentences)])
        similarity = vectors[1:] @ vectors[0]
        support = float(similarity.max())
        if support < self.threshold:
            return Answer(text=ABSTENTION, grounded=False, quoted=True, support=support)
        typed = _answer_type_matches(question, sentences)
        scores = (
            similarity
            + ANSWER_TYPE_BONUS * typed
            + TERM_OVERLAP_WEIGHT * self._term_overlap(question, sentences)
            + LEADS_WITH_SUBJECT_BONUS * self._leads_with_subject(question, sentences)
        )
        # A "when" question is not answered by a sentence without a date: when some relevant
        # sentence holds what is asked for, only those are quoted.
        relevant = similarity >= self.threshold
        if _asks_for_a_type(question) and bool((typed.astype(bool) & relevant).any()):
            scores = np.where(typed.astype(bool), scores, -np.inf)
        best = float(scores.max())
        ranked = np.argsort(-scores)[:QUOTED]
        chosen = sorted(
            (sentences[i] for i in ranked if scores[i] >= best - CLOSE_TO_BEST),
            key=lambda s: (s.hit, s.position),
        )
        return _quote(chosen, hits, support)

    def _term_overlap(self, question: str, sentences: list[_Sentence]) -> np.ndarray:
        wanted = set(self.terms.terms(question))
        if not wanted:
            return np.zeros(len(sentences), dtype=np.float32)
        return np.array(
            [len(wanted & set(self.terms.terms(s.text))) / len(wanted) for s in sentences],
            dtype=np.float32,
        )

    def _leads_with_subject(self, question: str, sentences: list[_Sentence]) -> np.ndarray:
        """The share of the question's key terms among a sentence's first words (a table
        row's first cell, a bullet's subject)."""
        wanted = set(self.terms.terms(question))
        if not wanted:
            return np.zeros(len(sentences), dtype=np.float32)
        leads = []
        for sentence in sentences:
            body = sentence.text.splitlines()[-1]  # a table row without its header
            opening = set(self.terms.terms(body)[: len(wanted) + 1])
            leads.append(len(wanted & opening) / len(wanted))
        return np.array(leads, dtype=np.float32)


def _asks_for_a_type(question: str) -> bool:
    return any(asks.search(question) for asks, _answer in _ANSWER_TYPES)


def _answer_type_matches(question: str, sentences: list[_Sentence]) -> np.ndarray:
    wanted = [answer for asks, answer in _ANSWER_TYPES if asks.search(question)]
    return np.array(
        [float(any(pattern.search(s.text) for pattern in wanted)) for s in sentences],
        dtype=np.float32,
    )


def _sentences(hits: list[SearchHit]) -> list[_Sentence]:
    found = []
    for number, hit in enumerate(hits):
        position = 0
        header = ""
        for line in hit.chunk.text.splitlines():
            line = line.strip()
            if line.startswith("|"):
                # A table row means little without its header: quote them together.
                if not header:
                    header = line
                    continue
                units = [f"{header}\n{line}"]
            else:
                header = ""
                units = split_sentences(line)
            for sentence in units:
                if len(sentence.split()) >= 3:
                    found.append(_Sentence(number, position, sentence.strip()))
                    position += 1
    return found[:MAX_SENTENCES]


def _quote(chosen: list[_Sentence], hits: list[SearchHit], support: float) -> Answer:
    numbers: dict[int, int] = {}
    citations: list[Citation] = []
    lines = []
    for sentence in chosen:
        if sentence.hit not in numbers:
            numbers[sentence.hit] = len(numbers) + 1
            citations.append(citation_for(hits[sentence.hit]))
        lines.append(f"“{sentence.text}” [{numbers[sentence.hit]}]")
    return Answer(
        text="\n".join(lines),
        citations=tuple(citations),
        grounded=True,
        quoted=True,
        support=support,
    )
