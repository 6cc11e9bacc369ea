"""The words a course's material and its students name courses and programmes with, read the
same way by the catalog (`core.catalog`), the document identities (`core.documents`) and
ingestion (`ingestion.document_identity`):

- a course code: letters, three or four digits, maybe a suffix letter ("DAT301m", "CS 101",
  "MKTG-497G", "MATH1010"); a last digit "x" makes it a family ("AIL30x": any AIL30
  course);
- a document code: one token joined by underscores or hyphens, with a digit ("AI17_COM_1",
  "BIT_AI_K20D-21A");
- a code prefix the way students type one: capitals, maybe the first digits ("MAS", "MAE1");
- a curriculum's intakes: "K19", "K18D-K19A", "BIT_AI_K20D-21A" (the second "K" may go);
- the words of a programme: in a title ("Curriculum") and in a question ("semester", "OJT").

Codes compare by their key: folded (case and accents ignored), without the space or hyphen
inside a course code ("cs101"), with a document code's joints as spaces ("ai17 com 1").
The material is read with capitals only ("Fall 2022" in a title is no code; "FALL 2022"
would be); what students type, in any case. Every pattern reads text in one pass, each match
bounded or starting only where a word starts (tests/core/test_hostile_text.py)."""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass

from core.text import fold, fold_name

# Words that join codes in a prerequisite cell or a question and are never a code's letters
# ("MAE101 or 102" names no course "or102").
_JOINING = r"(?!(?i:and|or|va|hoac|not|to|of|in|is)\b)"
_NUMBER = r"[ \-]?(\d{2,3}[0-9xX])([A-Za-z]?)"


def _code(letters: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![A-Za-z0-9]){_JOINING}([{letters}]{{2,5}}){_NUMBER}(?![A-Za-z0-9])")


_MATERIAL_CODE = _code("A-Z")
_TYPED_CODE = _code("A-Za-z")
_WHOLE_CODE = re.compile(r"([A-Za-z]{2,5})" + _NUMBER)
# A whole token with underscores or hyphens inside. It starts only where a token starts, so a
# long run of "a-a-a-" is read once, not again from each of its joints.
_DOCUMENT_CODE = re.compile(
    r"(?<![A-Za-z0-9_\-])[A-Za-z][A-Za-z0-9]*(?:[_\-][A-Za-z0-9]+)+(?![A-Za-z0-9_\-])"
)
# A table's code cell: a course code, or one short token starting with a letter (PEN,
# PHE_COM*1, AI17_GRA_ELE).
_CODE_CELL = re.compile(r"[A-Za-z][A-Za-z0-9_*.\-]{1,19}")
_PREFIX = re.compile(r"(?<![A-Za-z0-9_])([A-Z]{2,5}\d{0,2})(?![A-Za-z0-9_])")
# A prefix of two letters ("MA") steers retrieval to the one document it fits; the catalog,
# which answers on its own with no passage read, wants three ("MAE"): "AI" or "OK" in a
# question is seldom a course.
PREFIX_LETTERS_TO_STEER = 2
PREFIX_LETTERS_TO_ANSWER = 3
# "K19", "K19A", "K18D-K19A", "K20D-21A", "k19 k20"; a curriculum's own code or title also
# states a bare cohort ("20D-21A").
_INTAKE = r"[Kk](\d{2})[A-Za-z]?"
_BARE_COHORT = r"(?:[Kk](\d{2})[A-Za-z]?|(\d{2})[A-Z])"
_SECOND_INTAKE = r"(?:\s*(?:[-–]\s*[Kk]?|[Kk])(\d{2})[A-Za-z]?)?(?![0-9])"
_INTAKES = re.compile(r"(?<![A-Za-z0-9])" + _INTAKE + _SECOND_INTAKE)
_INTAKES_OR_COHORTS = re.compile(r"(?<![A-Za-z0-9])" + _BARE_COHORT + _SECOND_INTAKE)
# A title naming a whole programme, and the words of a question about one (matched folded).
_PROGRAMME_TITLE = re.compile(r"\b(curriculum|programme|program of study|study plan)\b")
_PROGRAMME_QUESTION = re.compile(
    r"\b(semesters?|curriculum|programme|program|plos?|ojt|combos?|speciali[sz]ations?)\b"
    # A semester by its short names, with its number: "sem 3", "term 2", "kì 4" (folded "ki 4").
    r"|\b(?:sem|term|ki|ky|hoc ky)\s*\d{1,2}\b"
)

# A title naming a document of course groups, and the words of a question about them.
_GROUPS_TITLE = re.compile(r"^\W*(pathways?|combos?|speciali[sz]ations?|electives?)\b")
_GROUPS_QUESTION = re.compile(
    r"\b(combos?|pathways?|speciali[sz]ations?|electives?|chuyen nganh hep)\b"
)


