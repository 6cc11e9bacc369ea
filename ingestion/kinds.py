"""What kind of document a file is: it decides how the document is labelled and ranked."""

from __future__ import annotations

from ingestion.documents import DocumentKind

_BY_NAME: tuple[tuple[DocumentKind, tuple[str, ...]], ...] = (
    (DocumentKind.SYLLABUS, ("syllabus", "syll", "curriculum", "regulation", "policy", "policies")),
    (
        DocumentKind.EXERCISES,
        ("exercise", "homework", "worksheet", "problem", "assignment", "lab", "quiz", "practice"),
    ),
)


def infer_kind(file_name: str, loaded: DocumentKind, private: bool) -> DocumentKind:
    if private:
        return DocumentKind.NOTES
    if loaded in (DocumentKind.SLIDES, DocumentKind.GUIDED_EXERCISE):
        return loaded
    name = file_name.lower()
    for kind, words in _BY_NAME:
        if any(word in name for word in words):
            return kind
    return loaded
