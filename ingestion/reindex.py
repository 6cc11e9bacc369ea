"""Re-embedding a course with another embedder, from the text stored with its chunks: no file
is read or parsed again, sparse vectors and payloads stay as they are.

While a course is rewritten its record names the run ("reindexing to ..."), so an index with
the course half done does not open for searching; the new embedder is recorded when every
chunk has its new vector. An interrupted run is finished by running it again. A chunk stored
before chunks were classified as teaching or logistics gets its kind on the way
(`core.content_kind`, read with the other chunks of its document in the same batch)."""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import structlog

from core.content_kind import classify_document
from core.embedding.embedder import Embedder, embed_for_index
from core.index import ChunkIndex
from core.index import fields as f
from core.index.chunk_index import REINDEXING, StoredChunk

log = structlog.get_logger(__name__)

# Chunks scrolled, embedded and written back per round.
REINDEX_BATCH = 256

ReindexProgress = Callable[[int], Awaitable[None] | None]


@dataclass(frozen=True, slots=True)
class ReindexReport:
    course_id: str
    chunks: int
    # Chunks indexed before the embed text was stored, embedded from their shown passage.
    approximated: int
    embedder: str
    # Chunks stored before chunks were classified, classified on the way.
    classified: int = 0


async def reindex_course(
    index: ChunkIndex,
    embedder: Embedder,
    identity: str,
    course_id: str,
    on_progress: ReindexProgress | None = None,
) -> ReindexReport:
    """Give every chunk of the course a dense vector from `embedder`, then record `identity`
    as the course's embedder. `index` must be opened without an embedder check."""
    await index.record_embedder(course_id, REINDEXING + identity)
    done = approximated = classified = 0
    async for chunks in index.stored_chunks(course_id, REINDEX_BATCH):
        classified += classify_stored(chunks)
        texts = [chunk.embed_text for chunk in chunks]
        vectors, units = await embed_for_index(embedder, texts, index.units)
        await index.replace_dense(chunks, vectors, units)
        done += len(chunks)
        approximated += sum(not chunk.exact for chunk in chunks)
        if on_progress is not None:
            outcome = on_progress(done)
            if inspect.isawaitable(outcome):
                await outcome
    await index.record_embedder(course_id, identity)
    if approximated:
        log.warning(
            "chunks without stored embed text were embedded from their passage; ingest the "
            "files again for vectors identical to a fresh ingestion",
            course=course_id,
            chunks=approximated,
        )
    log.info("reindexed course", course=course_id, chunks=done, embedder=identity)
    return ReindexReport(course_id, done, approximated, identity, classified)


def classify_stored(chunks: list[StoredChunk]) -> int:
    """Give the chunks stored without a content kind one, in their payload (written back with
    the new vectors); how many there were."""
    unclassified: dict[str, list[StoredChunk]] = {}
    for chunk in chunks:
        if f.CONTENT_KIND not in chunk.payload:
            unclassified.setdefault(str(chunk.payload.get(f.DOCUMENT_ID)), []).append(chunk)
    for document in unclassified.values():
        document.sort(key=lambda chunk: chunk.payload.get(f.CHUNK_INDEX) or 0)
        kinds = classify_document(
            [(_own_text(c), c.payload.get(f.SECTION) or "") for c in document]
        )
        for chunk, kind in zip(document, kinds, strict=True):
            chunk.payload[f.CONTENT_KIND] = kind.value
    return sum(map(len, unclassified.values()))


def _own_text(chunk: StoredChunk) -> str:
    """The chunk's text without its context header (or, before the embed text was stored,
    its passage)."""
    if chunk.exact:
        return chunk.embed_text.partition("\n")[2]
    return str(chunk.payload.get(f.TEXT) or "")
