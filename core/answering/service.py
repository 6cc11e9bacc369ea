"""Question answering, end to end: follow-up rewriting, tenant-scoped retrieval, the passages
packed into the context budget, a cited answer or an abstention, and the turn remembered for
the next follow-up."""

from __future__ import annotations

from dataclasses import replace
from typing import Protocol

from core.answering.budget import DEFAULT_CONTEXT_CHARS, pack
from core.answering.extractive import ExtractiveAnswerer
from core.context import Context
from core.conversation import ConversationMemory, QuestionRewriter, Turn
from core.index import SearchHit
from core.llm import LlmUnavailableError
from core.replies import Answer
from core.retrieval import Retriever

LLM_FELL_BACK = (
    "The language model did not answer in time, so here are the closest quotes from the "
    "material instead."
)


class Answerer(Protocol):
    async def answer(self, question: str, hits: list[SearchHit]) -> Answer: ...


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
    ) -> None:
        self.retriever = retriever
        self.answerer = answerer
        self.extractive = extractive
        self.memory = memory
        self.rewriter = rewriter
        self.k = k
        self.context_chars = context_chars

    async def ask(self, ctx: Context, question: str) -> Answer:
        history = await self.memory.recent(ctx)
        standalone = await self.rewriter.standalone(question, history)
        hits = pack(await self.retriever.retrieve(ctx, standalone, k=self.k), self.context_chars)
        try:
            answer = await self.answerer.answer(standalone, hits)
        except LlmUnavailableError:
            answer = replace(await self.extractive.answer(standalone, hits), note=LLM_FELL_BACK)
        await self.memory.remember(ctx, Turn(question=standalone, answer=answer.text))
        return answer
