"""Tenant-scoped hybrid retrieval: embed the question, fetch dense and sparse candidates in
Qdrant (the tenant filter inside each prefetch), fuse, optionally rerank, keep the top k."""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from core.content_kind import ContentKind
from core.context import Context
from core.documents import DocumentDirectory, Mentions, mentions, without_names
from core.embedding.embedder import Embedder
from core.index import ChunkIndex, SearchHit, SearchMode, SparseEncoder
from core.reranking import EmbeddingReranker, Reranker

# Below this cosine between a topic and a text, the text is not about the topic (an exercise
# for /practice TOPIC, a passage for a lesson, a study set or a generated exercise).
# Measured on the sample course: chunks on the topic score 0.38-0.59, the best chunk for an
# unrelated topic ("photosynthesis") 0.15.
MIN_TOPIC_SIMILARITY = 0.3

# The kind of document that answers course-wide questions (grading, policies, dates).
GENERAL_KIND = "syllabus"
# A question about the programme (semesters, the curriculum) reads the programme document
# among its first passages, or gets its best passage second.
PROGRAMME_WITHIN = 3
# A question naming a document reads this many of its passages first (each named document's
# best, then each one's second, ...): its answer is in its own syllabus, and one passage of
# a long syllabus seldom holds both the table asked about and its neighbours.
NAMED_PASSAGES = 3


@dataclass(frozen=True, slots=True)
class RetrievalConfig:
    """How a question is searched.

    rerank: fetch `candidates` fused hits and let the reranker pick the top k.
    reserve_general: if no general document (the syllabus) made the top k but one is among
    the candidates, the best such hit takes the last slot."""

    mode: SearchMode = SearchMode.RRF
    candidates: int = 40
    rerank: bool = False
    reserve_general: bool = False
    # Steer by the documents a question names (core.documents): their best passages first,
    # superseded versions after the rest, the programme document for programme questions.
    steer: bool = False


# Named variants, compared by `coursebot eval --variant NAME`; DEFAULT_VARIANT is what the
# bot uses, chosen by measurement on syllabusqa-dev (2,272 questions with gold spans; one file
# per course, so every source metric is 1.0 there): span_hit@5 dense 0.790, sparse 0.848,
# rrf 0.872, dbsf 0.870 (rrf and dbsf differ on 54 questions, 30 to 24: a tie), span_hit@1
# rrf 0.554, dbsf 0.611. Rescoring with the bundled MiniLM (the reranker without a
# cross-encoder) lowers span_hit@5 to 0.790, so the +rerank variants need a real model.
VARIANTS: dict[str, RetrievalConfig] = {
    "dense": RetrievalConfig(mode=SearchMode.DENSE),
    "sparse": RetrievalConfig(mode=SearchMode.SPARSE),
    "rrf": RetrievalConfig(mode=SearchMode.RRF),
    "dbsf": RetrievalConfig(mode=SearchMode.DBSF),
    "dbsf+documents": RetrievalConfig(mode=SearchMode.DBSF, steer=True),
    "rrf+general": RetrievalConfig(mode=SearchMode.RRF, reserve_general=True),
    "rrf+rerank": RetrievalConfig(mode=SearchMode.RRF, rerank=True),
    "dbsf+rerank": RetrievalConfig(mode=SearchMode.DBSF, rerank=True),
    "rrf+rerank+general": RetrievalConfig(mode=SearchMode.RRF, rerank=True, reserve_general=True),
    "dbsf+rerank+general": RetrievalConfig(mode=SearchMode.DBSF, rerank=True, reserve_general=True),
}
# Those figures are from chunk vectors alone. With unit vectors (late chunking: the dense
# side scores a chunk by its best sentence or list item), syllabusqa-dev at the default
# 4,000-character budget: dense 0.865 (chunk vectors: 0.796), sparse 0.860, rrf 0.886, the
# default 0.884 (0.871 with chunk vectors).
# dbsf+documents: the same fusion steered by the documents a question names; on fpt-bit-ai
# (64 documents in one course, 27 answerable questions, 4,000-character budget) source_hit@5
# 1.000 and mrr@10 0.873 against dbsf's 0.926 and 0.762; on syllabusqa-dev (one document per
# course) it changes nothing.
DEFAULT_VARIANT = "dbsf+documents"