@dataclass(frozen=True, slots=True)
class CodeMention:
    """A course code found in a text: as written there ("CS 101"), its key ("cs101") and
    where it starts."""

    written: str
    key: str
    start: int

    @property
    def family(self) -> bool:
        return is_family(self.key)


def codes_in(text: str, *, typed: bool = False) -> list[CodeMention]:
    """The course codes in `text`: the material's (capitals), or, `typed`, a student's."""
    pattern = _TYPED_CODE if typed else _MATERIAL_CODE
    return [
        CodeMention(m.group(0), fold(m.group(1) + m.group(2) + m.group(3)), m.start())
        for m in pattern.finditer(text)
    ]


def drop_codes(text: str, written: Collection[str]) -> str:
    """`text` with each code written as one of `written` ("PRO192") blanked out."""
    if not written:
        return text
    return _MATERIAL_CODE.sub(lambda m: " " if m.group(0) in written else m.group(0), text)


def is_code(text: str) -> bool:
    """Whether `text` is one course code (or family), in any case."""
    return _WHOLE_CODE.fullmatch(text.strip()) is not None


def is_family(code: str) -> bool:
    """AIL30x: any AIL30 course."""
    match = _WHOLE_CODE.fullmatch(code.strip())
    return match is not None and not match.group(3) and match.group(2)[-1] in "xX"


def code_key(text: str) -> str:
    """What a code compares by: "CS 101", "cs-101" and "CS101" are "cs101"; a document code
    or any other cell is folded with its punctuation as spaces ("ai17 com 1")."""
    match = _WHOLE_CODE.fullmatch(text.strip())
    if match is not None:
        return fold("".join(match.groups()))
    return fold_name(text)


def in_family(code: str, course: str) -> bool:
    """Whether `course` is `code` or, for a family like AIL30x, one of its courses."""
    wanted, key = code_key(code), code_key(course)
    if not is_family(wanted):
        return wanted == key
    return re.fullmatch(re.escape(wanted[:-1]) + r"\d[a-z]?", key) is not None


def document_codes_in(text: str) -> list[CodeMention]:
    """Document codes ("AI17_COM_1", "BIT_AI_K20D-21A"): a token with joints and a digit."""
    return [
        CodeMention(m.group(0), code_key(m.group(0)), m.start())
        for m in _DOCUMENT_CODE.finditer(text)
        if any(c.isdigit() for c in m.group(0))
    ]


def looks_like_code_cell(cell: str) -> bool:
    cell = cell.strip()
    return is_code(cell) or _CODE_CELL.fullmatch(cell) is not None


def prefixes_in(text: str, *, letters: int) -> list[tuple[str, int]]:
    """Code prefixes in capitals with at least `letters` letters, folded, with where each is
    ("MAS" -> "mas"). A word in capitals is a prefix only if some code starts with it."""
    found = []
    for match in _PREFIX.finditer(text):
        prefix = match.group(1)
        if sum(c.isalpha() for c in prefix) >= letters:
            found.append((fold(prefix), match.start()))
    return found


@dataclass(frozen=True, slots=True)
class Intakes:
    """One intake ("K19": (19,)) or a range of them ("K18D-K19A": (18, 19))."""

    numbers: tuple[int, ...]
    start: int


def intakes_in(text: str, *, bare_cohorts: bool = False) -> list[Intakes]:
    """The intakes in `text`, each with its "K" ("K19"; in a question "19" is a number), or,
    `bare_cohorts` (a curriculum's own code or title), also without it ("20D-21A")."""
    pattern = _INTAKES_OR_COHORTS if bare_cohorts else _INTAKES
    return [
        Intakes(tuple(int(n) for n in m.groups() if n), m.start()) for m in pattern.finditer(text)
    ]


def first_intake(text: str) -> int | None:
    found = intakes_in(text)
    return found[0].numbers[0] if found else None


def names_a_programme(title: str) -> bool:
    """Whether a document's title says it describes a whole programme ("Curriculum: K19")."""
    return _PROGRAMME_TITLE.search(fold_name(title)) is not None


def names_course_groups(title: str) -> bool:
    """Whether a document's title says it lists groups of courses to choose among
    ("Pathway: AI17_COM_1", "Specialisations")."""
    return _GROUPS_TITLE.search(fold_name(title)) is not None


def asks_about_groups(question: str) -> bool:
    """Whether a question is about the groups of courses (combos, pathways,
    specialisations), which the documents listing them answer."""
    return _GROUPS_QUESTION.search(fold_name(question)) is not None


def asks_about_programme(question: str) -> bool:
    """Whether a question is about the programme as a whole (semesters, PLOs, OJT, combos),
    which the programme document answers."""
    return _PROGRAMME_QUESTION.search(fold_name(question)) is not None
