"""A document's identity, read from its own text at ingestion: the codes and names it goes
by, and, for a document that comes in versions (a curriculum per intake), its family and
version. Stored with every chunk (`core.documents.identity`) so a question that names a
document can be steered to it, and the newest version preferred."""

from __future__ import annotations

import re
from pathlib import PurePath

from core.documents.identity import DocumentIdentity, codes_in, fold_name
from ingestion.documents import Block, BlockKind, LoadedDocument

# A whole-token document code with an underscore or digits inside (AI17_COM_1, BIT_AI_K20D-21A).
_TOKEN_CODE = re.compile(r"^[A-Za-z][A-Za-z0-9]*(?:[_\-][A-Za-z0-9]+)+$")
# Intakes in a curriculum's code or title: "K18D-K19A", "K20D-21A", "20D-21A", "K19".
_INTAKES = re.compile(
    r"(?<![A-Za-z0-9])K?(\d{2})[A-Z]?(?:\s*[-–]\s*K?(\d{2})[A-Z]?)?(?![0-9])", re.I
)
_YEAR = re.compile(r"(?<!\d)(19|20)(\d{2})(?!\d)")
# Key/value table keys whose value names the document (folded, without the colon).
_NAME_KEYS = ("syllabus name", "syllabus english", "english name", "name", "course name",
              "course title", "subject name", "title")  # fmt: skip
_CODE_KEYS = ("subject code", "course code", "curriculum code", "curriculumcode", "code",
              "course number")  # fmt: skip
# Titles of documents that describe a whole programme.
_PROGRAMME = re.compile(r"\b(curriculum|programme|program of study|study plan)\b", re.I)
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
    programme = bool(_PROGRAMME.search(title)) or any("curriculum" in k for k in fields)
    version, family = _version(title, code_texts, programme)
    return DocumentIdentity(
        codes=tuple(codes),
        names=tuple(n for n in names if n not in codes),
        family=family,
        version=version,
        programme=programme,
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
        for code, _where in codes_in(text):
            _add(found, code)
        for word in text.replace(":", " ").split():
            if _TOKEN_CODE.match(word) and any(c.isdigit() for c in word):
                _add(found, fold_name(word))
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
        match = _INTAKES.search(_TITLE_LABEL.sub("", text)) if programme else None
        if match:
            numbers = tuple(int(n) for n in match.groups() if n)
            return numbers, "programme"
    year = _YEAR.search(title)
    if year:
        family = fold_name(_YEAR.sub(" ", _TITLE_LABEL.sub("", title)))
        return (int(year.group(1) + year.group(2)),), family
    return (), ""


def _add(found: list[str], value: str) -> None:
    if value and value not in found:
        found.append(value)
