"""Tables of courses found in a document, as catalog facts.

A table is a course table by its columns, not by the file it is in: a code column, a name
column, and at least one of credits, semester or prerequisites (a curriculum's "Curriculum
details"). A two- or three-column key/value table with the same keys (a syllabus's "General
information": Subject Code, Syllabus English, NoCredit, Pre-Requisite) gives one course.
A table of codes and names alone under a heading (a combo's, a specialisation's course
list) gives courses of that group, with the semester the document's key/value table states.
The document's version (a curriculum code with its intake, a decision date) is read from the
same tables and the title, so several versions of a course can be told apart.

Learning-outcome tables are read too (`extract_outcomes`): a list of outcomes (an id such as
"PLO5" or "BIT_AI_PO1" beside its description) and a map from outcomes to outcomes (a
syllabus's CLOs to PLOs, a curriculum's PLOs to POs, ticked cells), with how many columns the
map has: syllabi of one programme do not all number their PLOs alike."""

from __future__ import annotations

import datetime
import re
from dataclasses import dataclass, field
from datetime import date
from enum import StrEnum

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
    # The heading of a course list without plan columns ("AI17_COM1: Topic on Applied Data
    # Science"): the group (combo, specialisation) the course is offered in.
    group: str = ""
    # What the course is about, when a key/value table says ("Description").
    description: str = ""


class OutcomeKind(StrEnum):
    STATED = "stated"  # an outcome and its text
    MAPPED = "mapped"  # an outcome and the outcomes its row ticks


@dataclass(frozen=True, slots=True)
class OutcomeFact:
    """One row of a learning-outcome table. STATED: `code` ("PLO5") and its `text`. MAPPED:
    `code` ("CLO2", or "PLO5" in a PLO-to-PO map) ticks `targets`, out of `columns` target
    columns. `course` is the code of the syllabus's course (empty in a curriculum)."""

    kind: OutcomeKind
    code: str
    file_name: str
    document_id: str
    text: str = ""
    targets: tuple[str, ...] = ()
    columns: int = 0
    course: str = ""
    section: str = ""
    page: int | None = None
    version: DocumentVersion = DocumentVersion()
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
    semester = _document_semester(tables)
    facts: list[CourseFact] = []
    for table in tables:
        found = _row_table(table) or _key_value_table(table) or _listing(table, semester)
        for fact in found:
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
        group=fact.group,
        description=fact.description,
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


def _columns(header: tuple[str, ...], *, listing: bool = False) -> _Columns | None:
    """A course table's columns; with `listing`, a code and a name are enough."""
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
    if all(index is None for index in found) != listing:
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
    description = next((v for k, v in pairs.items() if k == "description"), "")
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
            description=_plain(description),
        )
    ]


def _listing(table: SourceTable, semester: int | None) -> list[CourseFact]:
    """A list of courses (codes and names, no plan columns) under its heading: the group's
    courses, in the semester the document states."""
    columns = _columns(table.header, listing=True)
    if columns is None or not table.section.strip():
        return []
    facts = []
    for row in table.rows:
        cell = _cell_of(row)
        code = cell(columns.code)
        if not looks_like_code_cell(code) or _key(code) in _CODE_NAMES:
            continue
        name = cell(columns.name)
        facts.append(
            CourseFact(
                code=code, name=_english(name), file_name="", document_id="",
                aliases=_aliases(name), semester=semester, group=table.section.strip(),
            )
        )  # fmt: skip
    return facts


def _document_semester(tables: list[SourceTable]) -> int | None:
    """The semester a document's key/value table states ("Semester: 5")."""
    for table in tables:
        if 2 <= len(table.header) <= 3:
            for key, value in _pairs(table).items():
                if _is_semester(key) and (number := _integer(value)) is not None:
                    return number
    return None


def _plain(text: str) -> str:
    """A cell's text without the HTML line breaks some exports put in."""
    return " ".join(re.sub(r"</?br\s*/?>", " ", text, flags=re.IGNORECASE).split())


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


# An outcome's id: "PLO5", "CLO12", "PO1", "BIT_AI_PO1", "LO3", "SO2a".
_OUTCOME = re.compile(r"(?:[A-Za-z][A-Za-z0-9]*_)*[A-Z]{0,3}L?O\d{1,2}[a-z]?")
_TICKED = {"yes", "y", "x", "v", "1", "true", "✓", "✔", "•", "*"}


def is_outcome_code(text: str) -> bool:
    return bool(_OUTCOME.fullmatch(text.strip()))


