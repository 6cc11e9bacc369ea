"""Study sets on a subject are made of teaching material only; a subject the course only
lists (a syllabus's session plan names it, nothing teaches it) gets one honest line; a topic
about the course itself ("grading") gets a set about the course, labelled so, asking about
the grade-weight table (issue: quizzes, cards and maps of real courses were syllabus
trivia)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from core.content_kind import ContentKind
from core.context import Context
from core.generation import MaterialStore
from core.index import ChunkRecord, SearchHit
from core.study import StudySets
from core.study.service import ABOUT_THE_COURSE, NotTaughtError

SESSIONS = (
    "| Session | Topic | Learning-Teaching Type | LO |\n"
    "| 3 | Linked lists | Offline | LO1 |\n"
    "| 4 | Stacks | Offline | LO2 |\n"
    "| 5 | Queues | Offline | LO2 |\n"
    "| 6 | Stacks and queues: applications | Offline | LO2 |\n"
    "| 7 | Stacks and queues lab | Offline | LO3 |"
)
GRADING = (
    "| Component | Weight |\n| Homework | 20% |\n| Quizzes | 10% |\n"
    "| Midterm exam | 30% |\n| Final exam | 40% |"
)
CONTACTS = (
    "Office hours: Tuesday and Thursday, 14:00-15:30, Room B214. Email "
    "ada.moreno@example.edu; the teaching assistant runs the Friday tutorials."
)
TEACHING = [
    "A stack is a collection where the last element pushed is the first popped, so it is called "
    "a *LIFO* structure.",
    "A queue is a collection that removes elements in the order they were added, a *FIFO* "
    "structure.",
    "The *top* of a stack is the element a pop removes; a push places a new element there.",
    "A *circular buffer* is an array whose end wraps around to its start, so a queue can reuse "
    "the slots freed by dequeues.",
    "The *front* of a queue is the element a dequeue removes; an enqueue adds at the *rear*.",
    "A *deque* is a double-ended queue: elements are added and removed at both ends.",
]


class FixedRetriever:
    """The course's chunks for any topic, the kind asked for only (as the index's filter
    does: a chunk's stored kind, here read from its text)."""

    def __init__(self, hits: list[SearchHit]) -> None:
        self.hits = hits

    async def retrieve(
        self, ctx: Context, question: str, k: int = 5, content: ContentKind | None = None
    ) -> list[SearchHit]:
        return [h for h in self.hits if content is None or h.chunk.content is content][:k]


def sets_over(
    store: MaterialStore,
    chunk: Callable[..., ChunkRecord],
    hits: Callable[..., list[SearchHit]],
    texts: list[tuple[str, str, str]],
) -> StudySets:
    records = [
        chunk(text, section=section, file_name=name, number=n)
        for n, (text, section, name) in enumerate(texts)
    ]
    return StudySets(FixedRetriever(hits(*records)), store)


async def test_a_subject_the_syllabus_only_lists_gets_one_honest_line(
    store: MaterialStore, chunk: Callable[..., ChunkRecord], hits: Callable[..., list[SearchHit]],
    alice: Context,
) -> None:  # fmt: skip
    sets = sets_over(
        store,
        chunk,
        hits,
        [(SESSIONS, "Sessions", "CSD203.md"), (GRADING, "Assessment", "CSD203.md")],
    )
    for make in (sets.quiz, sets.flashcards, sets.mindmap):
        with pytest.raises(NotTaughtError) as refused:
            await make(alice, "stacks and queues")
        line = str(refused.value)
        assert "\n" not in line
        assert "lists stacks and queues in sessions 4–7 but does not teach it" in line
        assert "lecture notes" in line and "'course'" in line


async def test_a_subject_set_cites_teaching_chunks_only(
    store: MaterialStore, chunk: Callable[..., ChunkRecord], hits: Callable[..., list[SearchHit]],
    alice: Context,
) -> None:  # fmt: skip
    texts = [(SESSIONS, "Sessions", "syllabus.md"), (CONTACTS, "Course Information", "syllabus.md")]
    texts += [(text, "Stacks and queues", "lecture-04.md") for text in TEACHING]
    sets = sets_over(store, chunk, hits, texts)
    cards = (await sets.flashcards(alice, "stacks and queues")).value
    quiz = (await sets.quiz(alice, "stacks and queues")).value
    assert cards.cards and quiz.items
    cited = {c.source.file for c in cards.cards if c.source} | {
        i.source.file for i in quiz.items if i.source
    }
    assert cited == {"lecture-04.md"}
    assert ABOUT_THE_COURSE not in quiz.reason
    assert all("Session" not in option for item in quiz.items for option in item.options)


async def test_a_quiz_on_grading_asks_about_the_weights_and_says_it_is_about_the_course(
    store: MaterialStore, chunk: Callable[..., ChunkRecord], hits: Callable[..., list[SearchHit]],
    alice: Context,
) -> None:  # fmt: skip
    texts = [
        (CONTACTS, "Course Information", "syllabus.md"),
        (GRADING, "Grading", "syllabus.md"),
        *((text, "Stacks and queues", "lecture-04.md") for text in TEACHING),
    ]
    quiz = (await sets_over(store, chunk, hits, texts).quiz(alice, "grading")).value
    assert ABOUT_THE_COURSE in quiz.reason
    assert quiz.items
    first = quiz.items[0]
    assert "weight" in first.question.lower()
    assert set(first.options) == {"20%", "10%", "30%", "40%"}
