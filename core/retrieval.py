"""Tenant-scoped hybrid retrieval: embed the question, search dense and sparse, fuse."""

from __future__ import annotations

from core.context import Context
from core.embedding.embedder import Embedder
from core.index import ChunkIndex, SearchHit, SearchMode, SparseEncoder


class Retriever:
    def __init__(
        self,
        index: ChunkIndex,
        embedder: Embedder,
        sparse: SparseEncoder,
        mode: SearchMode = SearchMode.RRF,
    ) -> None:
        self.index = index
        self.embedder = embedder
        self.sparse = sparse
        self.mode = mode

    async def retrieve(self, ctx: Context, question: str, k: int = 5) -> list[SearchHit]:
        dense = (await self.embedder.embed([question]))[0]
        return await self.index.search(
            ctx, dense.tolist(), self.sparse.encode_query(question), limit=k, mode=self.mode
        )
