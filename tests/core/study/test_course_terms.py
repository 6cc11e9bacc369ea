"""More items from the same teaching material, none a teacher would strike: the course's
terms include those it sets in emphasis as names, a cloze's blank is a whole term in a
sentence that stands alone (not a task, a remark on code, or a pointer to a figure), and a
subject whose teaching chunks hold nothing to learn is one the course only lists, for every
kind of set (issue: 3 cards on "dropout", one about code; mind maps of a syllabus's
objectives paragraph)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import pytest

from core.content_kind import ContentKind
from core.context import Context
from core.generation import MaterialStore
from core.index import ChunkRecord, SearchHit
from core.study import StudySets
from core.study.checks import FLASHCARD_COUNT, QUIZ_COUNT
from core.study.extractive import build_flashcards, build_quiz, glossary, teaches
from core.study.facts import FactKind, facts_in, named_terms, plain
from core.study.service import NotTaughtError

Chunk = Callable[..., ChunkRecord]
Hits = Callable[..., list[SearchHit]]

# Made-up notes in the style of a textbook chapter: terms in emphasis, code cells, tasks.
NOTES = [
    "A *sieve filter* keeps the large entries of a signal and drops the rest.",
    "The *smoothing window* slides over the signal from left to right.",
    "We call the result of the filter its *residue map*.",
    "A *Kessler gate* passes a value only when it exceeds the threshold.",
    "In practice, the residue map is much smaller than the signal itself.",
    "A wide smoothing window removes more noise but blurs the edges of the signal.",
    "The sieve filter was proposed long before residue maps were studied.",
]


def test_terms_set_in_emphasis_as_names_join_the_glossary(chunk: Chunk) -> None:
    text = (
        "The *smoothing window* is wide; a *Kessler gate* or an *RSF* decides. We *can* use "
        "it, and you should *inspect the model* *exactly* when it is *very large*."
    )
    assert named_terms(text) == ["smoothing window", "Kessler gate", "RSF"]
    terms = glossary([chunk(text, section="Filters > Windows")])
    assert "smoothing window" in terms and "can" not in terms and "exactly" not in terms


def test_a_sentence_naming_a_term_of_the_wider_pool_is_a_cloze_card(
    chunk: Chunk, hits: Hits
) -> None:
    # The topic's own chunk names "residue map", which only another chapter defines.
    own = chunk("Each pass of the sieve shrinks the residue map by half.", number=1)
    other = chunk("We call the result of the filter its *residue map*.", number=2)
    alone = build_flashcards("sieves", hits(own), FLASHCARD_COUNT, subject=True)
    wider = build_flashcards("sieves", hits(own), FLASHCARD_COUNT, pool=hits(other), subject=True)
    assert not alone.cards
    assert [(c.front, c.back) for c in wider.cards] == [
        ("Complete: “Each pass of the sieve shrinks the ____ by half.”", "residue map")
    ]


@pytest.mark.parametrize(
    "sentence",
    [
        "The layer applies max-residue map pooling to every channel of the input.",  # joined
        "In the lines of code below we pass the residue map to the plotting helper.",  # code
        "The residue map of the example is plotted below for three thresholds.",  # a figure
        "The residue map of a signal is given by the following expression:",  # leans on next
        ":citet:`Kessler.1990` showed that the residue map is always smaller.",  # hole
        "Here we set sieve_size for the residue map (the net.window parameter) only.",  # names
        "w = 0.5 # width of the window, larger = a coarser residue map in the end",  # comment
    ],
)
def test_a_cloze_needs_a_whole_term_in_a_sentence_that_stands_alone(
    chunk: Chunk, sentence: str
) -> None:
    facts = facts_in(chunk(sentence, section="Sieves"), ["residue map"])
    assert [f for f in facts if f.kind is FactKind.CLOZE] == []
    kept = facts_in(
        chunk("Each pass of the sieve shrinks the residue map.", section="Sieves"), ["residue map"]
    )
    assert [f.term for f in kept if f.kind is FactKind.CLOZE] == ["residue map"]


def test_an_exercise_is_a_task_not_a_sentence_to_complete(chunk: Chunk) -> None:
    task = chunk("Implement the residue map with two nested loops.", section="Sieves > Exercises")
    assert [f for f in facts_in(task, ["residue map"]) if f.kind is FactKind.CLOZE] == []


def test_a_bracketed_highlight_reads_as_its_words() -> None:
    assert plain("[**A sieve keeps the large entries**].") == "A sieve keeps the large entries."
    assert plain("we try (*the smoothing window*) next") == "we try the smoothing window next"
    assert plain("Keep (this) and [that].") == "Keep (this) and [that]."


def test_notes_naming_each_others_terms_give_a_full_set(chunk: Chunk, hits: Hits) -> None:
    records = [chunk(text, section="Sieves", number=n) for n, text in enumerate(NOTES)]
    quiz = build_quiz("sieves", hits(*records), QUIZ_COUNT, subject=True)
    cards = build_flashcards("sieves", hits(*records), FLASHCARD_COUNT, subject=True)
    # Four named terms: every question has three wrong options of the same kind (each serves
    # as a wrong one three times at most), and each sentence naming one is a card.
    terms = {"sieve filter", "smoothing window", "residue map", "Kessler gate"}
    assert len(quiz.items) >= 3 and len(cards.cards) == len(NOTES)
    assert all(set(item.options) <= terms for item in quiz.items)


def test_a_section_name_and_its_sentence_teach_nothing(chunk: Chunk, hits: Hits) -> None:
    objectives = chunk(
        "We will consider some of the fundamental questions addressed by astronomy and learn "
        "how the physical sciences can address them.",
        section="Learning Objectives",
    )
    assert not teaches(hits(objectives))
    assert teaches(hits(chunk(NOTES[0], section="Sieves")))


class FixedRetriever:
    def __init__(self, hits: list[SearchHit]) -> None:
        self.hits = hits

    async def retrieve(
        self, ctx: Context, question: str, k: int = 5, content: ContentKind | None = None
    ) -> list[SearchHit]:
        return [h for h in self.hits if content is None or h.chunk.content is content][:k]


async def test_a_listed_subject_whose_teaching_chunk_teaches_nothing_gets_the_line_for_every_set(
    store: MaterialStore, chunk: Chunk, hits: Hits, alice: Context
) -> None:
    schedule = chunk(
        "| Week | Topic |\n| 3 | Planets of the solar system |\n| 4 | Planets and moons |",
        section="Schedule",
        file_name="syllabus.md",
        kind="syllabus",
    )
    # A syllabus's objectives paragraph, read as teaching at ingestion.
    objectives = dataclasses.replace(
        chunk(
            "We will consider questions about planets that astronomy addresses and how the "
            "physical sciences can answer them.",
            section="Learning Objectives",
            file_name="syllabus.md",
            kind="syllabus",
            number=1,
        ),
        content_kind=ContentKind.TEACHING,
    )
    sets = StudySets(FixedRetriever(hits(schedule, objectives)), store)
    for make in (sets.quiz, sets.flashcards, sets.mindmap):
        with pytest.raises(NotTaughtError) as refused:
            await make(alice, "planets")
        assert "lists planets in weeks 3–4 but does not teach it" in str(refused.value)
