"""Whether a chunk teaches (definitions, explanations, theorems, formulas, worked examples,
exercises) or is course logistics (a syllabus's schedule, policies, contacts, ids, session
tables, grade weights, learning-outcome tables). Decided offline at ingestion from features
of the text alone, no model: dates, times, rooms, e-mail addresses, shares of a grade,
session and week numbering and id-like tokens count for logistics; definitional sentences,
math and code for teaching. Stored in the chunk payload (`core.index.payload`), filtered on
through the search seam (`core.index.content_scope`); a chunk stored before the field existed
reads as UNKNOWN and is classified from its text when it is read.

Measured on the shared datasets (bench/content_kind.py): the two teaching courses' chunks read
as teaching, syllabi's (syllabusqa-dev, fpt-bit-ai) as logistics; figures in
docs/performance.md."""

from __future__ import annotations

import re
from collections.abc import Sequence
from enum import StrEnum

from core.text import math_spans


class ContentKind(StrEnum):
    TEACHING = "teaching"
    LOGISTICS = "logistics"
    # Stored before chunks were classified: read it from the text (`classify`).
    UNKNOWN = "unknown"


def _words(*alternatives: str) -> re.Pattern[str]:
    return re.compile(r"\b(?:" + "|".join(alternatives) + r")\b", re.IGNORECASE)


# Words that run a course rather than teach its subject.
_LOGISTICS_WORDS = _words(
    r"office hours?",
    r"instructors?",
    r"professors?",
    r"lecturers?",
    r"TAs?",
    r"teaching assistants?",
    r"syllab(?:us|i)",
    r"attendance",
    r"absences?",
    r"late (?:work|submissions?|assignments?|penalty|penalties|policy)",
    r"make-?up",
    r"extensions?",
    r"deadlines?",
    r"due (?:dates?|by|on|at)",
    r"submit(?:ted|ting)?",
    r"submissions?",
    r"grad(?:es|ed|ing)",
    r"letter grades?",
    r"midterms?",
    r"final exam(?:ination)?s?",
    r"exam(?:s|inations?)?",
    r"quizz(?:es)",
    r"homeworks?",
    r"participation",
    r"plagiari[sz]m",
    r"academic (?:integrity|honesty|misconduct|dishonesty)",
    r"cheating",
    r"disabilit(?:y|ies)",
    r"accommodations?",
    r"canvas",
    r"moodle",
    r"blackboard",
    r"gradescope",
    r"piazza",
    r"zoom",
    r"e-?mails?",
    r"phone",
    r"contact",
    r"students",
    r"this (?:course|class|seminar)",
    r"the course",
    r"I will",
    r"my",
    r"goals?",
    r"objectives?",
    r"required",
    r"diversity",
    r"inclusiv\w*",
    r"pronouns",
    r"readings",
    r"rooms?",
    r"building",
    r"campus",
    r"semesters?",
    r"credits?",
    r"prerequisites?",
    r"co-?requisites?",
    r"textbooks?",
    r"isbn",
    r"publishers?",
    r"editions?",
    r"course (?:objectives|description|outcomes|goals|schedule|website|portal|policy|policies|"
    r"materials|requirements|code|name|information|overview|content)",
    r"learning outcomes?",
    r"students will",
    r"you will (?:be able|learn)",
    r"by the end of (?:this|the) (?:course|semester|term)",
    r"C?LOs?\d*",
    r"PLOs?\d*",
    r"sessions?",
    r"schedule[ds]?",
    r"calendar",
    r"holidays?",
    r"university",
    r"department",
    r"policy",
    r"policies",
    r"approved",
    r"curricul(?:um|a)",
    r"assessments?",
    r"weighting",
    r"tutorials?",
    r"lab sections?",
    r"recitations?",
    r"enrol(?:l|led|lment|ment)",
    r"(?:spring|fall|autumn|summer|winter) (?:term|semester|quarter|\d{4})",
    r"(?:mon|tues|wednes|thurs|fri|satur|sun)days?",
)
_DATE = re.compile(
    r"\b\d{1,2}/\d{1,2}(?:/\d{2,4})?\b|\b\d{4}-\d{2}-\d{2}\b|"
    r"\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.? \d{1,2}\b",
    re.IGNORECASE,
)
_TIME = re.compile(r"\b\d{1,2}(?::\d{2})?\s*(?:am|pm|a\.m\.|p\.m\.)|\b\d{1,2}:\d{2}\b", re.I)
# An address, or the placeholder a redacted syllabus puts in its place ("<EMAIL>").
_EMAIL = re.compile(r"\b[\w.+-]+@[\w-]+\.[\w.]+\b|<(?:EMAIL|PHONE|LINK|PROF_\w+|\w+_NAME)\w*>")
_PERCENT = re.compile(r"\b\d{1,3}(?:\.\d+)?\s?%")
# "Week 3", "Session 12", "Lecture 4", "CLO2", "Ch. 5": numbering of a course's plan.
_NUMBERED = re.compile(
    r"\b(?:week|session|slot|lecture|class|module|unit|chapter|ch\.|lab|day)\s*#?\d+\b",
    re.IGNORECASE,
)

