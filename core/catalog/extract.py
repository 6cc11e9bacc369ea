"""Tables of courses found in a document, as catalog facts.

A table is a course table by its columns, not by the file it is in: a code column, a name
column, and at least one of credits, semester or prerequisites (a curriculum's "Curriculum
details"). A two- or three-column key/value table with the same keys (a syllabus's "General
information": Subject Code, Syllabus English, NoCredit, Pre-Requisite) gives one course.
The document's version (a curriculum code with its intake, a decision date) is read from the
same tables and the title, so several versions of a course can be told apart."""

from __future__ import annotations

import datetime
import re
from dataclasses import dataclass, field
from datetime import date

from core.course_codes import first_intake, looks_like_code_cell
from core.text import fold


@dataclass(frozen=True, slots=True)
class SourceTable:
    """A table as a loader found it, with where it was (for citations)."""

    header: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    page: int | None = None
    section: str = ""


@dataclass(frozen=True, slots=True, order=True)
class DocumentVersion:
    """Which version of the material a document is: newer sorts later (date, then intake)."""

    date: datetime.date | None = None  # the field's name hides the type inside the class
    intake: int | None = None  # the K-number of a curriculum (BIT_AI_K20D-21A -> 20)
    label: str = field(default="", compare=False)

    def key(self) -> tuple[datetime.date, int]:
        return (self.date or date.min, self.intake if self.intake is not None else -1)


@dataclass(frozen=True, slots=True)
class CourseFact:
    """One course as one table row states it. None is "not stated"; `prerequisites` keeps
    the cell's raw text. `in_plan` marks a programme plan's row (the table has a semester
    column), which is what "the current curriculum" is made of."""

    code: str
    name: str
    file_name: str
    document_id: str
    aliases: tuple[str, ...] = ()
    credits: float | None = None
    semester: int | None = None
    prerequisites: str | None = None
    section: str = ""
    page: int | None = None
    version: DocumentVersion = DocumentVersion()
    in_plan: bool = False
    ordinal: int = 0


@dataclass(frozen=True, slots=True)
class _Columns:
    code: int
    name: int
    credits: int | None
    semester: int | None
    prerequisites: int | None


def extract_facts(
    tables: list[SourceTable],
    *,
    file_name: str,
    document_id: str,
    title: str = "",
    texts: tuple[str, ...] = (),
) -> list[CourseFact]:
    """Every course row of the document's course tables, in reading order."""
    version = document_version(tables, file_name=file_name, title=title, texts=texts)
    facts: list[CourseFact] = []
    for table in tables:
        for fact in _row_table(table) or _key_value_table(table):
            facts.append(_with(fact, file_name, document_id, table, version, ordinal=len(facts)))
    return facts


def _with(
    fact: CourseFact,
    file_name: str,
    document_id: str,
    table: SourceTable,
    version: DocumentVersion,
    ordinal: int,
) -> CourseFact:
    return CourseFact(
        code=fact.code,
        name=fact.name,
        file_name=file_name,
        document_id=document_id,
        aliases=fact.aliases,
        credits=fact.credits,
        semester=fact.semester,
        prerequisites=fact.prerequisites,
        section=table.section,
        page=table.page,
        version=version,
        in_plan=fact.in_plan,
        ordinal=ordinal,
    )


# Column and key names, folded. Code keys name the subject, not the curriculum or syllabus.
_CODE_NAMES = {"subjectcode", "subject code", "course code", "coursecode", "code", "course id",
               "ma mon", "ma mon hoc", "ma hoc phan", "ma hp", "module code",
               "unit code"}  # fmt: skip
_NAME_NAMES = ("syllabus english", "subject name", "course name", "syllabus name", "course title",
               "title", "name", "subject", "course", "ten mon", "ten mon hoc", "ten hoc phan",
               "module name", "module")  # fmt: skip


def _key(text: str) -> str:
    return fold(text).rstrip(":").strip()


def _is_credits(name: str) -> bool:
    return "credit" in name or "tin chi" in name or name in {"cr", "ects", "so tc", "tc"}


def _is_semester(name: str) -> bool:
    return "semester" in name or "hoc ky" in name or name in {"term", "ky", "sem"}


def _is_prerequisites(name: str) -> bool:
    squeezed = name.replace("-", "").replace(" ", "")
    return "prereq" in squeezed or "tien quyet" in name


def _columns(header: tuple[str, ...]) -> _Columns | None:
    names = [_key(cell) for cell in header]
    code = next((i for i, n in enumerate(names) if n in _CODE_NAMES), None)
    name = next(
        (i for wanted in _NAME_NAMES for i, n in enumerate(names) if n == wanted and i != code),
        None,
    )
    if code is None or name is None:
        return None
    found = [
        next((i for i, n in enumerate(names) if test(n)), None)
        for test in (_is_credits, _is_semester, _is_prerequisites)
    ]
    if all(index is None for index in found):
        return None
    return _Columns(code, name, *found)


