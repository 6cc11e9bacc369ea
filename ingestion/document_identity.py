"""A document's identity, read from its own text at ingestion: the codes and names it goes
by, and, for a document that comes in versions (a curriculum per intake), its family and
version. Stored with every chunk (`core.documents.identity`) so a question that names a
document can be steered to it, and the newest version preferred."""

from __future__ import annotations

import re
from pathlib import PurePath

from core.course_codes import (
    codes_in,
    document_codes_in,
    intakes_in,
    names_a_programme,
    names_course_groups,
)
from core.documents.identity import DocumentIdentity
from core.text import fold_name
from ingestion.documents import Block, BlockKind, LoadedDocument

_YEAR = re.compile(r"(?<!\d)(19|20)(\d{2})(?!\d)")
# Key/value table keys whose value names the document (folded, without the colon).
_NAME_KEYS = ("syllabus name", "syllabus english", "english name", "name", "course name",
              "course title", "subject name", "title")  # fmt: skip
_CODE_KEYS = ("subject code", "course code", "curriculum code", "curriculumcode", "code",
              "course number")  # fmt: skip
# Leading words of a title that say what the document is, not which one.
_TITLE_LABEL = re.compile(r"^\s*(syllabus|curriculum|pathway|course)\s*:\s*", re.I)
# A name shorter than this (folded) is too vague to steer retrieval ("ai", "name").
MIN_NAME = 4
HEADING_LINES = 40


def identify(document: LoadedDocument) -> DocumentIdentity:
    """Codes and names from the title, the file name and the first key/value table; a family
    and version when the title or code states intakes (a curriculum per cohort) or a year."""
    fields = _key_values(document.blocks[:HEADING_LINES])
    title = document.title or PurePath(document.file_name).stem
    code_texts = [v for k, v in fields.items() if k in _CODE_KEYS]
    codes = _codes([title, PurePath(document.file_name).stem, *code_texts])
    names = _names(
        [_TITLE_LABEL.sub("", title), *(v for k, v in fields.items() if k in _NAME_KEYS)]
    )
    programme = names_a_programme(title) or any("curriculum" in k for k in fields)
    version, family = _version(title, code_texts, programme)
    return DocumentIdentity(
        codes=tuple(codes),
        names=tuple(n for n in names if n not in codes),
        family=family,
        version=version,
        programme=programme,
        groups=names_course_groups(title),
    )


def _key_values(blocks: list[Block]) -> dict[str, str]:
    """The first rows of two-column "Key: | value" tables, keys folded without the colon."""
    pairs: dict[str, str] = {}
    for block in blocks:
        if block.kind is not BlockKind.TABLE or block.table is None:
            continue
        for row in (block.table.header, *block.table.rows):
            cells = [c.strip() for c in row if c.strip()]
            if len(cells) >= 2 and cells[0].endswith(":"):
                pairs.setdefault(fold_name(cells[0]), cells[1])
    return pairs


def _codes(texts: list[str]) -> list[str]:
    found: list[str] = []
    for text in texts:
        for code in (*codes_in(text), *document_codes_in(text)):
            _add(found, code.key)
    return found


def _names(texts: list[str]) -> list[str]:
    """Each text, and its parts where it joins two languages or a name and a variant
    ("Machine Learning_Học máy", "Nhạc cụ truyền thống - Đàn Bầu")."""
    found: list[str] = []
    for text in texts:
        for part in (text, *re.split(r"_|\s[-–]\s|\(|\)", text)):
            name = fold_name(part)
            if len(name) >= MIN_NAME and not name.isdigit():
                _add(found, name)
    return found


def _version(title: str, code_texts: list[str], programme: bool) -> tuple[tuple[int, ...], str]:
    """A programme document's intakes ("K20D-21A" -> (20, 21)), or a year in its title; the
    family is the folded title without them, so the versions of one curriculum share it."""
    for text in (*code_texts, title):
        intakes = intakes_in(_TITLE_LABEL.sub("", text), bare_cohorts=True) if programme else []
        if intakes:
            return intakes[0].numbers, "programme"
    year = _YEAR.search(title)
    if year:
        family = fold_name(_YEAR.sub(" ", _TITLE_LABEL.sub("", title)))
        return (int(year.group(1) + year.group(2)),), family
    return (), ""


def _add(found: list[str], value: str) -> None:
    if value and value not in found:
        found.append(value)
