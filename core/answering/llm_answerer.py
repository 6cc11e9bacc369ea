"""Answers written by the LLM from numbered sources, cited, or a plain abstention."""

from __future__ import annotations

from core.answering.citations import resolve_citations
from core.answering.sources import format_sources
from core.index import SearchHit
from core.llm import ChatModel
from core.prompts import ABSTENTION, ANSWER_SYSTEM, ANSWER_USER
from core.replies import Answer


def not_covered() -> Answer:
    return Answer(text=ABSTENTION, grounded=False)


class LlmAnswerer:
    def __init__(self, model: ChatModel) -> None:
        self.model = model

    async def answer(self, question: str, hits: list[SearchHit]) -> Answer:
        if not hits:
            return not_covered()
        reply = await self.model.complete(
            ANSWER_SYSTEM, ANSWER_USER.format(sources=format_sources(hits), question=question)
        )
        if _is_abstention(reply):
            return not_covered()
        cited = resolve_citations(reply, hits)
        if not cited.citations:
            # An answer that cites nothing cannot be checked against the material.
            return not_covered()
        return Answer(text=cited.text, citations=cited.citations, grounded=True)


def _is_abstention(reply: str) -> bool:
    normalised = " ".join(reply.split()).lower()
    return not normalised or ABSTENTION.rstrip(".").lower() in normalised