# Words of explanation: defining, reasoning, showing.
_TEACHING_WORDS = _words(
    r"is (?:a|an|the|called|defined|given|known|equal|equivalent|said)",
    r"are (?:called|defined|given|known|equal)",
    r"we (?:define|call|denote|say|can|have|get|obtain|see|use|compute|write|need|want|will|"
    r"assume|consider|know|find|show|note)",
    r"let(?! me)",
    r"suppose",
    r"consider",
    r"denote[sd]?",
    r"definitions?",
    r"theorems?",
    r"lemmas?",
    r"corollary",
    r"proofs?",
    r"for (?:example|instance)",
    r"example",
    r"note that",
    r"recall",
    r"i\.e\.",
    r"e\.g\.",
    r"therefore",
    r"thus",
    r"hence",
    r"because",
    r"this means",
    r"in other words",
    r"intuitively",
    r"equation",
    r"formula",
    r"function",
    r"derivative",
    r"gradient",
    r"solution",
    r"solve",
    r"compute[sd]?",
    r"where",
    r"such that",
    r"if and only if",
    r"implies",
)
_CODE = re.compile(r"```|^\s*(?:def|class|import|from|for|return|print)\b|\w+\.\w+\(", re.M)
_LATEX = re.compile(r"\\[a-zA-Z]+|\b[a-z]\^\{?\w|_\{|\b[a-z]\([a-z]\)\s*=")
# Arithmetic written out: "55*55*96 = 290,400", "4 + 4 + 1".
_ARITHMETIC = re.compile(r"\d\s*[*×+/^]\s*\(?\d|\d\s?x\s?\d")
_EQUATION = re.compile(r"[A-Za-z)\]}]\s*[=≤≥<>]\s*[-\w(\\]")
_TABLE_ROW = re.compile(r"^\s*\|.*\|\s*$")
# An id-like token: "CLO1", "DBI202", "K19-K20", "CQ1_HCM", an all-digit cell.
_ID = re.compile(r"^(?:[A-Z]{2,}\d{2,}[a-z]?|C?LO\d+|PLO\d+|[A-Z]{2,}\d+[_.]\w+)$")
_NUMBER_CELL = re.compile(r"^\s*\d{1,3}\s*$")
_WORD = re.compile(r"[A-Za-z]{2,}")

# Headings that name a course's running or its teaching.
_LOGISTICS_SECTION = _words(
    r"grad(?:e|es|ing)",
    r"schedule",
    r"polic(?:y|ies)",
    r"office hours",
    r"contacts?",
    r"instructors?",
    r"course (?:information|description|objectives|outcomes|materials|overview)",
    r"(?:learning|course) outcomes",
    r"sessions?",
    r"assessments?",
    r"attendance",
    r"materials",
    r"general information",
    r"requirements",
    r"calendar",
    r"constructive questions",
    r"CLO",
    r"PLO",
    r"combos?",
    r"curriculum",
)
_TEACHING_SECTION = _words(
    r"definitions?",
    r"theorems?",
    r"examples?",
    r"exercises?",
    r"proofs?",
    r"summary",
    r"problems?",
    r"solutions?",
)


