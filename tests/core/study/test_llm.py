"""Model-written sets through the structured-output layer, against the fake Ollama over
HTTP: valid sets pass; broken syntax is repaired; too few items, 3 or 5 options, duplicate
options, an index out of range and "all of the above" are re-asked; items citing no
passage are dropped; a smaller last reply is kept with its reason; the fallback (no
material) is labelled, cites nothing and never feeds the mistake log."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from support.fake_ollama import FakeOllama, scripted

from core.generation import Outcome, Writing
from core.generation.ollama_model import OllamaStructuredModel
from core.index import ChunkRecord, SearchHit
from core.study import feeds_mistake_log
from core.study.checks import CountRange
from core.study.llm import FlashcardsDraft, MindMapDraft, QuizDraft, StudyWriteError, StudyWriter
from core.study.models import NOT_FROM_MATERIAL

WANTED = CountRange(3, 4)


@pytest.fixture
def passages(
    chunk: Callable[..., ChunkRecord], hits: Callable[..., list[SearchHit]]
) -> list[SearchHit]:
    return hits(
        chunk(
            "Power rule: (x^n)' = n x^(n-1).", section="The Power Rule", file_name="l2.pdf", page=3
        ),
        chunk(
            "Product rule: (fg)' = f'g + fg'.",
            section="The Product Rule",
            file_name="l2.pdf",
            page=4,
            number=1,
        ),
    )


@pytest.fixture
def writer(model: OllamaStructuredModel) -> StudyWriter:
    return StudyWriter(Writing(model, timeout_s=20))


def question(n: int, **changes: Any) -> dict[str, Any]:
    item = {
        "question": f"Question {n}: which rule applies here?",
        "options": ["alpha", "bravo", "gamma", "delta"],
        "correct": n % 4,
        "passage": 1 + n % 2,
        "explanation": "Because the slide says so.",
        "skill": "differentiation rules",
    }
    return item | changes


def quiz_reply(*items: dict[str, Any]) -> str:
    return json.dumps({"items": list(items)})


def valid(count: int = 4) -> str:
    return quiz_reply(*(question(n) for n in range(count)))


async def test_a_valid_quiz_is_taken_with_its_citations(
    writer: StudyWriter, fake_ollama: FakeOllama, passages: list[SearchHit]
) -> None:
    fake_ollama.chat_reply = scripted(valid())
    quiz = await writer.quiz("derivatives", passages, WANTED)
    assert len(quiz.items) == 4 and quiz.grounded and quiz.reason == ""
    assert quiz.made_by == "llama3.1:8b"
    first = quiz.items[0]
    # The correct option keeps its text wherever it is moved to.
    assert first.answer == "alpha"
    assert first.source is not None and first.source.file == "l2.pdf" and first.source.page == 3
    assert first.skill == "differentiation-rules"
    [request] = fake_ollama.requests_to("/api/chat")
    assert request["format"] == QuizDraft.model_json_schema()
    user = request["messages"][1]["content"]
    assert "[1] (l2.pdf, p. 3, The Power Rule)" in user and "[2] (l2.pdf, p. 4" in user
    assert writer.writing.stats.count(Outcome.VALID) == 1


async def test_the_correct_option_is_not_left_where_the_model_put_it(
    writer: StudyWriter, fake_ollama: FakeOllama, passages: list[SearchHit]
) -> None:
    items = [question(n, correct=0, question=f"Rule number {n} is which?") for n in range(4)]
    fake_ollama.chat_reply = scripted(quiz_reply(*items))
    quiz = await writer.quiz("derivatives", passages, WANTED)
    assert all(item.answer == "alpha" for item in quiz.items)
    assert {item.correct for item in quiz.items} != {0}


async def test_a_reply_in_a_code_fence_is_repaired(
    writer: StudyWriter, fake_ollama: FakeOllama, passages: list[SearchHit]
) -> None:
    fake_ollama.chat_reply = scripted(f"```json\n{valid()}\n```")
    quiz = await writer.quiz("derivatives", passages, WANTED)
    assert len(quiz.items) == 4
    assert writer.writing.stats.count(Outcome.REPAIRED) == 1


@pytest.mark.parametrize(
    ("broken", "expected"),
    [
        ({"options": ["alpha", "bravo", "gamma"]}, "exactly 4 options are needed, not 3"),
        (
            {"options": ["alpha", "bravo", "gamma", "delta", "omega"]},
            "exactly 4 options are needed, not 5",
        ),
        ({"options": ["alpha", "Alpha.", "gamma", "delta"]}, "options 1 and 2 say the same thing"),
        ({"correct": 4}, "correct must be the 0-based index"),
        ({"options": ["alpha", "bravo", "gamma", "All of the above"]}, "'all/none of the above'"),
    ],
)
async def test_questions_failing_a_check_are_re_asked_with_the_problem(
    writer: StudyWriter,
    fake_ollama: FakeOllama,
    passages: list[SearchHit],
    broken: dict[str, Any],
    expected: str,
) -> None:
    bad = quiz_reply(*(question(n, **broken) for n in range(3)), question(3))
    fake_ollama.chat_reply = scripted(bad, valid())
    quiz = await writer.quiz("derivatives", passages, WANTED)
    assert len(quiz.items) == 4
    _, second = fake_ollama.requests_to("/api/chat")
    reask = second["messages"][-1]["content"]
    assert "items[0]: " in reask and expected in reask
    assert "1 usable questions, at least 3 are needed" in reask
    assert writer.writing.stats.count(Outcome.REASKED) == 1


async def test_too_few_questions_are_re_asked_then_kept_with_a_reason(
    writer: StudyWriter, fake_ollama: FakeOllama, passages: list[SearchHit]
) -> None:
    fake_ollama.chat_reply = scripted(valid(2))
    quiz = await writer.quiz("derivatives", passages, WANTED)
    assert len(quiz.items) == 2
    assert quiz.reason == "only 2 of the questions written on 'derivatives' passed the checks"
    assert len(fake_ollama.requests_to("/api/chat")) == 3  # the first reply and two re-asks


async def test_questions_citing_no_passage_are_dropped(
    writer: StudyWriter, fake_ollama: FakeOllama, passages: list[SearchHit]
) -> None:
    fake_ollama.chat_reply = scripted(
        valid(4)[:-2] + ", " + json.dumps(question(9, passage=7)) + "]}"
    )
    quiz = await writer.quiz("derivatives", passages, WANTED)
    assert len(quiz.items) == 4
    assert all(item.source is not None for item in quiz.items)
    assert "Question 9" not in " ".join(item.question for item in quiz.items)


async def test_nothing_usable_is_an_error(
    writer: StudyWriter, fake_ollama: FakeOllama, passages: list[SearchHit]
) -> None:
    fake_ollama.chat_reply = scripted(quiz_reply(*(question(n, passage=0) for n in range(4))))
    with pytest.raises(StudyWriteError):
        await writer.quiz("derivatives", passages, WANTED)


async def test_the_fallback_is_labelled_cites_nothing_and_feeds_no_mistake_log(
    writer: StudyWriter, fake_ollama: FakeOllama
) -> None:
    fake_ollama.chat_reply = scripted(quiz_reply(*(question(n, passage=0) for n in range(4))))
    quiz = await writer.quiz("photosynthesis", [], WANTED)
    assert not quiz.grounded
    assert quiz.reason.startswith(NOT_FROM_MATERIAL)
    assert all(item.source is None for item in quiz.items)
    assert not feeds_mistake_log(quiz) and not feeds_mistake_log(quiz.items[0])
    [request] = fake_ollama.requests_to("/api/chat")
    assert "general knowledge" in " ".join(request["messages"][0]["content"].split())
    assert "Passages" not in request["messages"][1]["content"]


async def test_flashcards_are_checked_and_cited(
    writer: StudyWriter, fake_ollama: FakeOllama, passages: list[SearchHit]
) -> None:
    cards = [
        {"front": "Power rule", "back": "(x^n)' = n x^(n-1)", "passage": 1, "skill": "power rule"},
        {"front": "Product rule", "back": "(fg)' = f'g + fg'", "passage": 2},
        {"front": "product rule", "back": "again", "passage": 2},  # a repeat: dropped
        {
            "front": "Chain rule: (f(g))' = f'(g) g'",
            "back": "f'(g) g'",
            "passage": 1,
        },  # gives it away
        {"front": "Quotient rule", "back": "(f/g)' = (f'g - fg')/g^2", "passage": 1},
    ]
    fake_ollama.chat_reply = scripted(json.dumps({"cards": cards}))
    made = await writer.flashcards("derivatives", passages, CountRange(3, 5))
    assert [card.front for card in made.cards] == ["Power rule", "Product rule", "Quotient rule"]
    assert made.cards[0].skill == "power-rule"
    assert made.cards[1].source is not None and made.cards[1].source.page == 4
    [request] = fake_ollama.requests_to("/api/chat")
    assert request["format"] == FlashcardsDraft.model_json_schema()


async def test_a_mind_map_keeps_only_cited_branches(
    writer: StudyWriter, fake_ollama: FakeOllama, passages: list[SearchHit]
) -> None:
    branches = [
        {
            "label": "Rules",
            "passage": 1,
            "children": [
                {"label": "Power rule", "passage": 1},
                {"label": "Invented", "passage": 9},
            ],
        },
        {"label": "Nowhere", "passage": 5, "children": []},
    ]
    fake_ollama.chat_reply = scripted(json.dumps({"branches": branches}))
    mindmap = await writer.mindmap("derivatives", passages)
    [rules] = mindmap.root.children
    assert rules.label == "Rules" and [c.label for c in rules.children] == ["Power rule"]
    [request] = fake_ollama.requests_to("/api/chat")
    assert request["format"] == MindMapDraft.model_json_schema()
