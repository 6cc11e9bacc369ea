"""Per-file ingestion errors. Each message is meant for the person who sent the file."""

from __future__ import annotations


class IngestError(Exception):
    """A file could not be ingested; the index is unchanged for it."""


class UnsupportedFileError(IngestError):
    pass


class EmptyFileError(IngestError):
    pass


class CorruptFileError(IngestError):
    pass


class EncryptedFileError(IngestError):
    pass


class FileTooLargeError(IngestError):
    pass


class InvalidExerciseError(IngestError):
    """A guided-exercise file that breaks the format; the message names the line."""


class NotesQuotaError(IngestError):
    """A private notes file that would take its owner over the notes quota."""


class ArchiveTooLargeError(FileTooLargeError):
    """A DOCX or PPTX (a zip package) that would unpack to more than its limits allow."""