# A chunk whose scores differ by less than this (per root word) is read as its document
# mostly reads: a bare heading or a list of topic names in a syllabus is not teaching, a
# short remark between two explanations is.
_MARGIN = 0.15
# An outcome or topic list's items start with what students will do.
_OUTCOME_ITEM = re.compile(
    r"^\s*(?:[-*•]|\d+[.)])\s*(?:identify|determine|recognize|recognise|use|apply|explain|"
    r"describe|understand|analy[sz]e|evaluate|demonstrate|discuss|appreciate|name|compare|"
    r"interpret|design|develop|decide|differentiate|write|communicate|gain|learn|build|"
    r"summari[sz]e|list|define|classify|create|perform|practice|critically)\b",
    re.IGNORECASE | re.MULTILINE,
)


# A topic that names the course's running rather than its subject ("grading", "exams",
# "office hours", "the course"): a study set on it is about the course itself.
_COURSE_TOPIC = _words(
    r"course", r"syllabus", r"class policies", r"class rules", r"weeks?", r"dates?", r"deadlines?"
)


def topic_kind(topic: str) -> ContentKind:
    """LOGISTICS for a topic about the course itself ("grading", "late assignments", "the
    course"), TEACHING for a subject ("stacks and queues", "softmax regression")."""
    if _COURSE_TOPIC.search(topic) or _LOGISTICS_WORDS.search(topic):
        return ContentKind.LOGISTICS
    return ContentKind.TEACHING


def classify(text: str, section: str = "") -> ContentKind:
    """TEACHING or LOGISTICS for one chunk's text and section path, on its own (never
    UNKNOWN): for a chunk read without its document, such as one stored before chunks were
    classified."""
    logistics, teaching = _scores(text, section)
    return ContentKind.LOGISTICS if logistics > teaching else ContentKind.TEACHING


def classify_document(chunks: Sequence[tuple[str, str]]) -> list[ContentKind]:
    """Each chunk (text, section path) of one document: by its own features where they are
    clear, as the document mostly reads where they are not."""
    scores = [_scores(text, section) for text, section in chunks]
    logistics = sum(score[0] for score in scores)
    teaching = sum(score[1] for score in scores)
    usual = ContentKind.LOGISTICS if logistics > teaching else ContentKind.TEACHING
    kinds = []
    for chunk_logistics, chunk_teaching in scores:
        if chunk_logistics > chunk_teaching + _MARGIN:
            kinds.append(ContentKind.LOGISTICS)
        elif chunk_teaching > chunk_logistics + _MARGIN:
            kinds.append(ContentKind.TEACHING)
        else:
            kinds.append(usual)
    return kinds


def _scores(text: str, section: str) -> tuple[float, float]:
    lines = text.splitlines()
    rows = [line for line in lines if _TABLE_ROW.match(line)]
    prose = "\n".join(line for line in lines if not _TABLE_ROW.match(line))
    words = max(len(_WORD.findall(text)), 1)
    logistics = (
        len(_LOGISTICS_WORDS.findall(text))
        + 2 * len(_DATE.findall(text))
        + 2 * len(_TIME.findall(text))
        + 3 * len(_EMAIL.findall(text))
        + 0.5 * len(_PERCENT.findall(text))
        + 2 * len(_NUMBERED.findall(text))
        + _id_tokens(text, rows)
        + len(_OUTCOME_ITEM.findall(prose))
    )
    teaching = (
        len(_TEACHING_WORDS.findall(prose))
        + 3 * len(math_spans(text))
        + 2 * len(_LATEX.findall(text))
        + 2 * len(_EQUATION.findall(prose))
        + 3 * len(_CODE.findall(text))
        + len(_ARITHMETIC.findall(text))
    )
    if rows and len(rows) * 2 >= len(lines):
        # A table: a plan or a list of weights unless its cells hold math.
        logistics += 2
    # Densities, so a long explanation mentioning one date is not logistics; the heading
    # above counts as much as a few words of the text.
    scale = words**0.5
    logistics, teaching = logistics / scale, teaching / scale
    if _LOGISTICS_SECTION.search(section):
        logistics += 0.5
    if _TEACHING_SECTION.search(section):
        teaching += 0.5
    return logistics, teaching


def _id_tokens(text: str, rows: list[str]) -> int:
    """Words that are codes ("CLO1", "DBI202", "CQ1_HCM") and table cells that are bare
    numbers (a session's), halved."""
    tokens = (token.strip(".:()") for token in re.split(r"[\s|,;]+", text))
    codes = sum(1 for token in tokens if _ID.match(token))
    numbers = sum(1 for row in rows for cell in row.split("|") if _NUMBER_CELL.match(cell))
    return (codes + numbers) // 2
