"""The search condition that keeps one kind of content (`core.content_kind`): added to the
tenant filter by `ChunkIndex.search`, never instead of it. A chunk stored before chunks were
classified has no kind and passes, so an old index keeps answering; callers that need
certainty read `ChunkRecord.content`, which classifies such a chunk from its text."""

from __future__ import annotations

from qdrant_client import models

from core.content_kind import ContentKind
from core.index.fields import CONTENT_KIND


def content_scope(kind: ContentKind) -> models.Filter:
    """Chunks of `kind`, or of no recorded kind: none of the other kind."""
    if kind is ContentKind.UNKNOWN:
        raise ValueError("a search keeps teaching or logistics, not unknown content")
    other = ContentKind.LOGISTICS if kind is ContentKind.TEACHING else ContentKind.TEACHING
    return models.Filter(
        must_not=[models.FieldCondition(key=CONTENT_KIND, match=models.MatchValue(value=other))]
    )
