"""Writes a document's chunks to the index: embed, then swap generations.

The new version's points are written first and the old version's deleted after, so a
concurrent reader always finds the document; if writing fails, the new points are removed
and the old version stays as it was. Sparse encoding and building the points run in a worker
thread (like the embedder's inference), so a large document does not stall the event loop."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime

import numpy as np
from qdrant_client import models

from core.documents.identity import DocumentIdentity
from core.embedding.embedder import Embedder, embed_for_index
from core.index import ChunkIndex, ChunkPayload, SparseEncoder, Visibility
from core.index import fields as f
from core.visibility import chunk_visibility
from ingestion.chunking import Chunk
from ingestion.identity import point_id, text_sha256

EMBED_BATCH = 64
UPSERT_BATCH = 256

EmbeddedCallback = Callable[[int], Awaitable[None]]


@dataclass(frozen=True, slots=True)
class DocumentMeta:
    course_id: str
    document_id: str
    file_name: str
    title: str
    kind: str
    file_hash: str
    owner_id: str | None = None
    exercise_id: str | None = None
    exercise_source: str | None = None
    attributes: dict[str, str] = field(default_factory=dict)
    identity: DocumentIdentity = field(default_factory=DocumentIdentity)
    pages: int = 0
    file_bytes: int = 0

    @property
    def visibility(self) -> Visibility:
        return chunk_visibility(self.owner_id)


class ChunkWriter:
    def __init__(self, index: ChunkIndex, embedder: Embedder, sparse: SparseEncoder) -> None:
        self.index = index
        self.embedder = embedder
        self.sparse = sparse

    async def replace(
        self,
        meta: DocumentMeta,
        chunks: list[Chunk],
        generation: str,
        on_embedded: EmbeddedCallback | None = None,
    ) -> None:
        vectors, units = await self._embed(chunks, on_embedded)
        written: list[str] = []
        try:
            # Points are built a batch at a time: a point holds its vectors as Python floats
            # (~50 KB with its unit vectors), so a whole large file's would take gigabytes.
            for start in range(0, len(chunks), UPSERT_BATCH):
                end = start + UPSERT_BATCH
                batch = await asyncio.to_thread(
                    self._points,
                    meta,
                    chunks[start:end],
                    vectors[start:end],
                    units[start:end],
                    generation,
                    len(chunks),
                )
                written.extend(str(p.id) for p in batch)
                await self.index.upsert(batch)
        except BaseException:
            await self.index.delete_points(written)
            raise
        await self.index.delete_document(
            meta.course_id, meta.document_id, keep_generation=generation
        )

    async def _embed(
        self, chunks: list[Chunk], on_embedded: EmbeddedCallback | None
    ) -> tuple[np.ndarray, list[np.ndarray]]:
        """The chunks' vectors and, where the index keeps them, their unit vectors."""
        parts = []
        units: list[np.ndarray] = []
        for start in range(0, len(chunks), EMBED_BATCH):
            texts = [c.embed_text for c in chunks[start : start + EMBED_BATCH]]
            vectors, batch_units = await embed_for_index(self.embedder, texts, self.index.units)
            parts.append(vectors)
            units.extend(batch_units)
            if on_embedded is not None:
                await on_embedded(start + len(texts))
        dense = np.concatenate(parts) if parts else np.zeros((0, self.embedder.dimensions))
        return dense, units

    def _points(
        self,
        meta: DocumentMeta,
        chunks: list[Chunk],
        vectors: np.ndarray,
        units: list[np.ndarray],
        generation: str,
        total: int,
    ) -> list[models.PointStruct]:
        """Runs in a worker thread: sparse encoding is about 0.2 ms a chunk (its stems cached)."""
        now = datetime.now(UTC)
        points = []
        for number, (chunk, vector) in enumerate(zip(chunks, vectors, strict=True)):
            terms = self.sparse.encode_document(chunk.embed_text)
            payload = ChunkPayload(
                course_id=meta.course_id,
                document_id=meta.document_id,
                file_name=meta.file_name,
                title=meta.title,
                kind=meta.kind,
                text=chunk.passage or chunk.text,
                page=chunk.page,
                section=chunk.section,
                owner_id=meta.owner_id,
                file_hash=meta.file_hash,
                content_hash=text_sha256(chunk.text),
                chunk_index=chunk.index,
                generation=generation,
                ingested_at=now,
                exercise_id=meta.exercise_id,
                exercise_source=meta.exercise_source,
                attributes=meta.attributes,
                embed_text=chunk.embed_text,
                identity=meta.identity,
                page_count=meta.pages,
                file_bytes=meta.file_bytes,
                content_kind=chunk.content_kind,
                chunk_count=total,
            )
            named: dict[str, models.Vector] = {
                f.DENSE: vector.tolist(),
                f.SPARSE: models.SparseVector(indices=terms.indices, values=terms.values),
            }
            if units:
                named[f.UNITS] = units[number].tolist()
            points.append(
                models.PointStruct(
                    id=point_id(meta.document_id, generation, chunk.index),
                    vector=named,
                    payload=payload.to_payload(),
                )
            )
        return points
