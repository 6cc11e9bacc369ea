"""Whether a question is for the catalog: it must name a known course (a code, a unique
upper-case prefix, a whole course name) AND ask for prerequisites, credits, semesters,
"can I take", what a course unlocks, or what a failed course blocks. Anything else goes
to retrieval, so the check stays conservative.

The rules, read on the folded question (each pinned by tests/core/catalog/test_intent.py):

| question | asks |
|---|---|
| "what does MAS291 require?", "prerequisites of DAT301m" | PREREQUISITES |
| "which courses require MAS291?", "what is MAS291 a prerequisite for?" (1) | UNLOCKS only |
| "what does MAE101 unlock / open up?" | UNLOCKS |
| "can I take DAT301m?", "am I allowed to take DAT301m" | CAN_TAKE |
| "am I allowed to take the AIG202c final?", "can I sit the exam of X" (2) | nothing |
| "I failed CSD203, what can't I take?" | BLOCKED |
| "how many credits is X", "which semester is X in" | CREDITS, SEMESTER |
| any of these naming an intake ("K18") (3) | the same, `intake` set |

(1) A course list is the subject and the course the object: the reverse of its
prerequisites. (2) An exam's admission is the syllabus's rule (attendance, a certificate):
retrieval answers. (3) `CatalogDesk` answers from that intake's curriculum, or says the
material has none; another intake's plan is never passed off as it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from core.catalog.graph import Catalog, Course
from core.course_codes import first_intake
from core.text import fold


class Asked(StrEnum):
    CAN_TAKE = "can_take"
    BLOCKED = "blocked"
    PREREQUISITES = "prerequisites"
    UNLOCKS = "unlocks"
    CREDITS = "credits"
    SEMESTER = "semester"


# Matched against the folded question (lower case, no accents).
_PATTERNS = {
    Asked.CAN_TAKE: r"\b(?:can|could|may) i (?:still )?"
    r"(?:take|register|enrol|enroll|start|do|sign up)"
    r"|\bam i (?:allowed|eligible|able)|\bcan i go on to",
    Asked.BLOCKED: r"\bfail(?:ed|ing)?\b.*\b(?:block|can ?n?o?'?t|cannot|not allowed|unable)"
    r"|\b(?:block|can ?n?o?'?t|cannot)\b.*\bfail(?:ed|ing)?\b",
    Asked.PREREQUISITES: r"pre-?req|pre-? ?requisite|tien quyet|\brequire|\bchain\b"
    r"|\bneed(?:ed)? to (?:pass|take|finish|complete|do)|\bhave to (?:pass|take|finish|complete)"
    r"|\bbefore (?:i can|taking|doing)|\bwhat do i need",
    Asked.UNLOCKS: r"\bunlock|\bopens? (?:up|the way)|\bleads? (?:on )?to\b"
    r"|\bafter (?:i )?(?:pass|finish|complete)"
    r"|\bonce i (?:pass|finish)|\bwhat can i take after",
    Asked.CREDITS: r"\bcredits?\b|\btin chi\b",
    Asked.SEMESTER: r"\bsemester\b|\bwhich term\b|\bhoc ky\b|\bwhen (?:do|should|can|will) i take",
}
_COMPILED = {asked: re.compile(pattern) for asked, pattern in _PATTERNS.items()}
# "Which courses require MAS291?", "what needs MAE101", "what is MAS291 a prerequisite for":
# the course asked about is what others require, so the question asks what it unlocks.
_REVERSE = re.compile(
    r"\b(?:which|what) (?:other )?(?:courses?|subjects?|classes?|modules?)\b[^?]*?"
    r"\b(?:requires?|needs?|depends? on|builds? on|has as (?:a )?pre-?req\w*)\b"
    r"|\bwhat (?:requires|needs|depends on)\b"
    r"|\b(?:a |the )?pre-?req\w* (?:of|for) (?:which|what)\b"
    r"|\bpre-?req\w* (?:of|for)\W*$"
)
# "Can I take the AIG202c final?", "am I allowed to sit the exam": an exam's admission is the
# syllabus's rule (attendance, a certificate), not the course's prerequisites.
_EXAM = re.compile(
    r"\b(?:take|sit|do|attend|register for|enrol+ in|go to|write)\b[^?.]*?"
    r"\b(?:final|finals|exams?|examinations?|tests?|resits?|retakes?|fe|pe|te)\b"
)
_SEMESTER = re.compile(r"\bsemester (\d{1,2})\b|\bhoc ky (\d{1,2})\b")


@dataclass(frozen=True, slots=True)
class CatalogQuestion:
    asked: frozenset[Asked]
    courses: tuple[Course, ...]
    semester: int | None = None  # the last "semester N" of the question: the one asked about
    intake: int | None = None  # "K19" in the question


def asks_catalog(question: str) -> frozenset[Asked]:
    """What the question asks of the catalog, from its words alone (no course checked)."""
    folded = fold(question)
    asked = {a for a, pattern in _COMPILED.items() if pattern.search(folded)}
    if Asked.BLOCKED in asked:
        asked.discard(Asked.CAN_TAKE)
    if Asked.CAN_TAKE in asked and _EXAM.search(folded):
        asked.discard(Asked.CAN_TAKE)
    if _REVERSE.search(folded):
        asked.discard(Asked.PREREQUISITES)
        asked.add(Asked.UNLOCKS)
    return frozenset(asked)


# A follow-up that names a course and leaves the rest to the question before it: "and for
# DAT301m?", "what about MAE101?", "CSI106?", "còn MAE101?" (folded: "con").
_ELIDED = re.compile(r"^\s*(?:and|also|same|what about|how about|then|con)\b|^\W*\S+\W*$")
ELIDED_WORDS = 5


def elided(question: str) -> bool:
    """Whether the question is a short follow-up that asks nothing of its own."""
    folded = fold(question)
    return (
        not asks_catalog(question)
        and len(folded.split()) <= ELIDED_WORDS
        and bool(_ELIDED.search(folded))
    )


def carried_over(question: str, earlier: Sequence[str]) -> frozenset[Asked]:
    """What an elided follow-up asks: what the last question before it that was not itself
    elided asked of the catalog (nothing if that one asked nothing of it)."""
    if not elided(question):
        return frozenset()
    for before in reversed(earlier):
        if not elided(before):
            return asks_catalog(before)
    return frozenset()


def read_question(
    question: str, catalog: Catalog, earlier: Sequence[str] = ()
) -> CatalogQuestion | None:
    """The catalog question asked, if any; `earlier`, the conversation's questions before
    it (oldest first), lets an elided follow-up ask what the one before it asked."""
    asked = asks_catalog(question) or carried_over(question, earlier)
    if not asked:
        return None
    courses = catalog.mentioned(question)
    if not courses:
        return None
    folded = fold(question)
    semesters = [int(g) for m in _SEMESTER.finditer(folded) for g in m.groups() if g]
    semester = semesters[-1] if semesters else None
    intake = first_intake(question)
    return CatalogQuestion(asked, tuple(courses), semester, intake)
