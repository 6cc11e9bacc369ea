"""Whether a question is for the catalog: it names a known course (a code, a unique
upper-case prefix, a whole course name, or a name shared by numbered courses, "Physical
Education") AND asks for prerequisites, credits, semesters, "can I take", what a course
unlocks, what a failed course blocks or how soon it can be taken; or it asks the programme
itself: a semester's courses, the credits to graduate, the combos (groups of courses), the
learning outcomes, what to take next. Anything else goes to retrieval, so the check stays
conservative.

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
| "what's the earliest I can take AID301c if I study ahead?" (4) | AHEAD |
| "what courses are in semester 3?", "subjects in kì 7", "sem 0 credits" (5) | SEMESTER_COURSES |
| "how many credits do I need to graduate?" | GRADUATION |
| "which combo fits AI for biology?", "is DBM302m a combo option?" (6) | GROUPS |
| "what does PLO13 mean?", "which PLOs does DAP391m map to?", "PO4" (7) | OUTCOMES |
| "what can I take next?" (8) | TAKE_NEXT |
| "how is DBI202 graded?", "MAE101 vs MAI391: which final weighs more?" (10) | GRADING |
| "what replaced SSL101c in K20?", "is CSI106 the same in K18-K19?" (9) | VERSIONS |
| "what's the difference between X and Y?", "X vs Y", "is X the same as Y?" (11) | COMPARE |
| any of these naming an intake ("K18") (3) | the same, `intake` set |

(1) A course list is the subject and the course the object: the reverse of its
prerequisites. (2) An exam's admission is the syllabus's rule (attendance, a certificate):
retrieval answers. (3) `CatalogDesk` answers from that intake's curriculum, or says the
material has none; another intake's plan is never passed off as it. (4) With a course named;
the course's own rule for taking courses ahead (`/advising`) is named as such. (5) A semester
number and no course named (a failed course makes it BLOCKED). (6) "Combo", "specialisation",
"pathway", "elective" with a course named, an interest ("which fits", "into", "any combo
with") or a listing ("which combos", "when do the combo courses start"); what a combo
course covers is retrieval's. (7) Outcomes ("PLO", "PO3", "learning outcomes"): an
outcome's text, a course's map, the courses serving an outcome, their numbers. (8) From the
student's profile, read only where the reply reaches the student alone. (9) A course named
with a word of change ("same", "replaced", "changed", "different", "new", "old") and an
intake or "curriculum": each curriculum's row of the course, and what took a dropped
course's place. (10) With a course named, from its syllabus's assessment table; sitting an
exam ("can I sit the final of X") stays the syllabus's conditions, for retrieval. (11) Two
courses or more named and nothing more precise asked: each one's credits, semester,
prerequisites and grading side by side; a comparison of what the tables do not hold
(textbooks, MOOCs, delivery, teams) stays retrieval's.
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
    AHEAD = "ahead"
    SEMESTER_COURSES = "semester_courses"
    GRADUATION = "graduation"
    GROUPS = "groups"
    OUTCOMES = "outcomes"
    TAKE_NEXT = "take_next"
    VERSIONS = "versions"
    GRADING = "grading"
    COMPARE = "compare"


# What the programme is asked, with no course needed.
PROGRAMME_ASKS = frozenset(
    {Asked.SEMESTER_COURSES, Asked.GRADUATION, Asked.GROUPS, Asked.OUTCOMES, Asked.TAKE_NEXT}
)


# Matched against the folded question (lower case, no accents).
_PATTERNS = {
    Asked.CAN_TAKE: r"\b(?:can|could|may) i (?:still )?"
    r"(?:take|register|enrol|enroll|start|do|sign up)"
    r"|\bam i (?:allowed|eligible|able)|\bcan i go on to",
    Asked.BLOCKED: r"\bfail(?:ed|ing)?\b.*\b(?:block|can ?n?o?'?t|cannot|not allowed|unable"
    r"|mess(?:es)? (?:up|with)|affect|delay|hold (?:me )?back|impact|prevent|stop)"
    r"|\b(?:block|can ?n?o?'?t|cannot)\b.*\bfail(?:ed|ing)?\b",
    Asked.PREREQUISITES: r"pre-?req|pre-? ?requisite|tien quyet|\brequire|\bchain\b"
    r"|\bneed(?:ed)? to (?:pass|take|finish|complete|do)|\bhave to (?:pass|take|finish|complete)"
    r"|\bbefore (?:i can|taking|doing)|\bwhat do i need",
    Asked.UNLOCKS: r"\bunlock|\bopens? (?:up|the way)|\bleads? (?:on )?to\b"
    r"|\bafter (?:i )?(?:pass|finish|complete)"
    r"|\bonce i (?:pass|finish)|\bwhat can i take after",
    Asked.CREDITS: r"\bcredits?\b|\btin chi\b",
    Asked.SEMESTER: r"\bsemesters?\b|\bwhich term\b|\bhoc ky\b"
    r"|\bwhen (?:do|should|can|will) i take",
    Asked.AHEAD: r"\b(?:earliest|fastest|quickest|soonest|sooner|earlier)\b|\bstudy ahead\b"
    r"|\b(?:take|taking|do|grab) (?:it |them )?ahead\b|\bahead of time\b"
    r"|\binstead of (?:in )?(?:sem|semester|term|ki|ky|hoc ky)\b",
    Asked.SEMESTER_COURSES: r"\b(?:semester|sem|term|ki|ky|hoc ky)\s*\d{1,2}\b",
    # The credits to graduate; a grade to graduate with ("what GPA ...") is not the table's.
    Asked.GRADUATION: r"(?=.*\b(?:credits?|tin chi|courses|subjects)\b)"
    r".*(?:\bgraduat\w*|\btot nghiep\b|\bwhole (?:programme|program|degree)\b"
    r"|\bcredits? (?:for|of|in) the (?:programme|program|degree|curriculum)\b)",
    Asked.GROUPS: r"\bcombos?\b|\bspeciali[sz]ations?\b|\bpathways?\b|\belectives?\b"
    r"|\bchuyen nganh hep\b|\bhoc phan tu chon\b",
    Asked.OUTCOMES: r"\bp?los?\b|\bp?l?o ?\d{1,2}\b|\b\w+_po\d{1,2}\b|\blearning outcomes?\b"
    r"|\bprogram(?:me)? outcomes?\b|\bchuan dau ra\b",
    Asked.TAKE_NEXT: r"\bwhat (?:can|could|should|do) i (?:take|do|study|register for)"
    r" (?:next|now)\b"
    r"|\bwhat(?:'s| is) next for me\b|\bwhat (?:courses|subjects) (?:can|could|should) i take\b"
    r"|\bwhat am i (?:able|allowed|eligible) to take\b",
    Asked.GRADING: r"\bgrad(?:ed|ing)\b|\bweights?\b|\bassessments?\b|\bassessed\b"
    r"|\bevaluated\b|\bfinal exams?\b|\bprogress tests?\b|\bscore to pass\b|\bpass mark\b"
    r"|\bcompletion criteri\w*",
    Asked.COMPARE: r"\bdiffer\w*|\bcompar\w*|\bvs\b|\bversus\b|\b(?:the )?same\b|\bsimilar\b"
    r"|\bidentical\b",
    Asked.VERSIONS: r"(?=.*\b(?:k\d{2}|curriculum|curricula|version)\b)"
    r".*\b(?:same|chang\w*|differ\w*|replac\w*|instead|newer|older|new|old|still there)\b"
    # "Is it CSI105 or CSI106? my friend in K18 says 105": two codes, one per version.
    r"|(?=.*\bk\d{2}\b).*\b[a-z]{2,5}\d{3}[a-z]? or [a-z]{2,5}\d{3}[a-z]?\b",
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
# "semester 4", "sem 5 to 8", "kì 7" (folded "ki 7"), "sem 8 and after".
_SITTING = re.compile(
    r"\b(?:can i|may i|could i|allowed|eligible|conditions?|admitted|requirements?)\b"
)
_DELIVERY = re.compile(r"\b(?:online|offline|slots?|in person|face to face)\b")
_SEMESTER = re.compile(
    r"\b(?:semesters?|sem|term|hoc ky|ki|ky)\s*(\d{1,2})"
    r"(?:\s*(?:to|-|–|through|till|until)\s*(\d{1,2}))?(\s*(?:and|or)\s*(?:after|later|beyond|on))?"
)


@dataclass(frozen=True, slots=True)
class CatalogQuestion:
    asked: frozenset[Asked]
    courses: tuple[Course, ...]
    semester: int | None = None  # the last "semester N" of the question: the one asked about
    # Every semester named, ranges spread ("sem 5 to 8"); "and after" runs to 20.
    semesters: tuple[int, ...] = ()
    intake: int | None = None  # "K19" in the question


# A combo question the catalog answers (a listing, a fit, a membership); what a combo course
# covers or how it is graded is the syllabus's.
_GROUP_ASKS = re.compile(
    r"\b(?:which|what|any|list|all|available|options?|fits?|suits?|best|recommend\w*|choose"
    r"|pick|into|interested|want|like|start|spread|when|is there|are there|one of|part of"
    r"|belongs?|in (?:a|any|the) (?:combo|speciali[sz]ation|pathway|elective))\b"
)
# What a comparison may ask that no table holds: the passages answer it.
_UNTABLED = re.compile(
    r"\b(?:text ?books?|books?|materials?|moocs?|readings?|online|offline|teams?|projects?"
    r"|topics?|contents?|cover\w*|learn)\b"
)
_GROUP_CONTENT = re.compile(
    r"\b(?:cover|covers|about|graded|grading|exam|final|online|offline|bonus|textbook"
    r"|materials?|assessment|certificate|attendance|weight)\b"
)


def asks_catalog(question: str) -> frozenset[Asked]:
    """What the question asks of the catalog, from its words alone (no course checked)."""
    folded = fold(question)
    asked = {a for a, pattern in _COMPILED.items() if pattern.search(folded)}
    if Asked.GROUPS in asked and (not _GROUP_ASKS.search(folded) or _GROUP_CONTENT.search(folded)):
        asked.discard(Asked.GROUPS)
    if asked & {Asked.BLOCKED, Asked.CAN_TAKE, Asked.AHEAD, Asked.GROUPS, Asked.OUTCOMES}:
        # "Which of my semester 4 courses can't I take", "take it in sem 4 instead of sem 5":
        # the semester narrows the question; it does not ask for the semester's list.
        asked.discard(Asked.SEMESTER_COURSES)
    if Asked.AHEAD in asked:
        asked -= {Asked.CAN_TAKE, Asked.SEMESTER}
    if Asked.COMPARE in asked and (
        asked - {Asked.COMPARE} or _UNTABLED.search(folded) or _REVERSE.search(folded)
    ):
        # "Graded the same way?", "same textbook?": what is compared is asked already, or
        # is not in the tables.
        asked.discard(Asked.COMPARE)
    if Asked.VERSIONS in asked:
        # "When was it in K18, is it the same in K20?": the versions say both.
        asked -= {Asked.SEMESTER, Asked.CREDITS, Asked.SEMESTER_COURSES}
    if Asked.BLOCKED in asked:
        asked.discard(Asked.CAN_TAKE)
    if Asked.CAN_TAKE in asked and _EXAM.search(folded):
        asked.discard(Asked.CAN_TAKE)
    if _EXAM.search(folded) and _SITTING.search(folded):
        asked.discard(Asked.GRADING)  # sitting an exam: the syllabus's conditions
    if Asked.GRADING in asked and _DELIVERY.search(folded):
        # "Is it fully online, and what is the final like?": the table holds half of it.
        asked.discard(Asked.GRADING)
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
        # "Same for DAT301m?" compares nothing: it asks what the question before it asked.
        not asks_catalog(question) - {Asked.COMPARE}
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
    courses = catalog.mentioned(question) or catalog.named_together(question)
    if Asked.COMPARE in asked and len(courses) < 2:
        asked = asked - {Asked.COMPARE}  # one course is not a comparison
        if not asked:
            return None
    if not courses and not asked & PROGRAMME_ASKS:
        return None
    if courses and asked - {Asked.SEMESTER_COURSES}:
        asked -= {Asked.SEMESTER_COURSES}
    folded = fold(question)
    semesters = named_semesters(folded)
    semester = semesters[-1] if semesters else None
    intake = first_intake(question)
    return CatalogQuestion(
        asked, tuple(courses), semester=semester, intake=intake, semesters=tuple(semesters)
    )


LAST_SEMESTER = 20


def named_semesters(question: str) -> list[int]:
    """The semesters a question names, in order: "sem 5 to 8" is 5, 6, 7, 8."""
    found: list[int] = []
    for match in _SEMESTER.finditer(fold(question)):
        first = int(match.group(1))
        last = int(match.group(2)) if match.group(2) else first
        if match.group(3):
            last = LAST_SEMESTER
        found.extend(range(first, max(first, last) + 1))
    return list(dict.fromkeys(found))
