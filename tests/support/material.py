"""Puts hand-written chunks straight into an index, for tests that need material but are not
about ingestion."""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from qdrant_client import models

from core.embedding.embedder import Embedder, embed_for_index
from core.index import ChunkIndex, SparseEncoder, Visibility
from core.index import fields as f


@dataclass(frozen=True)
class Passage:
    text: str
    file_name: str = "syllabus.md"
    page: int | None = None
    section: str = ""
    course_id: str = "sample"
    owner_id: str | None = None


async def add_passages(index: ChunkIndex, embedder: Embedder, passages: list[Passage]) -> None:
    # The vectors ingestion would write for this index.
    dense, units = await embed_for_index(embedder, [p.text for p in passages], index.units)
    sparse = SparseEncoder()
    points = []
    for n, (passage, vector) in enumerate(zip(passages, dense, strict=True)):
        terms = sparse.encode_document(passage.text)
        visibility = Visibility.PRIVATE if passage.owner_id else Visibility.PUBLIC
        named: dict[str, object] = {
            f.DENSE: vector.tolist(),
            f.SPARSE: models.SparseVector(indices=terms.indices, values=terms.values),
        }
        if units:
            named[f.UNITS] = units[n].tolist()
        points.append(
            models.PointStruct(
                id=str(uuid.uuid4()),
                vector=named,
                payload={
                    f.COURSE_ID: passage.course_id,
                    f.DOCUMENT_ID: f"{passage.course_id}/{passage.file_name}",
                    f.FILE_NAME: passage.file_name,
                    f.TEXT: passage.text,
                    f.PAGE: passage.page,
                    f.SECTION: passage.section,
                    f.KIND: "syllabus",
                    f.VISIBILITY: visibility.value,
                    f.OWNER_ID: passage.owner_id,
                    f.CHUNK_INDEX: n,
                },
            )
        )
    await index.upsert(points)
