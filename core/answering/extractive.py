"""Answers quoted from the material, for when no LLM is configured.

The packed passages are cut into quotable units (`core.answering.quote_units`: table rows
with their headers, list items, whole sentences); each unit is scored against the question
by its share of the question's key terms (weighted by how rare each term is among the
units, its heading counting too), the kind of thing the question asks for (a date for
"when"), whether it opens with the question's subject, how close its stored unit vector is
to the question (retrieval's unit scores, late chunking), and its passage's rank. The best
units are quoted with their citations, each once, within MAX_ANSWER_CHARS. When even the best
unit holds too little of the question, the bot says the material does not cover it."""

from __future__ import annotations

import functools
import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import replace
from itertools import pairwise

import numpy as np

from core.answering.answerability import FEATURES, Answerability, Evidence
from core.answering.citations import CitationNumbers
from core.answering.quote_units import QuoteUnit, UnitKind, passage_units
from core.course_codes import codes_in
from core.day_mentions import with_day_tokens
from core.documents import document_label, without_names
from core.index import SearchHit, SparseEncoder
from core.index.chunk_index import GUIDED_EXERCISE_KIND
from core.prompts import ABSTENTION, RELATED_NOT_STATING
from core.replies import Answer

# `coursebot eval --answers --budget 4000` on syllabusqa-dev (default variant, k=5,
# 2026-12-01, loaded 2-core machine): answer_span_hit 0.627 at 521 characters, abstain 0.057,
# wrong_abstain 0.035; the embedding-scored sentences before gave 0.232 at 130 characters.
# Ablations with a dev harness replaying the same packed hits as `coursebot eval` on
# syllabusqa-dev (3,975 questions, 2,272 with gold spans, 565 unanswerable; dbsf top 5 packed
# into 4,000 characters), 2-core machine under load; figures are answer_span_hit.
# The quoting unit: 0.470 for the best units alone, 0.555 with the unit after each, 0.576 with
# the two after (FOLLOWING), 0.566 with three. Most gold spans run on past the sentence that
# matches the question best. The gold span is in the packed passages for 0.841 of the
# questions: that is the ceiling of any quoting.
# The support threshold: the best unit's weighted share of the question's terms. At 0.15, 6.5%
# of unanswerable questions are declined and 4.4% of answerable ones; at 0.25, 31% and 21%.
# The embedding similarity it replaces separated the two no better (0.35: 11% and 3.9%) and
# cost 50 ms (700 ms on a loaded machine) per question.
DEFAULT_THRESHOLD = 0.15
PASSAGES_READ = 5
MAX_ANSWER_CHARS = 600
QUOTED = 4
# Units after each quoted one, read as one excerpt with it (the fact and what it goes on to
# say): replaying syllabusqa-dev's packed hits, answer_span_hit 0.652 with two, 0.654 with
# three; a table row is followed by ROWS_FOLLOWING rows, each its own line.
FOLLOWING = 3
ROWS_FOLLOWING = 2
# One excerpt is one quote; its rows and list items are set apart by this.
PARTS_JOINED = " | "
# A declined question still shows this many of the closest units, labelled as not stating it.
RELATED = 2
# Quote further units only if they score at least this share of the best one (0.4: 0.615,
# 0.8: 0.582 at fewer characters).
CLOSE_TO_BEST = 0.6
# The last of the QUOTED picks must score this share of the best one, unless it holds a key
# term of the question the others lack: a fourth quote saying again what three said is more
# to read, not more answer. Replaying syllabusqa-dev's packed hits (`coursebot eval --answers
# --budget 4000`): quotes per answer 3.10 -> 2.99, answer_span_hit 0.665 -> 0.663,
# first_quote_hit 0.447 -> 0.450 (the room left lets the first picks read on); the teaching
# courses unchanged. 0.8: 2.80 quotes at 0.660; the threshold alone (no new-term escape):
# 2.96 at 0.663, d2l-dl-basics 0.719 -> 0.702.
LAST_CLOSE_TO_BEST = 0.7
# A unit holding the kind of thing the question asks for (a date for "when", a number for
# "how much") gets this much added.
ANSWER_TYPE_BONUS = 0.15
# ... and units that open with the question's key terms: "Final exam | 40% | Monday
# 2026-12-14" is about the final exam, "Make-up exam: if you miss the final exam ..." is not.
LEADS_WITH_SUBJECT_BONUS = 0.15
# ... and, for "what is X?", units defining X: emphasis naming it or "X is/refers to ...".
# Replaying the packed hits: d2l-dl-basics answer_span_hit 0.719 -> 0.737, first_quote_hit
# 0.526 -> 0.561 ("*Forward propagation* ... refers to" now first), syllabusqa-dev 0.663 ->
# 0.665 ("The objective of this course is ..."), cs231n-notes unchanged. 0.3: the same;
# emphasis naming only some of the key terms: cs231n-notes 0.763 -> 0.746.
DEFINES_BONUS = 0.15
# Heading words count for the units under them, at this weight.
HEADING_WEIGHT = 0.5
# Each rank down costs this much: retrieval already judged the passages (0 or 0.08: -0.005).
RANK_PENALTY = 0.03
# A unit inside the chunk retrieval matched (its passage adds the neighbours): 0.576 -> 0.608.
MATCHED_BONUS = 0.5
# BM25's b, mildly (0.3: +0.006; 0.6: -0.013).
LENGTH_NORM = 0.3
# Each unit's similarity to the question, read from the vector ingestion stored for the
# matching unit of its chunk (late chunking; no model call here), as its distance below the
# best unit's, times this: answer_span_hit 0.625 -> 0.641, replaying syllabusqa-dev's packed
# hits. Added as it is (not below the best) it gave 0.647, but the shared offset let weaker
# units pass CLOSE_TO_BEST (a learning-outcomes line quoted for "What are the lab's safety
# rules?"); weight 1.0 put "The final exam is cumulative" before the sample course's
# final-exam row with the date. Units of neighbouring chunks, which have none here, count
# as the least similar one.
UNIT_SIMILARITY_WEIGHT = 0.5
# Rows leading quotes are about their whole table when the second scores this share of the
# best: "How is the course graded?" 0.98 (four weights), "When is the final exam and where
# is it held?" 0.71 (the final's row).
ROWS_ALIKE = 0.9
# A quoted unit and a stored one are the same (or one holds the other) when this share of the
# smaller one's words is in both.
SAME_UNIT = 0.6
# A follow-up's own words weigh this much more than the question it was read with.
LAST_ASKED_WEIGHT = 2.0
# Month names and their abbreviations, not words that begin like one ("market", "novel",
# "decide"); "may" only beside a number ("May 4", "4 May"), not the verb.
_MONTH = (
    r"\b(jan(uary)?|feb(ruary)?|mar(ch)?|apr(il)?|june?|july?|aug(ust)?|sept?(ember)?"
    r"|oct(ober)?|nov(ember)?|dec(ember)?)\b\.?|\bmay\s+\d|\d\s+may\b"
)
_ANSWER_TYPES: tuple[tuple[re.Pattern[str], re.Pattern[str]], ...] = (
    (
        re.compile(r"^\s*(when|what time|what date|which day|by when)\b|\bdeadline\b", re.I),
        re.compile(
            rf"\d{{1,2}}[:/.]\d{{1,2}}|\b\d{{4}}-\d{{2}}-\d{{2}}\b|{_MONTH}"
            r"|\b(mon|tues|wednes|thurs|fri|satur|sun)day\b|\bweek \d"
            r"|\b(mon|tues?|wed|thu(rs?)?|fri)\b\.?|\b(mwf|tth|m/w/f|t/th)\b"
            r"|\b\d{1,2}\s?([ap]\.?m\b\.?)",
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
    (  # "How is the course graded?" is answered by the weights
        re.compile(r"\b(graded|grading|breakdown|weights?|weighted)\b", re.I),
        re.compile(r"\d\s*%"),
    ),
    (
        re.compile(r"^\s*(who|whom)\b|\b(email|contact)\b", re.I),
        re.compile(r"@|\b(dr|prof|professor|mr|ms|mrs)\b\.?", re.I),
    ),
)


# A question about practice may be answered from a guided exercise's summary; any other is
# answered from the teaching material when that supports it, as the step prompts are problems
# to solve, not facts: "What is the derivative of x^3?" on the sample course quoted "Differentiate
# f(x) = 2 x^3 with the power rule, then evaluate the derivative." first.
_ASKS_FOR_PRACTICE = re.compile(
    r"\b(exercises?|practi[cs]e|drills?|worksheets?|problem sets?)\b", re.I
)


QUANTITY_WORDS = "much many"
# Unit texts whose terms are remembered (a few hundred bytes each): a busy course's passages.
UNIT_TERMS_CACHED = 20_000
# A question asking whether ("Is there a curve?", "Can I resubmit?"): the unanswerable ones
# are often of this kind, asking about a rule the syllabus never states.
_ASKS_WHETHER = re.compile(
    r"^\s*(is|are|am|was|were|does|do|did|can|could|will|would|should|shall|may|must|has|"
    r"have|had)\b",
    re.I,
)


class ExtractiveAnswerer:
    """Scores quotable units with no model call: lexically, and by the unit similarities
    retrieval attached to the hits (see the figures above: embedding sentences here quoted
    the fact less often and cost 50-700 ms)."""

    def __init__(
        self, answerability: Answerability | None = None, threshold: float = DEFAULT_THRESHOLD
    ) -> None:
        # Whether the passages answer at all: the fitted model shipped with the package.
        self.answerability = answerability or Answerability.load()
        self.threshold = threshold
        # The index's own terms (stop words out, stemmed, stems cached): lexical scoring
        # here and the sparse search agree on what a word is.
        self.terms = SparseEncoder()
        # "How much", "how many" ask for a quantity (the answer-type rules look for one); as
        # key terms they were absent from every unit and outweighed the subject ("How much
        # is homework worth?" was declined beside "Homework | 20%").
        self.asking = frozenset(self.terms.terms(QUANTITY_WORDS))
        # The terms of units' texts, remembered: the same passages come back for question
        # after question, and reading their terms was ~100 encoder calls an answer.
        self._unit_terms = functools.lru_cache(maxsize=UNIT_TERMS_CACHED)(self._read_terms)

    def _read_terms(self, text: str) -> tuple[str, ...]:
        return tuple(self._terms(text))

    async def answer(self, question: str, hits: list[SearchHit]) -> Answer:
        units = [
            unit
            for number, hit in enumerate(hits[:PASSAGES_READ])
            for unit in passage_units(number, hit.chunk.text, hit.chunk.section)
        ]
        wanted = [t for t in dict.fromkeys(self._terms(question)) if t not in self.asking]
        if not units or not wanted:
            return Answer(text=ABSTENTION, grounded=False, quoted=True, support=0.0)
        last = self._asked_last(question)
        coverage, spread, missing = self._coverage(wanted, last, units)
        facts = _not_practice(question, units, hits)
        if len(facts) < len(units) and coverage[facts].max(initial=0.0) >= self.threshold:
            units = [units[n] for n in facts]
            coverage, spread, missing = self._coverage(wanted, last, units)
        own = [n for n, unit in enumerate(units) if hits[unit.passage].named]
        if own:
            # The question names a document: its own passages answer when they can, read for
            # what is asked of it (the words naming it say which document, not which fact:
            # "the main material of Discrete Mathematics" is not a book titled so), and
            # another course's rule is never quoted as the named one's.
            mine = [units[n] for n in own]
            asked = self._without_naming(question, hits)
            narrowed = self._coverage(asked, last, mine)[0] if asked else np.zeros(0)
            if narrowed.size and narrowed.max() >= self.threshold:
                units, wanted, coverage = mine, asked, narrowed
            elif coverage[own].max() >= self.threshold:
                units, coverage = mine, coverage[own]
        support = float(coverage.max())
        ranks = np.array([unit.passage for unit in units], dtype=np.float32)
        typed = _answer_type_matches(question, units)
        leads = self._leads_with_subject(wanted, units)
        similarity = _unit_similarity(units, hits)
        scores = (
            coverage / _length_norm(units)
            + ANSWER_TYPE_BONUS * typed
            + LEADS_WITH_SUBJECT_BONUS * leads
            + LEADS_WITH_SUBJECT_BONUS * self._keyed(wanted, units)
            + LEADS_WITH_SUBJECT_BONUS * self._flagged(wanted, units)
            + DEFINES_BONUS * self._defines(question, wanted, units)
            + MATCHED_BONUS * np.array([_in_matched(u, hits) for u in units], dtype=np.float32)
            + UNIT_SIMILARITY_WEIGHT * _relative(similarity)
            - RANK_PENALTY * ranks
        )
        asks_type = _asks_type(question)
        best = int(np.argmax(scores))
        stored = sorted((s for hit in hits for _, s in hit.unit_scores), reverse=True)
        evidence = Evidence(
            support=support,
            typed_support=float(coverage[typed > 0].max(initial=0.0)) if asks_type else support,
            asks_type=float(asks_type),
            spread=spread,
            missing=missing,
            leads=float(leads.max()),
            similarity=float(stored[0]) if stored else 0.0,
            similarity_3=float(np.mean(stored[:3])) if stored else 0.0,
            best_unit_similarity=float(similarity[best]),
            covering_similarity=float(similarity[int(np.argmax(coverage))]),
            top_score=hits[0].score,
            second_score=hits[1].score if len(hits) > 1 else 0.0,
            key_terms=float(len(wanted)),
            yes_no=float(bool(_ASKS_WHETHER.match(question))),
        )
        named = tuple(zip(FEATURES, evidence.vector().tolist(), strict=True))
        if self.answerability.declines(evidence):
            related = _related(units, scores) if support > 0 else []
            return replace(_declined(related, hits, support), evidence=named)
        keys = set(wanted)
        holds = [keys.intersection(self._unit_terms(unit.shown)) for unit in units]
        answer = _quote(_choose(units, scores, typed, holds), hits, support)
        return replace(answer, evidence=named)

    def _terms(self, text: str) -> list[str]:
        """The index's terms of `text`, each day it names one term however written ("May
        1st" in a question, "5/01" in a schedule's row: `core.day_mentions`)."""
        return self.terms.terms(with_day_tokens(text))

    def _without_naming(self, question: str, hits: list[SearchHit]) -> list[str]:
        """The key terms of `question` without the words naming its documents."""
        asked = without_names(question, [word for hit in hits for word in hit.named_by])
        return [t for t in dict.fromkeys(self._terms(asked)) if t not in self.asking]

    def _asked_last(self, question: str) -> set[str]:
        """The terms of the question's last sentence when it has several: a follow-up read
        with the question before it ("When is the final exam? and the resit?") asks the last."""
        parts = re.split(r"(?<=[?.!])\s+", question.strip())
        return set(self._terms(parts[-1])) if len(parts) > 1 else set()

    def _coverage(
        self, wanted: list[str], last: set[str], units: list[QuoteUnit]
    ) -> tuple[np.ndarray, float, float]:
        """Each unit's share of the question's key terms, each term weighted by its rarity
        among the units (and LAST_ASKED_WEIGHT times more when `last` asks it); terms found
        only in the unit's headings count HEADING_WEIGHT (a table row's, in full). Then the
        weighted share of the terms found anywhere in the units (their headings too), and the
        share of terms found nowhere."""
        bodies = [set(self._unit_terms(unit.shown)) for unit in units]
        headings = [set(self._unit_terms(f"{unit.heading} {unit.context}")) for unit in units]
        # A table's heading says what its rows are ("Grading Policy"): it counts in full.
        labels = [1.0 if unit.kind is UnitKind.ROW else HEADING_WEIGHT for unit in units]
        seen = Counter(term for body in bodies for term in body)
        weight = {
            t: math.log(1 + len(units) / (1 + seen[t])) * (LAST_ASKED_WEIGHT if t in last else 1)
            for t in wanted
        }
        total = sum(weight.values())
        anywhere = set().union(*bodies, *headings)
        spread = sum(weight[t] for t in wanted if t in anywhere) / total
        coverage = np.array(
            [
                sum(
                    weight[t] * (1.0 if t in body else labelled if t in heading else 0.0)
                    for t in wanted
                )
                / total
                for body, heading, labelled in zip(bodies, headings, labels, strict=True)
            ],
            dtype=np.float32,
        )
        return coverage, spread, sum(t not in anywhere for t in wanted) / len(wanted)

    def _leads_with_subject(self, wanted: list[str], units: list[QuoteUnit]) -> np.ndarray:
        """The share of the question's key terms among a unit's first words (a row's first
        cell, an item's subject)."""
        keys = set(wanted)
        leads = [
            len(keys & set(self._unit_terms(_opening(unit))[: len(keys) + 1])) / len(keys)
            for unit in units
        ]
        return np.array(leads, dtype=np.float32)

    def _defines(self, question: str, wanted: list[str], units: list[QuoteUnit]) -> np.ndarray:
        """For a question asking what something is, 1 for units defining it: naming exactly
        the question's key terms in emphasis ("*Backpropagation* refers to ...") or before
        "is", "are", "refers to", "means" ("The objective of this course is ...")."""
        if not _ASKS_WHAT_IS.match(question):
            return np.zeros(len(units), dtype=np.float32)
        keys = set(wanted)
        found = []
        for unit in units:
            named = ["".join(groups) for groups in _EMPHASIS.findall(unit.text)]
            subject, *defined = _DEFINING.split(unit.text, maxsplit=1)
            if defined:
                named.append(subject)
            found.append(float(any(set(self._unit_terms(name)) == keys for name in named)))
        return np.array(found, dtype=np.float32)

    def _keyed(self, wanted: list[str], units: list[QuoteUnit]) -> np.ndarray:
        """1 for a key/value row whose key the question asks for ("what is the description
        of ...": the row "Description: ..."), not rows that only mention the word."""
        keys = set(wanted)
        return np.array(
            [float(bool(u.key) and set(self.terms.terms(u.key)) <= keys) for u in units],
            dtype=np.float32,
        )

    def _flagged(self, wanted: list[str], units: list[QuoteUnit]) -> np.ndarray:
        """For rows of a table with yes/no columns the question names ("the main material":
        a column "Is Main Material"), 1 where the row says yes, -1 where it says no."""
        keys = set(wanted)
        found = []
        for unit in units:
            said = [
                _YES.fullmatch(value.strip()) is not None
                for name, value in _pairs(unit)
                if _FLAG.fullmatch(value.strip()) and set(self.terms.terms(name)) & keys
            ]
            found.append(0.0 if not said else 1.0 if any(said) else -1.0)
        return np.array(found, dtype=np.float32)


# "What is X?", "What are the objectives?", "Define X", "What does X mean?"
_ASKS_WHAT_IS = re.compile(r"^\s*(what\s+(is|are)\b|what's\b|define\b|what does\b.*\bmean\b)", re.I)
# What a definition says after its subject ("X is ...", "X refers to ...").
_DEFINING = re.compile(r"\s(?:is|are|refers to|means|is called|is defined as)\s", re.I)
# A displayed formula opens so in Markdown and LaTeX.
_DISPLAYED_MATH = ("$$", "\\[")
# Textbooks set the term they define in emphasis: **X**, *X*, _X_.
_EMPHASIS = re.compile(
    r"\*\*([^*\n]+)\*\*|(?<![*\w])\*([^*\n]+)\*(?![*\w])|(?<!\w)_([^_\n]+)_(?!\w)"
)

_FLAG = re.compile(r"(?i)yes|no|true|false|x|y|n")
_YES = re.compile(r"(?i)yes|true|x|y")


def _pairs(unit: QuoteUnit) -> list[tuple[str, str]]:
    """A table row's "Header: cell" pairs (none for other units)."""
    if unit.kind is not UnitKind.ROW or unit.key:
        return []
    return [
        (name, value)
        for pair in unit.text.split("; ")
        for name, sep, value in [pair.partition(": ")]
        if sep
    ]


def _not_practice(question: str, units: list[QuoteUnit], hits: list[SearchHit]) -> list[int]:
    """Which units may answer when the teaching material supports the question: all of them
    for a question about practice, else those outside guided exercises' summaries."""
    if _ASKS_FOR_PRACTICE.search(question):
        return list(range(len(units)))
    return [
        n for n, unit in enumerate(units) if hits[unit.passage].chunk.kind != GUIDED_EXERCISE_KIND
    ]


def _length_norm(units: list[QuoteUnit]) -> np.ndarray:
    """BM25's length normalisation, mild: a long unit holds more question words by chance."""
    lengths = np.array([len(unit.text) for unit in units], dtype=np.float32)
    return 1 - LENGTH_NORM + LENGTH_NORM * lengths / max(float(lengths.mean()), 1.0)


def _in_matched(unit: QuoteUnit, hits: list[SearchHit]) -> bool:
    matched = hits[unit.passage].chunk.matched
    return not matched or " ".join(unit.source.split())[:40] in " ".join(matched.split())


def _unit_similarity(units: list[QuoteUnit], hits: list[SearchHit]) -> np.ndarray:
    """Each unit's similarity to the question as retrieval scored its chunk's units
    (`SearchHit.unit_scores`); zeros where no hit carries them."""
    words = {id(hit): [(_words(text), score) for text, score in hit.unit_scores] for hit in hits}
    found: list[float | None] = []
    for unit in units:
        mine = _words(unit.source or unit.text)
        # The stored units that are (mostly) this one, or inside it (a list item of several
        # sentences was stored sentence by sentence): the best of them.
        scores = [
            score
            for theirs, score in words[id(hits[unit.passage])]
            if mine and theirs and len(mine & theirs) >= SAME_UNIT * min(len(mine), len(theirs))
        ]
        found.append(max(scores) if scores else None)
    known = [score for score in found if score is not None]
    floor = min(known, default=0.0)
    return np.array([floor if score is None else score for score in found], dtype=np.float32)


def _words(text: str) -> set[str]:
    return set(re.findall(r"\w+", text.casefold()))


def _opening(unit: QuoteUnit) -> str:
    if unit.kind is UnitKind.ROW:  # "Component: Final exam; Weight: 40%": the cells
        return " ".join(pair.partition(": ")[2] for pair in unit.text.split("; "))
    return unit.text


def _asks_type(question: str) -> bool:
    return any(asks.search(question) for asks, _ in _ANSWER_TYPES)


def _answer_type_matches(question: str, units: Sequence[QuoteUnit]) -> np.ndarray:
    wanted = [answer for asks, answer in _ANSWER_TYPES if asks.search(question)]
    return np.array(
        [float(any(pattern.search(u.text) for pattern in wanted)) for u in units],
        dtype=np.float32,
    )


class _Room:
    """What an answer still holds: MAX_ANSWER_CHARS of quotes, each unit once (a unit that a
    quoted one already holds is not quoted again)."""

    def __init__(self) -> None:
        self.left = MAX_ANSWER_CHARS
        self.shown: list[str] = []

    def take(self, unit: QuoteUnit) -> bool:
        """Whether `unit` is quoted: new, and within the room left (the first always is)."""
        key = _key(unit.shown)
        if any(key in other for other in self.shown):
            return False
        cost = _cost(unit)
        if self.shown and cost > self.left:
            return False
        self.shown.append(key)
        self.left -= cost
        return True


def _cost(unit: QuoteUnit) -> int:
    """The characters a quote of `unit` takes: the text, its quotation marks and citation."""
    return len(unit.shown) + 8


def _choose(
    units: list[QuoteUnit], scores: np.ndarray, typed: np.ndarray, holds: list[set[str]]
) -> list[list[QuoteUnit]]:
    """The best units, best first, each once, within MAX_ANSWER_CHARS (the last of QUOTED
    only when close to the best or holding a key term the others lack; `holds`: each unit's
    key terms); each may be followed by the units after it in its passage while there is
    room (a row by rows). Quotes led by
    a unit holding what the question asks for (`typed`: a date for "when") are shown first:
    the reader sees the date before the sentence about the exam."""
    best = float(scores.max())
    where = {id(unit): n for n, unit in enumerate(units)}
    picks: list[list[QuoteUnit]] = []
    room = _Room()

    def extend(pick: list[QuoteUnit], most: int | None = None) -> None:
        following = ROWS_FOLLOWING if pick[0].kind is UnitKind.ROW else FOLLOWING
        for _ in range(following - len(pick) + 1 if most is None else most):
            last = pick[-1]
            j = where[id(last)] + 1
            if j >= len(units) or units[j].passage != last.passage:
                return
            # A row goes on with the rows of its table, not with the text after the table
            # ("Letter grades: ..." after the final exam's row); syllabusqa-dev unchanged.
            if last.kind is UnitKind.ROW and units[j].kind is not UnitKind.ROW:
                return
            if not room.take(units[j]):
                return
            pick.append(units[j])

    for i in np.argsort(-scores, kind="stable"):
        if len(picks) == QUOTED or (picks and scores[i] < CLOSE_TO_BEST * best):
            break
        last = len(picks) == QUOTED - 1 and scores[i] < LAST_CLOSE_TO_BEST * best
        if last and _adds_nothing(units, int(i), picks, where, holds):
            break
        if room.take(units[i]):
            picks.append([units[i]])
            # A sentence ending in ":" introduces what follows it (a formula, a list), and one
            # before a displayed formula states it ("the output shape is" $$ ... $$): it is
            # quoted with it while there is room, not bare.
            if _introduces(units, int(i)):
                extend(picks[-1], 1)
    for pick in picks:
        extend(pick)
    # A whole table for a question about it: the sample course's "How is the course graded?"
    # showed three of its four weights; syllabusqa-dev, with few tables, lost 1 question.
    picks = _whole_tables(units, where, scores, picks)
    # Only the order changes, after the choice: which units fit stays the scores' call
    # (letting only such units lead lowered answer_span_hit, 0.642 -> 0.617, on every kind).
    return sorted(picks, key=lambda pick: not typed[where[id(pick[0])]])


def _introduces(units: list[QuoteUnit], n: int) -> bool:
    """Whether unit `n` reads on into the next one of its passage: it ends in ":", or a
    displayed formula follows it. The formula: d2l-dl-basics answer_span_hit 0.737 -> 0.754,
    first_quote_hit 0.561 -> 0.579; syllabusqa-dev and cs231n-notes unchanged (replayed)."""
    if units[n].text.endswith(":"):
        return True
    after = units[n + 1] if n + 1 < len(units) else None
    return (
        after is not None
        and after.passage == units[n].passage
        and after.text.lstrip().startswith(_DISPLAYED_MATH)
    )


def _adds_nothing(
    units: list[QuoteUnit],
    n: int,
    picks: list[list[QuoteUnit]],
    where: dict[int, int],
    holds: list[set[str]],
) -> bool:
    """Whether unit `n` holds no key term the picks lack and is no row of a table a pick
    leads (that row may make its table whole: "How is the course graded?")."""
    said = set().union(*(holds[where[id(unit)]] for pick in picks for unit in pick))
    tables = {_table(units, where[id(pick[0])]) for pick in picks}
    return holds[n] <= said and not (units[n].kind is UnitKind.ROW and _table(units, n) in tables)


def _whole_tables(
    units: list[QuoteUnit],
    where: dict[int, int],
    scores: np.ndarray,
    picks: list[list[QuoteUnit]],
) -> list[list[QuoteUnit]]:
    """Where two quotes or more are led by rows of one table scoring alike, the question is
    about the table ("How is the course graded?"), not one row ("When is the final exam?"):
    it is quoted whole, in its order, first in the room, if it fits in an answer; the other
    quotes keep what room is left. (`where`: each unit's place in `units`, by identity.)"""
    spans = [_table(units, where[id(pick[0])]) for pick in picks]
    led: dict[tuple[int, int], list[float]] = {}
    for pick, span in zip(picks, spans, strict=True):
        if span is not None:
            led.setdefault(span, []).append(float(scores[where[id(pick[0])]]))
    tables = [
        span
        for span, led_by in led.items()
        if len(led_by) >= 2
        and sorted(led_by)[-2] >= ROWS_ALIKE * max(led_by)
        and sum(_cost(units[k]) for k in range(*span)) <= MAX_ANSWER_CHARS
    ]
    if not tables:
        return picks
    whole = [[units[k] for k in range(start, end)] for start, end in tables]
    rest = [pick for pick, span in zip(picks, spans, strict=True) if span not in tables]
    kept: list[list[QuoteUnit]] = []
    room = _Room()
    for pick in [*whole, *rest]:
        quoted = []
        for unit in pick:
            if not room.take(unit):
                break
            quoted.append(unit)
        if quoted:
            kept.append(quoted)
    return kept


def _table(units: list[QuoteUnit], n: int) -> tuple[int, int] | None:
    """The run of rows unit `n` belongs to in its passage (start, end), if it is a row."""
    if units[n].kind is not UnitKind.ROW:
        return None

    def same(k: int) -> bool:
        return units[k].kind is UnitKind.ROW and units[k].passage == units[n].passage

    start, end = n, n + 1
    while start > 0 and same(start - 1):
        start -= 1
    while end < len(units) and same(end):
        end += 1
    return start, end


def _key(text: str) -> str:
    return " ".join(re.sub(r"[^\w\s]", " ", text.casefold()).split())


def _quote(picks: list[list[QuoteUnit]], hits: list[SearchHit], support: float) -> Answer:
    numbers = CitationNumbers()
    lines: list[str] = []
    picks = _adjoined(picks)
    labelled = _labelled_passages(picks, hits)
    for pick in picks:
        hit = hits[pick[0].passage]
        number = numbers.of(hit)
        label = _label(hit) if pick[0].passage in labelled else ""
        lines.extend(f"“{text}”{_unless_said(label, text)} [{number}]" for text in _excerpts(pick))
    return Answer(
        text="\n".join(lines),
        citations=numbers.citations,
        grounded=True,
        quoted=True,
        support=support,
    )


def _labelled_passages(picks: list[list[QuoteUnit]], hits: list[SearchHit]) -> set[int]:
    """The passages whose quotes say which document they are from: every one when the
    answer quotes several documents, any not from a document the question names (a fact
    of another course is never read as the named course's), and any from a document the
    question names by its name rather than its code, when the document has a code (the
    student sees which course the name was read as; a title would only repeat the name)."""
    passages = {pick[0].passage for pick in picks}
    documents = {hits[p].chunk.document_id for p in passages}
    if len(documents) > 1:
        return passages
    if any(hit.named for hit in hits):
        return {p for p in passages if not hits[p].named or _named_without_code(hits[p])}
    return set()


def _named_without_code(hit: SearchHit) -> bool:
    return (
        bool(hit.named_by)
        and not any(codes_in(word) for word in hit.named_by)
        and bool(codes_in(_label(hit)))
    )


def _label(hit: SearchHit) -> str:
    return document_label(hit.chunk.title, hit.chunk.file_name)


def _unless_said(label: str, shown: str) -> str:
    """ " (DBI202)" after a quote, unless the quote names it already."""
    if not label or label.casefold() in shown.casefold():
        return ""
    return f" ({label})"


def _adjoined(picks: list[list[QuoteUnit]]) -> list[list[QuoteUnit]]:
    """A pick that begins where a better one's excerpt ends, in one passage, reads on in that
    excerpt: one quote, the better pick's units first."""
    merged: list[list[QuoteUnit]] = []
    for pick in picks:
        for kept in merged:
            # Rows stay in the order the scores gave them (the row asked about first).
            if UnitKind.ROW in (kept[0].kind, pick[0].kind) or kept[0].passage != pick[0].passage:
                continue
            # Only what reads on after a better pick joins it: the best unit stays first.
            if pick[0].position == kept[-1].position + 1:
                kept.extend(pick)
                break
        else:
            merged.append(list(pick))
    return merged


def _excerpts(pick: list[QuoteUnit]) -> list[str]:
    """A pick as the quotes it reads as: one excerpt, its units in their order (a sentence
    and the ones after it read on; a row, list item or line after another is set apart by
    PARTS_JOINED). A whole table (more rows than one row reads with) is a row a line. One
    a line, a row's neighbours and a list's items took half the quotes of syllabusqa-dev's
    answers."""
    if pick[0].kind is UnitKind.ROW and len(pick) > 1 + ROWS_FOLLOWING:
        return [unit.shown for unit in pick]
    text = pick[0].shown
    for before, unit in pairwise(pick):
        reads_on = before.kind is UnitKind.SENTENCE and unit.kind is UnitKind.SENTENCE
        text += f" {unit.shown}" if reads_on else f"{PARTS_JOINED}{_after_row(before, unit)}"
    return [text]


def _after_row(before: QuoteUnit, unit: QuoteUnit) -> str:
    """A row after a row of its table without the column names the first one showed
    ("Midterm exam; 30%" after "Component: Homework; Weight: 20%"); anything else whole."""
    names = [name for name, _ in _pairs(before)]
    pairs = _pairs(unit)
    if not pairs or unit.heading or [name for name, _ in pairs] != names:
        return unit.shown
    return "; ".join(value for _, value in pairs)


def _relative(similarity: np.ndarray) -> np.ndarray:
    """Similarities as distances below the best one (0 for it): a shared offset would lift
    every unit towards CLOSE_TO_BEST of the best and let weaker ones into the quote."""
    return similarity - similarity.max() if similarity.size else similarity


def _related(units: list[QuoteUnit], scores: np.ndarray) -> list[QuoteUnit]:
    """The closest units to a question the passages do not answer: the best RELATED of them,
    each once."""
    room = _Room()
    related: list[QuoteUnit] = []
    for i in np.argsort(-scores, kind="stable"):
        if len(related) == RELATED:
            break
        if room.take(units[i]):
            related.append(units[i])
    return related


def _declined(related: list[QuoteUnit], hits: list[SearchHit], support: float) -> Answer:
    """The decline in one line, then the closest units, labelled as not stating the answer."""
    if not related:
        return Answer(text=ABSTENTION, grounded=False, quoted=True, support=support)
    numbers = CitationNumbers()
    lines = [ABSTENTION, RELATED_NOT_STATING]
    lines.extend(f"“{unit.shown}” [{numbers.of(hits[unit.passage])}]" for unit in related)
    return Answer(
        text="\n".join(lines),
        citations=numbers.citations,
        grounded=False,
        quoted=True,
        support=support,
    )
