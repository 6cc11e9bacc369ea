"""Retrieval variants on a handful of passages with the real bundled embedder."""

from __future__ import annotations

import pytest
from qdrant_client import models
from support.material import Passage, add_passages

from core.context import Context
from core.embedding.minilm_onnx import MiniLMOnnxEmbedder
from core.index import ChunkIndex, ChunkRecord, SearchHit, SearchMode, SparseEncoder
from core.index import fields as f
from core.retrieval import VARIANTS, RetrievalConfig, Retriever, reserve_general

CTX = Context(platform="test", course_id="sample", user_id="student-1")

PASSAGES = [
    Passage("The final exam is worth 40% of the course grade and is held in week 15."),
    Passage("Office hours are on Tuesdays from 2 to 4 pm in room 210 of the science building."),
    Passage("Late homework loses ten percent of its points for every day it is late."),
    Passage("The lab sessions use Python 3 and Jupyter notebooks on the department servers."),
    Passage("Attendance is taken at the start of every lecture with a short clicker quiz."),
]


async def _set_kind(index: ChunkIndex, file_name: str, kind: str) -> None:
    selector = models.Filter(
        must=[models.FieldCondition(key=f.FILE_NAME, match=models.MatchValue(value=file_name))]
    )
    await index.client.set_payload(index.collection, {f.KIND: kind}, points=selector, wait=True)


@pytest.mark.parametrize("variant", sorted(VARIANTS))
async def test_each_variant_ranks_the_obviously_right_passage_first(
    variant: str, index: ChunkIndex, embedder: MiniLMOnnxEmbedder
) -> None:
    await add_passages(index, embedder, PASSAGES)
    retriever = Retriever(index, embedder, SparseEncoder(), VARIANTS[variant])

    hits = await retriever.retrieve(CTX, "When are the office hours?", k=3)

    assert 1 <= len(hits) <= 3  # keyword search alone returns only passages sharing a term
    assert hits[0].chunk.text.startswith("Office hours")


async def test_rerank_scores_every_candidate_and_keeps_k(
    index: ChunkIndex, embedder: MiniLMOnnxEmbedder
) -> None:
    await add_passages(index, embedder, PASSAGES)

    class Recording:
        uses_vectors = False

        def __init__(self) -> None:
            self.seen: list[SearchHit] = []

        async def rerank(self, question: str, hits: list[SearchHit], k: int) -> list[SearchHit]:
            self.seen = hits
            return list(reversed(hits))[:k]

    reranker = Recording()
    config = RetrievalConfig(mode=SearchMode.RRF, candidates=4, rerank=True)
    retriever = Retriever(index, embedder, SparseEncoder(), config, reranker=reranker)

    hits = await retriever.retrieve(CTX, "How is the final exam weighted?", k=2)

    assert len(reranker.seen) == 4
    assert hits == list(reversed(reranker.seen))[:2]


async def test_embedding_rerank_truncates_to_k_with_cosine_scores(
    index: ChunkIndex, embedder: MiniLMOnnxEmbedder
) -> None:
    await add_passages(index, embedder, PASSAGES)
    retriever = Retriever(index, embedder, SparseEncoder(), VARIANTS["dbsf+rerank"])

    hits = await retriever.retrieve(CTX, "What happens if I hand in homework late?", k=2)

    assert len(hits) == 2
    assert hits[0].chunk.text.startswith("Late homework")
    assert hits[0].score >= hits[1].score
    assert all(-1.0 <= hit.score <= 1.0 for hit in hits)


@pytest.mark.parametrize("variant", ["rrf+general", "dbsf+rerank+general"])
async def test_reserve_general_puts_the_best_syllabus_chunk_in_the_last_slot(
    variant: str, index: ChunkIndex, embedder: MiniLMOnnxEmbedder
) -> None:
    await add_passages(
        index,
        embedder,
        [
            Passage("Recursion: a function that calls itself on a smaller input.", "w3.pdf"),
            Passage("Recursive functions need a base case to stop calling themselves.", "w4.pdf"),
            Passage("Tail recursion can be turned into a loop by the compiler.", "w5.pdf"),
            Passage("Grading: weekly problem sets on recursion count for 30%.", "syllabus.pdf"),
            Passage("Plagiarism is reported to the dean of students.", "rules-syllabus.pdf"),
        ],
    )
    for name in ("w3.pdf", "w4.pdf", "w5.pdf"):
        await _set_kind(index, name, "slides")
    plain = VARIANTS[variant.removesuffix("+general")]
    question = "What is a recursive function and why does it need a base case?"
    without = await Retriever(index, embedder, SparseEncoder(), plain).retrieve(CTX, question, 2)
    assert [hit.chunk.kind for hit in without] == ["slides", "slides"]

    hits = await Retriever(index, embedder, SparseEncoder(), VARIANTS[variant]).retrieve(
        CTX, question, k=2
    )

    # The same chunk first (its rescoring score may differ in the last digits: the int8
    # model quantises activations per batch, and the two variants rescore different batches).
    assert hits[0].chunk == without[0].chunk
    assert hits[1].chunk.kind == "syllabus"
    assert hits[1].chunk.file_name == "syllabus.pdf"  # the better of the two syllabus chunks


async def test_reserve_general_changes_nothing_when_a_syllabus_chunk_is_in_the_top_k(
    index: ChunkIndex, embedder: MiniLMOnnxEmbedder
) -> None:
    await add_passages(index, embedder, PASSAGES)
    await _set_kind(index, "syllabus.md", "slides")
    await add_passages(
        index, embedder, [Passage("Office hours move to Zoom during exam week.", "course-info")]
    )
    question = "When are the office hours?"
    plain = Retriever(index, embedder, SparseEncoder(), VARIANTS["dbsf+rerank"])
    reserved = Retriever(index, embedder, SparseEncoder(), VARIANTS["dbsf+rerank+general"])

    without = await plain.retrieve(CTX, question, k=2)
    hits = await reserved.retrieve(CTX, question, k=2)

    assert any(hit.chunk.kind == "syllabus" for hit in without)
    assert hits == without


def _hit(name: str, kind: str, score: float) -> SearchHit:
    record = ChunkRecord(name, "c", name, name, name, None, "", kind, "public", None, 0)
    return SearchHit(record, score)


def test_reserve_general_leaves_the_top_k_alone_when_no_candidate_is_general() -> None:
    ranked = [_hit(str(n), "slides", 1.0 - n / 10) for n in range(5)]

    assert reserve_general(ranked, 3) == ranked[:3]
    assert reserve_general([], 3) == []
