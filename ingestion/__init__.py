"""Course material into the index: loaders, chunking, indexing, scheduled runs."""

from ingestion.pipeline import (
    FileResult,
    FileStatus,
    Ingestor,
    IngestProgress,
    IngestReport,
    ProgressCallback,
    SourceFile,
    discover,
)

__all__ = [
    "FileResult",
    "FileStatus",
    "IngestProgress",
    "IngestReport",
    "Ingestor",
    "ProgressCallback",
    "SourceFile",
    "discover",
]