def _row_table(table: SourceTable) -> list[CourseFact]:
    columns = _columns(table.header)
    if columns is None:
        return []
    facts = []
    for row in table.rows:
        cell = _cell_of(row)
        code = cell(columns.code)
        if not looks_like_code_cell(code) or _key(code) in _CODE_NAMES:
            continue
        facts.append(
            CourseFact(
                code=code,
                name=_english(cell(columns.name)),
                file_name="",
                document_id="",
                aliases=_aliases(cell(columns.name)),
                credits=_number(cell(columns.credits)),
                semester=_integer(cell(columns.semester)),
                prerequisites=cell(columns.prerequisites)
                if columns.prerequisites is not None
                else None,
                in_plan=columns.semester is not None,
            )
        )
    return facts


def _key_value_table(table: SourceTable) -> list[CourseFact]:
    if not 2 <= len(table.header) <= 3:
        return []
    pairs = _pairs(table)
    code = next((pairs[k] for k in pairs if k in _CODE_NAMES), "")
    if not looks_like_code_cell(code):
        return []
    names = [pairs[k] for k in _NAME_NAMES if pairs.get(k)]
    credits = next((v for k, v in pairs.items() if _is_credits(k)), None)
    semester = next((v for k, v in pairs.items() if _is_semester(k)), None)
    prerequisites = next((v for k, v in pairs.items() if _is_prerequisites(k)), None)
    if credits is None and semester is None and prerequisites is None:
        return []
    aliases = tuple(dict.fromkeys(a for n in names for a in _aliases(n)))
    return [
        CourseFact(
            code=code,
            name=_english(names[0]) if names else "",
            file_name="",
            document_id="",
            aliases=aliases,
            credits=_number(credits or ""),
            semester=_integer(semester or ""),
            prerequisites=prerequisites,
        )
    ]


def _pairs(table: SourceTable) -> dict[str, str]:
    """A key/value table's keys (folded, without the colon) and values; the header row is a
    pair too (Markdown makes the first row the header)."""
    pairs: dict[str, str] = {}
    for row in (table.header, *table.rows):
        if len(row) >= 2 and row[0].strip():
            pairs.setdefault(_key(row[0]), " ".join(row[1].split()))
    return pairs


def _cell_of(row: tuple[str, ...]):
    def cell(index: int | None) -> str:
        if index is None or index >= len(row):
            return ""
        return " ".join(row[index].split())

    return cell


def _english(name: str) -> str:
    """FPT tables write "English_Vietnamese": the English part names the course."""
    return name.split("_", 1)[0].strip() if "_" in name else name.strip()


def _aliases(name: str) -> tuple[str, ...]:
    parts = [name.strip(), *(p.strip() for p in name.split("_"))] if name.strip() else []
    return tuple(dict.fromkeys(p for p in parts if p))


def _number(text: str) -> float | None:
    match = re.search(r"\d+(?:[.,]\d+)?", text)
    return float(match.group().replace(",", ".")) if match else None


def _integer(text: str) -> int | None:
    match = re.fullmatch(r"\s*(?:semester|hoc ky|ky|term)?\s*(\d{1,2})\s*", fold(text))
    return int(match.group(1)) if match else None


# "dated 12/31/2025" (the key says MM/dd/yyyy), "ApprovedDate: 8/22/2025", or ISO dates.
_DATED = re.compile(r"dated\s+(\d{1,2})/(\d{1,2})/(\d{4})", re.IGNORECASE)
_SLASHED = re.compile(r"(\d{1,2})/(\d{1,2})/(\d{4})")
_ISO = re.compile(r"(\d{4})-(\d{2})-(\d{2})")


def document_version(
    tables: list[SourceTable], *, file_name: str, title: str = "", texts: tuple[str, ...] = ()
) -> DocumentVersion:
    pairs: dict[str, str] = {}
    for table in tables:
        if 2 <= len(table.header) <= 3:
            for key, value in _pairs(table).items():
                pairs.setdefault(key, value)
    curriculum = next((v for k, v in pairs.items() if "curriculum" in k and "code" in k), "")
    decision = next((v for k, v in pairs.items() if k.startswith("decision")), "")
    approved = next((v for k, v in pairs.items() if "approved" in k and "date" in k), "")
    stated = _date(decision) or _date(approved) or next(filter(None, map(_date, texts)), None)
    intake = next(
        (n for s in (curriculum, title, file_name) if (n := first_intake(s)) is not None),
        None,
    )
    label = curriculum or (f"decision {decision}" if decision else "") or title
    return DocumentVersion(date=stated, intake=intake, label=label)


def _date(text: str) -> date | None:
    for pattern, order in ((_DATED, "mdy"), (_ISO, "ymd"), (_SLASHED, "mdy")):
        match = pattern.search(text)
        if match is None:
            continue
        numbers = [int(g) for g in match.groups()]
        year, month, day = numbers if order == "ymd" else (numbers[2], numbers[0], numbers[1])
        if month > 12:  # written day first after all
            month, day = day, month
        try:
            return date(year, month, day)
        except ValueError:
            return None
    return None
