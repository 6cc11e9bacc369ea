"""Question answering, end to end: exact course facts when the catalog has them, else
follow-up rewriting, tenant-scoped retrieval, the passages packed into the context budget, a
cited answer or an abstention; either way the turn is remembered for the next follow-up."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Protocol

from core.answering.budget import DEFAULT_CONTEXT_CHARS, pack
from core.answering.extractive import ExtractiveAnswerer
from core.context import Context
from core.conversation import ConversationMemory, QuestionRewriter, Turn
from core.index import SearchHit
from core.llm import LlmUnavailableError
from core.metrics import Metrics
from core.replies import Answer
from core.retrieval import Retriever

LLM_FELL_BACK = (
    "The language model did not answer in time, so here are the closest quotes from the "
    "material instead."
)


class Answerer(Protocol):
    async def answer(self, question: str, hits: list[SearchHit]) -> Answer: ...


class FactAnswerer(Protocol):
    """Exact answers from structured facts (`core.catalog.CatalogDesk`); None: not for me."""

    async def answer(
        self, ctx: Context, question: str, earlier: Sequence[str] = ()
    ) -> Answer | None: ...


class QuestionAnswering:
    """`k` passages are retrieved, then packed into `context_chars` characters (None: no
    budget) by `core.answering.budget.pack`; both answerers read only the packed ones."""

    def __init__(
        self,
        *,
        retriever: Retriever,
        answerer: Answerer,
        extractive: ExtractiveAnswerer,
        memory: ConversationMemory,
        rewriter: QuestionRewriter,
        k: int = 5,
        context_chars: int | None = DEFAULT_CONTEXT_CHARS,
        facts: FactAnswerer | None = None,
        metrics: Metrics | None = None,
    ) -> None:
        self.metrics = metrics or Metrics()
        self.retriever = retriever
        self.answerer = answerer
        self.extractive = extractive
        self.memory = memory
        self.rewriter = rewriter
        self.k = k
        self.context_chars = context_chars
        self.facts = facts

    async def ask(self, ctx: Context, question: str) -> Answer:
        # Prerequisites, credits, semesters and "can I take X?" are answered exactly from the
        # catalog's tables, read in the student's own words: the fallback rewrite prefixes a
        # follow-up with the question before it, which would name two courses.
        turns = await self.memory.recent(ctx)
        answer = None
        if self.facts is not None:
            # The earlier questions let "and for DAT301m?" ask what the one before it asked.
            answer = await self.facts.answer(ctx, question, [t.question for t in turns])
        standalone = question
        if answer is None:
            standalone = await self.rewriter.standalone(question, turns)
            answer = await self._from_material(ctx, standalone)
        # A fact answered is remembered too: "what is it about?" after "what does AIL303m
        # require?" is about AIL303m.
        await self.memory.remember(ctx, Turn(question=standalone, answer=answer.text))
        return answer

    async def _from_material(self, ctx: Context, question: str) -> Answer:
        # Unit scores: the extractive answerer (the default, and the LLM's fallback) reads them.
        with self.metrics.stage("retrieve"):
            ranked = await self.retriever.retrieve(ctx, question, k=self.k, unit_scores=True)
        hits = pack(ranked, self.context_chars)
        with self.metrics.stage("answer"):
            try:
                return await self.answerer.answer(question, hits)
            except LlmUnavailableError:
                return replace(await self.extractive.answer(question, hits), note=LLM_FELL_BACK)