def extract_outcomes(
    tables: list[SourceTable],
    *,
    file_name: str,
    document_id: str,
    title: str = "",
    texts: tuple[str, ...] = (),
) -> list[OutcomeFact]:
    """Every outcome stated and every row of an outcome map in the document, in reading
    order; a syllabus's rows carry its course code."""
    version = document_version(tables, file_name=file_name, title=title, texts=texts)
    course = next((f.code for t in tables for f in _key_value_table(t)), "")
    found: list[OutcomeFact] = []
    for table in tables:
        for fact in _outcome_map(table) or _outcome_list(table):
            found.append(
                OutcomeFact(
                    kind=fact.kind, code=fact.code, file_name=file_name,
                    document_id=document_id, text=fact.text, targets=fact.targets,
                    columns=fact.columns, course=course, section=table.section,
                    page=table.page, version=version, ordinal=len(found),
                )
            )  # fmt: skip
    return found


def _outcome_map(table: SourceTable) -> list[OutcomeFact]:
    """A map: outcome ids across the header (two or more), one outcome per row, ticks."""
    targets = [(i, cell.strip()) for i, cell in enumerate(table.header) if is_outcome_code(cell)]
    if len(targets) < 2 or targets[0][0] == 0:
        return []
    rows = []
    for row in table.rows:
        code = row[0].strip() if row else ""
        if not is_outcome_code(code):
            continue
        ticked = tuple(
            name for i, name in targets if i < len(row) and fold(row[i]).strip() in _TICKED
        )
        rows.append(
            OutcomeFact(
                kind=OutcomeKind.MAPPED, code=code, file_name="", document_id="",
                targets=ticked, columns=len(targets),
            )
        )  # fmt: skip
    return rows


def _outcome_list(table: SourceTable) -> list[OutcomeFact]:
    """A list: a column of outcome ids (every filled cell one) beside a longer text."""
    columns = len(table.header)
    if columns < 2 or not table.rows:
        return []
    for index in range(columns):
        cells = [row[index].strip() for row in table.rows if index < len(row)]
        filled = [c for c in cells if c]
        # Each outcome once: a sessions table repeats the CLO each session serves.
        if not filled or not all(map(is_outcome_code, filled)) or len(set(filled)) < len(filled):
            continue
        text_at = _description_column(table, index)
        if text_at is None:
            continue
        return [
            OutcomeFact(
                kind=OutcomeKind.STATED, code=row[index].strip(), file_name="",
                document_id="", text=_plain(row[text_at]),
            )
            for row in table.rows
            if len(row) > text_at and row[index].strip() and row[text_at].strip()
        ]  # fmt: skip
    return []


def _description_column(table: SourceTable, beside: int) -> int | None:
    """The column holding the outcomes' texts: named so, else the longest other column."""
    names = [_key(cell) for cell in table.header]
    named = [
        i for i, n in enumerate(names)
        if i != beside and any(w in n for w in ("description", "detail", "statement", "outcome"))
    ]  # fmt: skip
    if named:
        return named[0]
    lengths = {
        i: sum(len(row[i]) for row in table.rows if i < len(row))
        for i in range(len(table.header))
        if i != beside
    }
    best = max(lengths, key=lengths.__getitem__, default=None)
    if best is None or lengths[best] < 20 * len(table.rows):
        return None
    return best


@dataclass(frozen=True, slots=True)
class AssessmentFact:
    """One graded part of a course as its syllabus's assessment table states it: the
    category ("Final exam"), its weight, how many parts, how long, the completion criterion
    (the cells' text, tidied)."""

    course: str
    category: str
    weight: str
    file_name: str
    document_id: str
    parts: str = ""
    duration: str = ""
    criterion: str = ""
    section: str = ""
    page: int | None = None
    ordinal: int = 0


def extract_assessments(
    tables: list[SourceTable], *, file_name: str, document_id: str
) -> list[AssessmentFact]:
    """The rows of a course's assessment table: a category (or assessment, component) column
    and a weight column, in a document that states its course's code."""
    course = next((f.code for t in tables for f in _key_value_table(t)), "")
    if not course:
        return []
    found: list[AssessmentFact] = []
    for table in tables:
        names = [_key(cell) for cell in table.header]
        category = next((i for i, n in enumerate(names)
                         if n in {"category", "assessment", "component", "assessment component"}),
                        None)  # fmt: skip
        weight = next((i for i, n in enumerate(names) if n.startswith("weight")), None)
        if category is None or weight is None:
            continue
        column = {n: i for i, n in enumerate(names)}
        for row in table.rows:
            cell = _cell_of(row)
            name, share = cell(category), _percent(cell(weight))
            if not name or not share:
                continue
            found.append(
                AssessmentFact(
                    course=course, category=name, weight=share, file_name=file_name,
                    document_id=document_id, parts=cell(column.get("part")),
                    duration=cell(column.get("duration")),
                    criterion=cell(column.get("completion criteria")),
                    section=table.section, page=table.page, ordinal=len(found),
                )
            )  # fmt: skip
    return found


def _percent(text: str) -> str:
    """ "10.0%" as "10%"; a cell without a number is no weight."""
    match = re.search(r"\d+(?:[.,]\d+)?", text)
    if match is None:
        return ""
    value = float(match.group().replace(",", "."))
    return f"{value:g}%"
