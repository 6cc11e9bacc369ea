"""Re-embedding a course with another embedder, from the text stored with its chunks: no file
is read or parsed again, sparse vectors and payloads stay as they are.

While a course is rewritten its record names the run ("reindexing to ..."), so an index with
the course half done does not open for searching; the new embedder is recorded when every
chunk has its new vector. An interrupted run is finished by running it again."""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import structlog

from core.embedding.embedder import Embedder, embed_for_index
from core.index import ChunkIndex
from core.index.chunk_index import REINDEXING

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
    done = approximated = 0
    async for chunks in index.stored_chunks(course_id, REINDEX_BATCH):
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
    return ReindexReport(course_id, done, approximated, identity)
