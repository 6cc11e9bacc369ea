"""Tenant-scoped hybrid retrieval: embed the question, fetch dense and sparse candidates in
Qdrant (the tenant filter inside each prefetch), fuse, optionally rerank, keep the top k."""

from __future__ import annotations

from dataclasses import dataclass

from core.context import Context
from core.embedding.embedder import Embedder
from core.index import ChunkIndex, SearchHit, SearchMode, SparseEncoder


@dataclass(frozen=True, slots=True)
class RetrievalConfig:
    mode: SearchMode = SearchMode.RRF
    candidates: int = 40
    rerank: bool = False
    reserve_general: bool = False


# Named variants, compared by `coursebot eval --variant NAME`; DEFAULT_VARIANT is what the
# bot uses (chosen by measurement on the dev questions).
VARIANTS: dict[str, RetrievalConfig] = {
    "dense": RetrievalConfig(mode=SearchMode.DENSE),
    "sparse": RetrievalConfig(mode=SearchMode.SPARSE),
    "rrf": RetrievalConfig(mode=SearchMode.RRF),
    "dbsf": RetrievalConfig(mode=SearchMode.DBSF),
}
DEFAULT_VARIANT = "rrf"


class Retriever:
    def __init__(
        self,
        index: ChunkIndex,
        embedder: Embedder,
        sparse: SparseEncoder,
        config: RetrievalConfig | None = None,
    ) -> None:
        self.index = index
        self.embedder = embedder
        self.sparse = sparse
        self.config = config or VARIANTS[DEFAULT_VARIANT]

    async def retrieve(self, ctx: Context, question: str, k: int = 5) -> list[SearchHit]:
        dense = (await self.embedder.embed([question]))[0]
        return await self.index.search(
            ctx,
            dense.tolist(),
            self.sparse.encode_query(question),
            limit=k,
            mode=self.config.mode,
            candidates=self.config.candidates,
        )