class Retriever:
    """Searches within the asker's tenant scope (ChunkIndex.search applies `tenant_filter`);
    with `rerank`, `reranker` reorders the candidates (default: the embedding fallback)."""

    def __init__(
        self,
        index: ChunkIndex,
        embedder: Embedder,
        sparse: SparseEncoder,
        config: RetrievalConfig | None = None,
        reranker: Reranker | None = None,
        documents: DocumentDirectory | None = None,
    ) -> None:
        self.index = index
        self.embedder = embedder
        self.sparse = sparse
        self.config = config or VARIANTS[DEFAULT_VARIANT]
        self.reranker: Reranker = reranker or EmbeddingReranker(embedder)
        self.documents = documents or DocumentDirectory(index)

    async def retrieve(
        self,
        ctx: Context,
        question: str,
        k: int = 5,
        unit_scores: bool = False,
        content: ContentKind | None = None,
    ) -> list[SearchHit]:
        """The top k hits; with `unit_scores`, each carries its matched chunk's units scored
        against the question (where the index keeps unit vectors), for the extractive
        answerer; with `content`, only teaching or only logistics chunks (a chunk stored
        before chunks were classified passes: its `chunk.content` says what it is)."""
        hits, dense = await self._ranked(ctx, question, k, content)
        if unit_scores:
            hits = await self._with_unit_scores(ctx, hits, dense)
        return hits

    async def _with_unit_scores(
        self, ctx: Context, hits: list[SearchHit], dense: list[float]
    ) -> list[SearchHit]:
        units = await self.index.unit_vectors(ctx, [hit.chunk.id for hit in hits])
        if not units:
            return hits
        query = np.asarray(dense, dtype=np.float32)
        scored = []
        for hit in hits:
            texts, vectors = units.get(hit.chunk.id, ([], np.zeros((0, len(dense)))))
            similarity = vectors @ query
            ranked = sorted(zip(texts, similarity.tolist(), strict=True), key=lambda u: -u[1])
            scored.append(replace(hit, unit_scores=tuple(ranked)))
        return scored

    async def _ranked(
        self, ctx: Context, question: str, k: int, content: ContentKind | None = None
    ) -> tuple[list[SearchHit], list[float]]:
        config = self.config
        found = Mentions()
        if config.steer:
            found = mentions(question, await self.documents.of(ctx.course_id))
        # More than k only when something reorders them: most questions name no document.
        widen = config.rerank or config.reserve_general or found.steers
        dense = (await self.embedder.embed([question]))[0].tolist()
        sparse = self.sparse.encode_query(question)
        hits = await self.index.search(
            ctx,
            dense,
            sparse,
            limit=max(config.candidates, k) if widen else k,
            mode=config.mode,
            candidates=max(config.candidates, k),
            with_vectors=config.rerank and self.reranker.uses_vectors,
            content=content,
        )
        if config.rerank:
            # Every candidate ranked, so a reserved general hit is the reranker's best one.
            hits = await self.reranker.rerank(question, hits, len(hits))
        if found.steers:
            wanted = [
                *found.named,
                *([found.programme] if found.programme else []),
                *found.groups,
            ]
            best = []
            if wanted:
                # Within the named documents, what is asked of them: their name would find
                # the passage that repeats it (a book titled like the course) first.
                asked = without_names(question, [w for ws in found.named_by.values() for w in ws])
                own_dense, own_sparse = dense, sparse
                if asked != question:
                    own_dense = (await self.embedder.embed([asked]))[0].tolist()
                    own_sparse = self.sparse.encode_query(asked)
                best = await self.index.search(
                    ctx,
                    own_dense,
                    own_sparse,
                    limit=max(config.candidates, NAMED_PASSAGES * len(wanted)),
                    mode=config.mode,
                    candidates=max(config.candidates, k),
                    documents=wanted,
                    content=content,
                )
            hits = steer(hits, best, found)
        if config.reserve_general:
            return reserve_general(hits, k), dense
        return hits[:k], dense


def steer(ranked: list[SearchHit], named: list[SearchHit], found: Mentions) -> list[SearchHit]:
    """`ranked` rearranged by what the question names: the best passages of each document
    named by a code or name first (the best of each, in the order named, then the second of
    each, ...: NAMED_PASSAGES for one document, one fewer for each more; one of a document
    named by its version only), all of their passages marked `named`; then the rest with
    superseded versions after the current ones; a programme question with no programme
    passage in the first PROGRAMME_WITHIN gets the current programme document's best passage
    second, and a question about course groups with no passage of a document listing them
    there gets the best of theirs next."""
    own: dict[str, list[SearchHit]] = {doc: [] for doc in found.named}
    seen: set[str] = set()
    best: dict[str, SearchHit] = {}
    for hit in [*named, *ranked]:
        best.setdefault(hit.chunk.document_id, hit)
        if hit.chunk.document_id in own and hit.chunk.id not in seen:
            seen.add(hit.chunk.id)
            own[hit.chunk.document_id].append(hit)
    # A document named only by its version ("K18-K19") is the one version asked about, its
    # subject is elsewhere in the question: it gets its best passage, as before.
    # The more documents named, the fewer passages each: room stays for what the question
    # asks beyond them (a combo list for "can I pick the combo with Text Mining?").
    deep = max(1, NAMED_PASSAGES + 1 - len(own))
    first = [
        replace(hits[depth], named=True, named_by=found.named_by.get(doc, ()))
        for depth in range(deep)
        for doc, hits in own.items()
        if depth < len(hits) and (depth == 0 or found.named_by.get(doc))
    ]
    taken = {hit.chunk.id for hit in first}
    rest = [
        replace(hit, named=True, named_by=found.named_by.get(hit.chunk.document_id, ()))
        if hit.chunk.document_id in own
        else hit
        for hit in ranked
        if hit.chunk.id not in taken
    ]
    rest.sort(key=lambda hit: hit.chunk.document_id in found.superseded)  # stable
    ordered = first + rest
    programme = best.get(found.programme) if found.programme else None
    if programme is not None and all(
        hit.chunk.document_id != found.programme for hit in ordered[:PROGRAMME_WITHIN]
    ):
        ordered = [hit for hit in ordered if hit.chunk.id != programme.chunk.id]
        ordered.insert(min(1, len(ordered)), programme)
    group_docs = set(found.groups)
    grouped = [hit for hit in named if hit.chunk.document_id in group_docs][:1]
    if grouped and all(
        hit.chunk.document_id not in group_docs for hit in ordered[:PROGRAMME_WITHIN]
    ):
        ordered = [hit for hit in ordered if hit.chunk.id != grouped[0].chunk.id]
        ordered.insert(min(PROGRAMME_WITHIN - 1, len(ordered)), grouped[0])
    return ordered


def reserve_general(ranked: list[SearchHit], k: int) -> list[SearchHit]:
    """The top k of `ranked`; if none is a general document but a later one is, the best
    such hit replaces the last of the k."""
    top = ranked[:k]
    if not top or any(hit.chunk.kind == GENERAL_KIND for hit in top):
        return top
    general = next((hit for hit in ranked[k:] if hit.chunk.kind == GENERAL_KIND), None)
    return top if general is None else [*top[:-1], general]
