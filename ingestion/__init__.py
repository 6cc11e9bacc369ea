"""Course material into the index: loaders, chunking, indexing, scheduled runs."""

from ingestion.pipeline import (
    FileResult,
    FileStatus,
    Ingestor,
    IngestProgress,
    IngestReport,
    SourceFile,
    discover,
)

__all__ = [
    "FileResult",
    "FileStatus",
    "IngestProgress",
    "IngestReport",
    "Ingestor",
    "SourceFile",
    "discover",
]
