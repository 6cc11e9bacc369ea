"""The course chunk index in Qdrant: one collection, a named dense and a named sparse vector,
payload indexes for the tenant fields. Local mode on disk and a server use the same code.

The collection's metadata records, per course, which embedder wrote the course's dense
vectors (its name and model file hash). An index opened with another embedder refuses to
start (`IndexMismatchError`, naming `coursebot reindex`) instead of comparing vectors of two
models; `coursebot reindex` remakes them from the stored embed text."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

import numpy as np
import structlog
from qdrant_client import AsyncQdrantClient, models

from core.content_kind import ContentKind
from core.context import Context
from core.documents.identity import DocumentIdentity
from core.embedding.late_chunking import unit_spans
from core.index import fields as f
from core.index.content import content_scope
from core.index.edge_client import EdgeQdrantClient
from core.index.payload import ChunkRecord, DocumentSummary
from core.index.sparse import SparseVector
from core.index.tenant import course_filter, maintenance_scope, owner_scope, tenant_filter

log = structlog.get_logger(__name__)


@dataclass(frozen=True, slots=True)
class SearchHit:
    chunk: ChunkRecord
    score: float
    # The stored dense vector, when the search asked for it (`with_vectors=True`).
    vector: tuple[float, ...] | None = field(default=None, compare=False, repr=False)
    # The matched chunk's units (late chunking) with their similarity to the question, best
    # unit first, when retrieval was asked for them (`Retriever.retrieve(unit_scores=True)`).
    unit_scores: tuple[tuple[str, float], ...] = field(default=(), compare=False, repr=False)
    # From a document the question names (`core.documents.mentions`): an answer about that
    # document quotes its passages first and labels what it quotes from any other. `named_by`:
    # the question's words that name it (a code, a prefix, a name; none for a version): they
    # say which document, not which of its facts.
    named: bool = field(default=False, compare=False)
    named_by: tuple[str, ...] = field(default=(), compare=False)


GUIDED_EXERCISE_KIND = "guided_exercise"


class IndexMismatchError(RuntimeError):
    """The stored collection was built for another embedder."""


# Chunks whose units a search rescores: the nearest by their chunk vectors.
UNIT_POOL = 100

# Collection metadata key, followed by a course id: the identity of the embedder that wrote
# that course's dense vectors.
EMBEDDER_KEY = "coursebot.embedder."
# A course indexed before indexes recorded their embedder.
UNRECORDED = "an unrecorded embedder"
# Prefix of the record while `coursebot reindex` rewrites a course: its vectors are mixed.
REINDEXING = "reindexing to "
# Courses named in a mismatch message before it says `--all` instead.
_NAMED_COURSES = 5


@dataclass(frozen=True, slots=True)
class StoredChunk:
    """A stored point as `coursebot reindex` needs it: the text to embed again and the
    rest of the point, kept as it is."""

    id: models.ExtendedPointId
    embed_text: str
    payload: dict[str, Any]
    sparse: models.SparseVector | None
    # False when the point predates stored embed text and `embed_text` was rebuilt from the
    # shown passage (its vector then differs a little from a fresh ingestion's).
    exact: bool


class SearchMode(StrEnum):
    DENSE = "dense"
    SPARSE = "sparse"
    RRF = "rrf"
    DBSF = "dbsf"


def _stored(point: models.Record) -> StoredChunk:
    payload = dict(point.payload or {})
    stored = point.vector.get(f.SPARSE) if isinstance(point.vector, dict) else None
    sparse = stored if isinstance(stored, models.SparseVector) else None
    text = payload.get(f.EMBED_TEXT)
    if text:
        return StoredChunk(point.id, text, payload, sparse, exact=True)
    # Indexed before the embed text was stored: the chunking's header over the shown passage.
    header = " · ".join(
        part
        for part in (payload.get(f.COURSE_ID), payload.get(f.TITLE), payload.get(f.SECTION))
        if part
    )
    return StoredChunk(
        point.id, f"{header}\n{payload.get(f.TEXT, '')}", payload, sparse, exact=False
    )


def _dense_of(vector: Any) -> tuple[float, ...] | None:
    value = vector.get(f.DENSE) if isinstance(vector, dict) else None
    return tuple(value) if value is not None else None


class ChunkIndex:
    def __init__(
        self,
        client: AsyncQdrantClient | EdgeQdrantClient,
        collection: str,
        dimensions: int,
        payload_indexes: bool = True,
        embedder_id: str | None = None,
        unit_vectors: bool = False,
    ) -> None:
        self.client = client
        self.collection = collection
        self.dimensions = dimensions
        # Local mode scans payloads and warns about indexes; a server needs them.
        self.payload_indexes = payload_indexes
        # The embedder whose vectors are written and searched; None = not checked or recorded
        # (tests, benchmarks, `coursebot reindex`, which records by itself).
        self.embedder_id = embedder_id
        # Whether chunks carry unit vectors (the embedder makes them) and the dense side of a
        # search scores a chunk by its best unit. A collection created without them keeps
        # the chunk vectors alone (`ensure` finds out).
        self.units = unit_vectors
        self._recorded: dict[str, str] = {}
        # Writes this process made, per course ("" counts deletions by point id, course
        # unknown): caches of what a course holds compare it to know they are stale.
        self._writes: Counter[str] = Counter()

    def writes(self, course_id: str) -> int:
        """How often this process has written to or deleted from the course's chunks."""
        return self._writes[course_id] + self._writes[""]

    async def ensure(self) -> None:
        """Create the collection and its payload indexes if they do not exist yet; with an
        `embedder_id`, check that every course in it was embedded by that embedder."""
        if await self.client.collection_exists(self.collection):
            await self._check_dimensions()
            if self.embedder_id is not None:
                await self._check_embedder(self.embedder_id)
            return
        vectors = {
            f.DENSE: models.VectorParams(size=self.dimensions, distance=models.Distance.COSINE)
        }
        if self.units:
            vectors[f.UNITS] = models.VectorParams(
                size=self.dimensions,
                distance=models.Distance.COSINE,
                multivector_config=models.MultiVectorConfig(
                    comparator=models.MultiVectorComparator.MAX_SIM
                ),
            )
        await self.client.create_collection(
            self.collection,
            vectors_config=vectors,
            sparse_vectors_config={
                f.SPARSE: models.SparseVectorParams(modifier=models.Modifier.IDF)
            },
        )
        for name in f.KEYWORD_INDEXES if self.payload_indexes else ():
            await self.client.create_payload_index(
                self.collection, name, field_schema=models.PayloadSchemaType.KEYWORD
            )

    async def _check_dimensions(self) -> None:
        info = await self.client.get_collection(self.collection)
        vectors = info.config.params.vectors
        size = vectors[f.DENSE].size if isinstance(vectors, dict) else None
        if self.units and not (isinstance(vectors, dict) and f.UNITS in vectors):
            log.info(
                "the collection was created without unit vectors: chunks are searched by "
                "their pooled vectors (ingest into a new collection for unit search)",
                collection=self.collection,
            )
            self.units = False
        if size != self.dimensions:
            raise IndexMismatchError(
                f"the Qdrant collection '{self.collection}' holds {size}-dimension vectors but "
                f"the configured embedder makes {self.dimensions}: set another "
                "COURSEBOT_QDRANT_COLLECTION (and ingest again) or switch the embedder back"
            )

    async def embedders(self) -> dict[str, str]:
        """Course id -> identity of the embedder that wrote its vectors (UNRECORDED for
        courses indexed before the index recorded it)."""
        info = await self.client.get_collection(self.collection)
        metadata = getattr(info.config, "metadata", None) or {}
        recorded = {
            key.removeprefix(EMBEDDER_KEY): str(value)
            for key, value in metadata.items()
            if key.startswith(EMBEDDER_KEY)
        }
        if not recorded:
            recorded = dict.fromkeys(await self._course_ids(), UNRECORDED)
        return recorded

    async def record_embedder(self, course_id: str, identity: str) -> None:
        """Note that `identity` wrote (or is about to write) the course's dense vectors."""
        await self.client.update_collection(
            self.collection, metadata={EMBEDDER_KEY + course_id: identity}
        )
        self._recorded[course_id] = identity

    async def _check_embedder(self, identity: str) -> None:
        self._recorded = await self.embedders()
        stale = sorted(course for course, who in self._recorded.items() if who != identity)
        if not stale:
            return
        writers = sorted({self._recorded[course] for course in stale})
        if len(stale) > _NAMED_COURSES:
            courses = f"{len(stale)} courses ({', '.join(stale[:3])}, ...)"
            command = "coursebot reindex --all"
        else:
            courses = ", ".join(f"'{course}'" for course in stale)
            command = "coursebot reindex " + " ".join(f"--course {c}" for c in stale)
        raise IndexMismatchError(
            f"the Qdrant collection '{self.collection}' holds {courses} embedded by "
            f"{' and '.join(writers)}, not by the configured {identity}: run `{command}` "
            "(the stored text is embedded again; no files are read) or switch the embedder back"
        )

    async def _course_ids(self) -> set[str]:
        courses: set[str] = set()
        offset: Any = None
        while True:
            points, offset = await self.client.scroll(
                self.collection,
                limit=1024,
                offset=offset,
                with_payload=models.PayloadSelectorInclude(include=[f.COURSE_ID]),
            )
            courses.update(str((p.payload or {}).get(f.COURSE_ID)) for p in points)
            if offset is None:
                return courses

    async def stored_chunks(
        self, course_id: str, batch: int = 256
    ) -> AsyncIterator[list[StoredChunk]]:
        """Every chunk of a course, private ones included, in batches (for reindexing)."""
        offset: Any = None
        while True:
            points, offset = await self.client.scroll(
                self.collection,
                scroll_filter=course_filter(course_id),
                limit=batch,
                offset=offset,
                with_payload=True,
                with_vectors=[f.SPARSE],
            )
            if points:
                yield [_stored(point) for point in points]
            if offset is None:
                return

    async def replace_dense(
        self,
        chunks: Sequence[StoredChunk],
        vectors: Sequence[Any] | np.ndarray,
        units: Sequence[np.ndarray] = (),
    ) -> None:
        """Write `chunks` back with new dense vectors (and unit vectors, where the index keeps
        them), payload and sparse vector unchanged."""
        points = []
        for number, (chunk, dense) in enumerate(zip(chunks, vectors, strict=True)):
            vector: dict[str, Any] = {f.DENSE: [float(x) for x in dense]}
            if self.units and units:
                vector[f.UNITS] = units[number].tolist()
            if chunk.sparse is not None:
                vector[f.SPARSE] = chunk.sparse
            points.append(models.PointStruct(id=chunk.id, vector=vector, payload=chunk.payload))
        await self.upsert(points)

    async def count(self, ctx: Context) -> int:
        """Chunks this user may see in the context's course."""
        result = await self.client.count(self.collection, count_filter=tenant_filter(ctx))
        return result.count

    async def search(
        self,
        ctx: Context,
        dense: Sequence[float],
        sparse: SparseVector,
        limit: int,
        mode: SearchMode = SearchMode.RRF,
        candidates: int = 50,
        with_vectors: bool = False,
        documents: Sequence[str] = (),
        content: ContentKind | None = None,
    ) -> list[SearchHit]:
        """Tenant-scoped search; hybrid modes fuse server-side with the filter in each prefetch.
        `with_vectors` returns each hit's stored dense vector too (for rescoring); `documents`
        keeps the search within those document ids; `content` to teaching or logistics
        chunks (and those stored before chunks were classified: `core.index.content`)."""
        within: list[models.Condition] = []
        if documents:
            within.append(
                models.FieldCondition(key=f.DOCUMENT_ID, match=models.MatchAny(any=list(documents)))
            )
        if content is not None:
            within.append(content_scope(content))
        scope = tenant_filter(ctx, *within)
        sparse_query = models.SparseVector(indices=sparse.indices, values=sparse.values)
        # With unit vectors, a chunk's dense score is its best unit's (MaxSim of one vector).
        dense_stage = self._dense_stage(dense, scope, candidates)
        if mode is SearchMode.DENSE:
            kwargs: dict[str, Any] = {
                "prefetch": dense_stage.prefetch,
                "query": dense_stage.query,
                "using": dense_stage.using,
            }
        elif mode is SearchMode.SPARSE:
            kwargs = {"query": sparse_query, "using": f.SPARSE}
        else:
            fusion = models.Fusion.RRF if mode is SearchMode.RRF else models.Fusion.DBSF
            kwargs = {
                "prefetch": [
                    dense_stage,
                    models.Prefetch(
                        query=sparse_query, using=f.SPARSE, filter=scope, limit=candidates
                    ),
                ],
                "query": models.FusionQuery(fusion=fusion),
            }
        response = await self.client.query_points(
            self.collection,
            query_filter=scope,
            limit=limit,
            with_payload=True,
            with_vectors=[f.DENSE] if with_vectors else False,
            **kwargs,
        )
        return [
            SearchHit(
                ChunkRecord.from_payload(p.id, p.payload or {}),
                p.score,
                _dense_of(p.vector) if with_vectors else None,
            )
            for p in response.points
        ]

    def _dense_stage(
        self, dense: Sequence[float], scope: models.Filter, candidates: int
    ) -> models.Prefetch:
        """The dense side of a search: the chunk vectors' nearest, or with unit vectors, the
        UNIT_POOL nearest chunk vectors rescored by their best unit (MaxSim over every unit
        of a large course would cost ~6x the search time; the pool ranks the same on
        syllabusqa-dev and fpt-bit-ai)."""
        if not self.units:
            return models.Prefetch(query=list(dense), using=f.DENSE, filter=scope, limit=candidates)
        pool = models.Prefetch(
            query=list(dense), using=f.DENSE, filter=scope, limit=max(UNIT_POOL, candidates)
        )
        return models.Prefetch(prefetch=pool, query=[list(dense)], using=f.UNITS, limit=candidates)

    async def unit_vectors(
        self, ctx: Context, ids: Sequence[str]
    ) -> dict[str, tuple[list[str], np.ndarray]]:
        """Point id -> its units' texts and vectors (in the same order), for the given points
        the user may see; empty without unit vectors."""
        if not self.units or not ids:
            return {}
        points, _ = await self.client.scroll(
            self.collection,
            scroll_filter=tenant_filter(ctx, models.HasIdCondition(has_id=list(ids))),
            limit=len(ids),
            with_payload=models.PayloadSelectorInclude(include=[f.EMBED_TEXT]),
            with_vectors=[f.UNITS],
        )
        found = {}
        for point in points:
            vectors = point.vector.get(f.UNITS) if isinstance(point.vector, dict) else None
            text = (point.payload or {}).get(f.EMBED_TEXT)
            if not isinstance(vectors, list) or not text:
                continue
            # pool_units gives the vectors of the first spans, in order (a unit-less text: one).
            texts = [text[start:end] for start, end in unit_spans(text)][: len(vectors)]
            found[str(point.id)] = (texts, np.asarray(vectors, dtype=np.float32)[: len(texts)])
        return found

    async def document_identities(self, course_id: str) -> dict[str, DocumentIdentity]:
        """document id -> identity of the course's public documents (read from each
        document's first chunk)."""
        first = models.FieldCondition(key=f.CHUNK_INDEX, match=models.MatchValue(value=0))
        identities: dict[str, DocumentIdentity] = {}
        offset: Any = None
        while True:
            points, offset = await self.client.scroll(
                self.collection,
                scroll_filter=maintenance_scope(course_id, None, first),
                limit=512,
                offset=offset,
                with_payload=models.PayloadSelectorInclude(
                    include=[f.DOCUMENT_ID, *DocumentIdentity.FIELDS]
                ),
            )
            for point in points:
                payload = point.payload or {}
                identities[payload[f.DOCUMENT_ID]] = DocumentIdentity.from_payload(payload)
            if offset is None:
                return identities

    async def documents(self, ctx: Context) -> list[DocumentSummary]:
        """The documents this user may see in the context's course, with chunk counts."""
        return await self._documents(tenant_filter(ctx))

    async def documents_in_course(
        self, course_id: str, owner_id: str | None = None
    ) -> list[DocumentSummary]:
        """For maintenance: the course's public documents, or one owner's private ones."""
        return await self._documents(maintenance_scope(course_id, owner_id))

    async def notes_of(self, owner_id: str) -> list[DocumentSummary]:
        """One student's private documents in every course (their notes quota counts them)."""
        return await self._documents(owner_scope(owner_id))

    async def _documents(self, scope: models.Filter) -> list[DocumentSummary]:
        counts: dict[str, int] = defaultdict(int)
        first: dict[str, dict[str, Any]] = {}
        offset: Any = None
        keep = list(DocumentSummary.FIELDS)
        while True:
            points, offset = await self.client.scroll(
                self.collection,
                scroll_filter=scope,
                limit=512,
                offset=offset,
                with_payload=models.PayloadSelectorInclude(include=keep),
            )
            for point in points:
                payload = point.payload or {}
                doc = payload[f.DOCUMENT_ID]
                counts[doc] += 1
                first.setdefault(doc, payload)
            if offset is None:
                break
        return sorted(
            (DocumentSummary.from_payload(first[doc], counts[doc]) for doc in counts),
            key=lambda d: d.file_name.lower(),
        )

    async def upsert(self, points: list[models.PointStruct]) -> None:
        if not points:
            return
        courses = {str((p.payload or {}).get(f.COURSE_ID)) for p in points}
        if self.embedder_id is not None:
            # Recorded before the vectors are written: a crash in between leaves a record that
            # matches whatever was written.
            for course in sorted(courses):
                if self._recorded.get(course) != self.embedder_id:
                    await self.record_embedder(course, self.embedder_id)
        await self.client.upsert(self.collection, points=points, wait=True)
        self._writes.update(courses)

    async def delete_document(
        self, course_id: str, document_id: str, keep_generation: str | None = None
    ) -> None:
        """Remove a document's chunks, except those of `keep_generation` (the new version)."""
        match_doc = models.FieldCondition(
            key=f.DOCUMENT_ID, match=models.MatchValue(value=document_id)
        )
        selector = course_filter(course_id, match_doc)
        if keep_generation is not None:
            selector.must_not = [
                models.FieldCondition(
                    key=f.GENERATION, match=models.MatchValue(value=keep_generation)
                )
            ]
        await self.client.delete(
            self.collection, points_selector=models.FilterSelector(filter=selector), wait=True
        )
        self._writes[course_id] += 1

    async def delete_points(self, ids: list[str]) -> None:
        if ids:
            selected: list[models.ExtendedPointId] = list(ids)
            await self.client.delete(
                self.collection, points_selector=models.PointIdsList(points=selected), wait=True
            )
            self._writes[""] += 1

    async def document_hash(self, course_id: str, document_id: str) -> str | None:
        """The file hash stored with a document's chunks, or None if it is not indexed or
        its chunks were written only in part (a process killed mid-write: ingesting the file
        again replaces them). A complete generation's older siblings, left by a process
        killed between writing it and deleting them, are deleted here."""
        match_doc = models.FieldCondition(
            key=f.DOCUMENT_ID, match=models.MatchValue(value=document_id)
        )
        points, _ = await self.client.scroll(
            self.collection,
            scroll_filter=course_filter(course_id, match_doc),
            limit=1,
            with_payload=models.PayloadSelectorInclude(
                include=[f.FILE_HASH, f.GENERATION, f.CHUNK_COUNT]
            ),
        )
        if not points:
            return None
        payload = points[0].payload or {}
        expected = payload.get(f.CHUNK_COUNT)
        generation = payload.get(f.GENERATION)
        if not expected or generation is None:  # written before counts were kept
            return payload.get(f.FILE_HASH)
        match_generation = models.FieldCondition(
            key=f.GENERATION, match=models.MatchValue(value=generation)
        )
        stored = await self.client.count(
            self.collection,
            count_filter=course_filter(course_id, match_doc, match_generation),
            exact=True,
        )
        if stored.count < expected:
            return None
        everything = await self.client.count(
            self.collection, count_filter=course_filter(course_id, match_doc), exact=True
        )
        if everything.count > stored.count:
            await self.delete_document(course_id, document_id, keep_generation=generation)
        return payload.get(f.FILE_HASH)

    async def exercise_sources(
        self, ctx: Context, exercise_id: str | None = None
    ) -> dict[str, str]:
        """Guided-exercise definitions this user may see (only `exercise_id`, if given):
        exercise id -> file source."""
        conditions: list[models.Condition] = [
            models.FieldCondition(key=f.KIND, match=models.MatchValue(value=GUIDED_EXERCISE_KIND))
        ]
        if exercise_id is not None:
            conditions.append(
                models.FieldCondition(key=f.EXERCISE_ID, match=models.MatchValue(value=exercise_id))
            )
        sources: dict[str, str] = {}
        offset: Any = None
        while True:
            points, offset = await self.client.scroll(
                self.collection,
                scroll_filter=tenant_filter(ctx, *conditions),
                limit=256,
                offset=offset,
                with_payload=models.PayloadSelectorInclude(
                    include=[f.EXERCISE_ID, f.EXERCISE_SOURCE]
                ),
            )
            for point in points:
                payload = point.payload or {}
                sources.setdefault(payload[f.EXERCISE_ID], payload[f.EXERCISE_SOURCE])
            if offset is None:
                return sources

    async def reachable(self) -> bool:
        """Whether the index answers and holds its collection (the readiness probe)."""
        return await self.client.collection_exists(self.collection)

    async def close(self) -> None:
        await self.client.close()
