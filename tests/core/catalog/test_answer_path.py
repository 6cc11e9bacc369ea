"""The catalog inside the answer path: a plain question the tables answer never reaches
retrieval, and it is remembered, so the follow-up after it is read with it."""

from __future__ import annotations

from support.catalog import student

from core.answering import QuestionAnswering
from core.catalog import CatalogDesk
from core.context import Context
from core.conversation import ConversationMemory, QuestionRewriter
from core.index import SearchHit
from core.replies import Answer
from core.sessions.memory_store import MemorySessionStore


class RecordingRetriever:
    def __init__(self) -> None:
        self.questions: list[str] = []

    async def retrieve(
        self, ctx: Context, question: str, k: int = 5, unit_scores: bool = False
    ) -> list[SearchHit]:
        self.questions.append(question)
        return []


class EchoAnswerer:
    async def answer(self, question: str, hits: list[SearchHit]) -> Answer:
        return Answer(text=f"from the material: {question}")


def answering(desk: CatalogDesk, retriever: RecordingRetriever) -> QuestionAnswering:
    return QuestionAnswering(
        retriever=retriever,  # type: ignore[arg-type]
        answerer=EchoAnswerer(),
        extractive=EchoAnswerer(),  # type: ignore[arg-type]
        memory=ConversationMemory(MemorySessionStore(), "test"),
        rewriter=QuestionRewriter(),
        facts=desk,
    )


async def test_a_fact_is_answered_from_the_catalog_and_its_follow_up_is_read_with_it(
    desk: CatalogDesk,
) -> None:
    retriever = RecordingRetriever()
    path = answering(desk, retriever)

    fact = await path.ask(student(), "What are the prerequisites of CPV301?")
    assert "CPV301 (Computer Vision): PFP191, CSD203" in fact.text and fact.citations
    assert retriever.questions == []  # the tables answered: no retrieval

    await path.ask(student(), "what is it about?")
    assert retriever.questions == ["What are the prerequisites of CPV301? what is it about?"]


async def test_the_catalog_reads_the_students_own_words_not_the_rewrite(
    desk: CatalogDesk,
) -> None:
    retriever = RecordingRetriever()
    path = answering(desk, retriever)
    await path.ask(student(), "What are the prerequisites of CPV301?")

    # A short follow-up: prefixed with the question before it, it would name two courses and
    # read as "how does CPV301 lead to DAT301m?".
    answer = await path.ask(student(), "credits of DAT301m?")
    assert answer.text.startswith("DAT301m (AI Development with TensorFlow)\nCredits: 3 [1]")
    assert "CPV301" not in answer.text
    assert retriever.questions == []


async def test_without_a_catalog_every_question_goes_to_retrieval(desk: CatalogDesk) -> None:
    retriever = RecordingRetriever()
    path = answering(desk, retriever)
    path.facts = None
    answer = await path.ask(student(), "What are the prerequisites of CPV301?")
    assert answer.text == "from the material: What are the prerequisites of CPV301?"


async def test_an_elided_follow_up_asks_what_the_question_before_it_asked(
    desk: CatalogDesk,
) -> None:
    retriever = RecordingRetriever()
    path = answering(desk, retriever)
    first = await path.ask(student(), "What are the prerequisites of CPV301?")
    second = await path.ask(student(), "and for DAT301m?")
    third = await path.ask(student(), "what about CPV301?")
    assert retriever.questions == []  # every one answered by the tables
    assert second.text.startswith("DAT301m (AI Development with TensorFlow): CPV301, DPL302m [1]")
    assert "The whole chain:" in second.text and second.citations
    assert third.text == first.text  # the chain carries the asked words, not the course
    # Short, but it names no course: the material's.
    await path.ask(student(), "thanks!")
    assert len(retriever.questions) == 1


async def test_an_elided_follow_up_of_a_question_for_the_material_stays_with_the_material(
    desk: CatalogDesk,
) -> None:
    retriever = RecordingRetriever()
    path = answering(desk, retriever)
    await path.ask(student(), "What are the prerequisites of CPV301?")
    await path.ask(student(), "When is the final exam?")  # the material's, not the catalog's
    await path.ask(student(), "and for DAT301m?")
    assert len(retriever.questions) == 2
    assert retriever.questions[1].endswith("and for DAT301m?")
