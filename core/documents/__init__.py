"""Which document a question is about: document identities (codes, names, versions) written at
ingestion, read back per course, and matched against a question's words."""

from core.documents.directory import DocumentDirectory
from core.documents.identity import DocumentIdentity
from core.documents.labels import document_label
from core.documents.mentions import Mentions, mentions, without_names

__all__ = [
    "DocumentDirectory",
    "DocumentIdentity",
    "Mentions",
    "document_label",
    "mentions",
    "without_names",
]
