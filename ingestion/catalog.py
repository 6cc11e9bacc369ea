"""A loaded document's tables, handed to the catalog's extraction (`core.catalog`) as
format-free tables with their page and section. The pipeline stores the facts with the
document (replaced with it, removed with it); private notes never feed the catalog."""

from __future__ import annotations

from core.catalog import (
    AssessmentFact,
    CourseFact,
    OutcomeFact,
    SourceTable,
    extract_assessments,
    extract_facts,
    extract_outcomes,
)
from ingestion.chunking import section_label
from ingestion.documents import BlockKind, LoadedDocument

# Paragraphs read for a stated date when no table gives one (a PDF syllabus's front page).
_VERSION_TEXTS = 20


def course_facts(document: LoadedDocument, document_id: str) -> list[CourseFact]:
    tables = _tables(document)
    if not tables:
        return []
    return extract_facts(
        tables, file_name=document.file_name, document_id=document_id, title=document.title,
        texts=_texts(document),
    )  # fmt: skip


def course_outcomes(document: LoadedDocument, document_id: str) -> list[OutcomeFact]:
    """The document's learning outcomes and outcome maps (PLOs, CLO-to-PLO tables)."""
    tables = _tables(document)
    if not tables:
        return []
    return extract_outcomes(
        tables, file_name=document.file_name, document_id=document_id, title=document.title,
        texts=_texts(document),
    )  # fmt: skip


def course_assessments(document: LoadedDocument, document_id: str) -> list[AssessmentFact]:
    """The graded parts of the document's course (a syllabus's assessment table)."""
    tables = _tables(document)
    if not tables:
        return []
    return extract_assessments(tables, file_name=document.file_name, document_id=document_id)


def _texts(document: LoadedDocument) -> tuple[str, ...]:
    texts = tuple(b.text for b in document.blocks if b.kind is not BlockKind.TABLE)
    return texts[:_VERSION_TEXTS]


def _tables(document: LoadedDocument) -> list[SourceTable]:
    return [
        SourceTable(
            header=block.table.header,
            rows=block.table.rows,
            page=block.page,
            section=section_label(block.section, document.title),
        )
        for block in document.blocks
        if block.kind is BlockKind.TABLE and block.table is not None
    ]
