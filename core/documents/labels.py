"""The short name an answer labels a quote with, so a fact quoted from one document is never
read as another's: a course code in the title ("Syllabus: DBI202" -> "DBI202"), else a
document code ("Pathway: AI17_COM_1" -> "AI17_COM_1"), else the title, else the file name."""

from __future__ import annotations

from pathlib import PurePath

from core.course_codes import codes_in, document_codes_in


def document_label(title: str, file_name: str) -> str:
    for text in (title, PurePath(file_name).stem):
        found = codes_in(text) or document_codes_in(text)
        if found:
            return found[0].written
    return title.strip() or PurePath(file_name).stem
