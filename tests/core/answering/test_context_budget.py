"""The context budget: passages packed in rank order within the budget, the first that
overflows cut at a sentence end or line break, the top one always kept, and the answer path
reading only what was packed, with the LLM and with the extractive fallback."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.answering import QuestionAnswering, pack, passage_chars
from core.answering.budget import MIN_CUT, truncate
from core.context import Context
from core.conversation import ConversationMemory, QuestionRewriter
from core.index import SearchHit
from core.index.payload import ChunkRecord
from core.llm import LlmTimeoutError
from core.replies import Answer
from core.sessions.memory_store import MemorySessionStore


def hit(name: str, size: int, text: str | None = None) -> SearchHit:
    """A passage of `size` characters (or of `text`)."""
    body = "x" * size if text is None else text
    chunk = ChunkRecord(
        id=name,
        course_id="c",
        document_id=f"c/{name}.md",
        file_name=f"{name}.md",
        text=body,
        page=None,
        section="",
        kind="syllabus",
        visibility="public",
        owner_id=None,
        chunk_index=0,
    )
    return SearchHit(chunk=chunk, score=1.0)


def sentences(name: str, count: int) -> SearchHit:
    """A passage of `count` numbered sentences of 50 characters each (with their spaces)."""
    return hit(
        name, 0, " ".join(f"Sentence {n:03d} of the passage says something." for n in range(count))
    )


def names(hits: list[SearchHit]) -> list[str]:
    return [h.chunk.id for h in hits]


def test_without_a_budget_every_passage_is_read_whole() -> None:
    ranked = [hit("a", 3000), hit("b", 3000), hit("c", 3000)]
    assert pack(ranked, None) == ranked


def test_passages_are_kept_whole_in_rank_order_while_they_fit() -> None:
    ranked = [hit("a", 1500), hit("b", 1500), hit("c", 1000), hit("d", 1)]
    packed = pack(ranked, 4000)
    assert packed == ranked[:3]
    assert passage_chars(packed) == 4000


def test_the_first_passage_that_overflows_is_cut_at_a_sentence_end_and_packing_stops() -> None:
    ranked = [hit("a", 2000), sentences("b", 60), hit("c", 100)]
    packed = pack(ranked, 4000)
    assert names(packed) == ["a", "b"]  # c would fit after the cut, but rank order comes first
    assert packed[0] == ranked[0]
    cut = packed[1].chunk.text
    assert ranked[1].chunk.text.startswith(cut) and cut.endswith("something.")
    assert 2000 - 50 < len(cut) <= 2000
    assert passage_chars(packed) <= 4000


def test_a_cut_head_too_short_to_say_much_is_left_out() -> None:
    ranked = [hit("a", 4000 - MIN_CUT + 10), sentences("b", 60)]
    assert names(pack(ranked, 4000)) == ["a"]


@pytest.mark.parametrize("budget", [1, 37, 500, 3999, 4000])
def test_the_budget_is_never_exceeded_and_the_top_passage_always_kept(budget: int) -> None:
    ranked = [sentences("top", 100), hit("b", 800), hit("c", 300)]  # top: 4,999 characters
    packed = pack(ranked, budget)
    assert packed[0].chunk.id == "top"
    assert passage_chars(packed) <= budget
    assert [h.chunk.id for h in packed] == ["top"]  # the cut top passage ends the packing


def test_a_top_passage_over_the_budget_is_cut_at_the_last_sentence_end_that_fits() -> None:
    text = "The final exam is on 14 December. It is in Hall A. Bring a photo ID with you."
    [cut] = pack([hit("top", 0, text)], 55)
    assert cut.chunk.text == "The final exam is on 14 December. It is in Hall A."
    assert cut.chunk.file_name == "top.md"  # still cited as the same passage


def test_a_cut_falls_at_a_line_break_so_table_rows_stay_whole() -> None:
    table = "| Item | Weight |\n| Homework | 30% |\n| Final exam | 40% |"
    assert truncate(table, 40) == "| Item | Weight |\n| Homework | 30% |"


def test_a_first_sentence_longer_than_the_budget_is_cut_at_a_word_boundary() -> None:
    assert truncate("Grading is based on homework and exams", 20) == "Grading is based on"
    assert truncate("Supercalifragilistic", 5) == "Super"


def test_nothing_retrieved_packs_to_nothing_and_a_budget_must_be_positive() -> None:
    assert pack([], 4000) == []
    with pytest.raises(ValueError, match="at least one character"):
        pack([hit("a", 10)], 0)


class StubRetriever:
    def __init__(self, hits: list[SearchHit]) -> None:
        self.hits = hits
        self.asked_k: int | None = None

    async def retrieve(
        self, ctx: Context, question: str, k: int = 5, unit_scores: bool = False
    ) -> list[SearchHit]:
        self.asked_k = k
        return self.hits[:k]


class RecordingAnswerer:
    def __init__(self, fails: bool = False) -> None:
        self.fails = fails
        self.read: list[SearchHit] | None = None

    async def answer(self, question: str, hits: list[SearchHit]) -> Answer:
        self.read = hits
        if self.fails:
            raise LlmTimeoutError("the model did not answer in time")
        return Answer(text="an answer [1]")


RANKED = [hit("a", 2500), hit("b", 1000), sentences("c", 40), hit("d", 600), hit("e", 400)]


def answering(answerer: RecordingAnswerer, extractive: RecordingAnswerer, **budget: int | None):
    return QuestionAnswering(
        retriever=StubRetriever(RANKED),  # type: ignore[arg-type]
        answerer=answerer,
        extractive=extractive,  # type: ignore[arg-type]
        memory=ConversationMemory(MemorySessionStore(), "test"),
        rewriter=QuestionRewriter(),
        k=5,
        **budget,  # type: ignore[arg-type]
    )


async def test_the_answer_path_reads_the_top_k_packed_into_4000_characters_by_default() -> None:
    llm, extractive = RecordingAnswerer(), RecordingAnswerer()
    await answering(llm, extractive).ask(Context("test", "c", "u"), "When is the exam?")
    assert llm.read is not None and names(llm.read) == ["a", "b", "c"]
    assert passage_chars(llm.read) <= 4000 < passage_chars(RANKED[:3])
    assert extractive.read is None


async def test_the_extractive_fallback_reads_the_same_packed_passages() -> None:
    llm, extractive = RecordingAnswerer(fails=True), RecordingAnswerer()
    answer = await answering(llm, extractive, context_chars=3000).ask(
        Context("test", "c", "u"), "When is the exam?"
    )
    assert answer.note  # says the LLM did not answer
    assert extractive.read is not None and extractive.read == llm.read
    assert names(extractive.read) == ["a", "b"]
    assert len(extractive.read[1].chunk.text) == 500  # b cut to the 500 characters left


async def test_no_budget_reads_the_top_k_whole() -> None:
    llm, extractive = RecordingAnswerer(), RecordingAnswerer()
    await answering(llm, extractive, context_chars=None).ask(Context("test", "c", "u"), "Exam?")
    assert llm.read == RANKED


def small_to_big(name: str, before: str, matched: str, after: str) -> SearchHit:
    """A hit whose passage is its matched chunk between its neighbours."""
    found = hit(name, 0, "\n\n".join(part for part in (before, matched, after) if part))
    return SearchHit(chunk=replace(found.chunk, matched=matched), score=1.0)


def test_matched_chunks_come_first_and_the_room_left_grows_them_back_in_rank_order() -> None:
    a = small_to_big("a", "A before. " * 60, "A matched. " * 60, "A after. " * 60)
    b = small_to_big("b", "B before. " * 60, "B matched. " * 60, "B after. " * 60)
    packed = pack([a, b], 1500)
    assert names(packed) == ["a", "b"]  # whole passages would have left b out
    grown_a, matched_b = (h.chunk.text for h in packed)
    assert grown_a.startswith("A matched.") and "A after." in grown_a and "before" not in grown_a
    assert matched_b == b.chunk.matched
    assert passage_chars(packed) <= 1500


def test_a_passage_that_fits_after_the_matched_chunks_is_read_whole() -> None:
    a = small_to_big("a", "Before.", "The final exam is on 14 December.", "It is in Hall A.")
    [whole] = pack([a], 4000)
    assert whole == a


def document_hits(
    name: str, chunks: list[str], page: int | None = None, first: int = 0
) -> list[SearchHit]:
    """The hits of a document's chunks, as ingestion stores them: each chunk (its place
    `first + n`) in a passage with its neighbours, joined by blank lines."""
    found = []
    for n, matched in enumerate(chunks):
        passage = "\n\n".join(chunks[max(n - 1, 0) : n + 2])
        chunk = replace(
            hit(name, 0, passage).chunk,
            id=f"{name}-{first + n}",
            matched=matched,
            page=page,
            chunk_index=first + n,
        )
        found.append(SearchHit(chunk=chunk, score=1.0 - n / 100))
    return found


def test_neighbouring_hits_are_read_once_as_one_passage_in_the_documents_order() -> None:
    # Ranked 1st and 2nd, chunk 2 and chunk 1 of one section: their passages share both.
    parts = ["Grading. Homework counts", "for 20% and the final", "exam for 40%.", "Office."]
    chunks = document_hits("syllabus", parts)
    [passage] = pack([chunks[2], chunks[1]], 4000)
    assert passage.chunk.text == "\n\n".join(parts)  # each chunk once, in order
    assert passage.chunk.id == "syllabus-2"  # cited like the better-ranked hit
    # A fact across the two chunks' boundary is whole in one passage.
    assert "for 20% and the final\n\nexam for 40%." in passage.chunk.text


def test_a_neighbour_packed_already_costs_nothing_so_the_room_goes_further() -> None:
    parts = [f"Chunk {n} says one thing. " * 8 for n in range(6)]  # 208 characters each
    chunks = document_hits("notes", parts)
    other = document_hits("other", ["Another document's chunk. " * 8])
    packed = pack([chunks[2], chunks[3], other[0]], 3 * 208 + 2 + 3 * 208)
    texts = [h.chunk.text for h in packed]
    for part in parts[1:5]:  # chunks 2 and 3, and both their outer neighbours
        assert sum(text.count(part) for text in texts) == 1
    assert names(packed) == ["notes-2", "other-0"]
    assert passage_chars(packed) <= 3 * 208 + 2 + 3 * 208


def test_chunks_on_different_pages_stay_apart_so_each_quote_cites_its_own_page() -> None:
    [end_of_page_3] = document_hits("slides", ["The exam is on"], page=3)
    [top_of_page_4] = document_hits("slides", ["14 December."], page=4, first=1)
    packed = pack([end_of_page_3, top_of_page_4], 4000)
    assert [(h.chunk.page, h.chunk.text) for h in packed] == [
        (3, "The exam is on"),
        (4, "14 December."),
    ]


def test_neighbours_on_one_page_are_one_passage_across_the_headings_on_it() -> None:
    """Each chunk of a PDF page is named by the heading above it; a fact across two of them
    is still read whole, cited like the better-ranked one."""
    first, second = document_hits("syllabus", ["The exam is on", "14 December."], page=3)
    first = replace(first, chunk=replace(first.chunk, section="Exams"))
    second = replace(second, chunk=replace(second.chunk, section="Exams > Dates"))
    [passage] = pack([second, first], 4000)
    assert passage.chunk.text == "The exam is on\n\n14 December."
    assert passage.chunk.section == "Exams > Dates"


def test_a_joined_passage_keeps_the_unit_scores_of_every_hit_in_it() -> None:
    first, second = document_hits("syllabus", ["Homework is 20%.", "The final is 40%."])
    first = replace(first, unit_scores=(("Homework is 20%.", 0.4),))
    second = replace(second, unit_scores=(("The final is 40%.", 0.7),))
    [passage] = pack([first, second], 4000)
    assert passage.unit_scores == (("The final is 40%.", 0.7), ("Homework is 20%.", 0.4))
    assert passage.chunk.matched == "Homework is 20%.\n\nThe final is 40%."


@given(
    sizes=st.lists(st.integers(1, 900), min_size=1, max_size=12),
    ranking=st.randoms(use_true_random=False),
    budget=st.integers(1, 5000),
    pages=st.lists(st.sampled_from([1, 2]), min_size=12, max_size=12),
)
@settings(max_examples=200, deadline=None)
def test_any_ranking_packs_each_chunk_at_most_once_within_the_budget(
    sizes: list[int], ranking: random.Random, budget: int, pages: list[int]
) -> None:
    """Hits of two documents whose chunks are neighbours in any order, pages mixed."""
    chunks = [
        replace(found, chunk=replace(found.chunk, page=pages[n]))
        for n, found in enumerate(
            document_hits("a", [f"<{n}>" + "w" * size for n, size in enumerate(sizes)])
        )
    ] + document_hits("b", ["<b>" + "v" * 300])
    ranking.shuffle(chunks)
    packed = pack(chunks, budget)
    assert passage_chars(packed) <= budget
    text = "\n\n".join(h.chunk.text for h in packed)
    for n in range(len(sizes)):
        assert text.count(f"<{n}>") <= 1
    assert packed and packed[0].chunk.id == chunks[0].chunk.id  # the top hit leads
