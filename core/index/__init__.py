"""The tenant-scoped chunk index in Qdrant."""

from core.index.chunk_index import (
    ChunkIndex,
    ChunkRecord,
    DocumentSummary,
    IndexMismatchError,
    SearchHit,
    SearchMode,
)
from core.index.edge_client import EdgeQdrantClient, IndexInUseError
from core.index.edge_models import UntranslatableModelError
from core.index.fields import Visibility
from core.index.payload import ChunkPayload
from core.index.sparse import SparseEncoder, SparseVector
from core.index.tenant import tenant_filter

__all__ = [
    "ChunkIndex",
    "ChunkPayload",
    "ChunkRecord",
    "DocumentSummary",
    "EdgeQdrantClient",
    "IndexInUseError",
    "IndexMismatchError",
    "SearchHit",
    "SearchMode",
    "SparseEncoder",
    "SparseVector",
    "UntranslatableModelError",
    "Visibility",
    "tenant_filter",
]
