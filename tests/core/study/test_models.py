"""Study sets as JSON: the keys the CLI and the store rely on, and a lossless round trip."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from core.study.models import (
    Flashcard,
    FlashcardSet,
    MindMap,
    MindNode,
    Quiz,
    QuizItem,
    Source,
)

SOURCE = Source(
    file="lecture-02.pdf", page=4, section="The Product Rule", chunk_id="c1", document_id="d1"
)
ITEM = QuizItem(
    question="Which rule gives (fg)' = f'g + fg'?",
    options=("Power rule", "Product rule", "Chain rule", "Quotient rule"),
    correct=1,
    source=SOURCE,
    skill="product-rule",
    explanation="The slide states it.",
)


def test_a_quiz_has_the_issue_keys_and_reads_back() -> None:
    quiz = Quiz(topic="derivatives", items=(ITEM,))
    data = quiz.to_json()
    [item] = data["items"]
    assert item["question"] == ITEM.question
    assert item["options"] == list(ITEM.options)
    assert item["correct"] == 1
    assert {"file", "page", "section"} <= set(item["source"])
    assert item["source"]["file"] == "lecture-02.pdf"
    assert data["grounded"] is True and data["topic"] == "derivatives"
    assert Quiz.from_json(data) == quiz
    assert Quiz.from_json(json.dumps(data)) == quiz


def test_flashcards_have_the_issue_keys_and_read_back() -> None:
    cards = FlashcardSet(
        topic="derivatives",
        cards=(Flashcard(front="Product rule", back="(fg)' = f'g + fg'", source=SOURCE),),
        reason="the material on 'derivatives' supports 1 cards",
    )
    data = cards.to_json()
    assert set(data["cards"][0]) >= {"front", "back", "source"}
    assert FlashcardSet.from_json(data) == cards


def test_a_mind_map_reads_back_and_prints_as_an_outline() -> None:
    mindmap = MindMap(
        topic="derivatives",
        root=MindNode(
            label="derivatives",
            children=(
                MindNode(label="Rules", children=(MindNode(label="Product rule", source=SOURCE),)),
            ),
        ),
    )
    assert MindMap.from_json(mindmap.to_json()) == mindmap
    assert mindmap.nodes() == 3
    assert mindmap.outline() == (
        "derivatives\n  - Rules\n    - Product rule (lecture-02.pdf, p. 4, The Product Rule)"
    )


@pytest.mark.parametrize("options", [("a", "b", "c"), ("a", "b", "c", "d", "e")])
def test_a_quiz_item_has_exactly_four_options(options: tuple[str, ...]) -> None:
    with pytest.raises(ValidationError):
        QuizItem(question="q", options=options, correct=0)  # type: ignore[arg-type]


def test_a_quiz_item_index_must_name_an_option() -> None:
    with pytest.raises(ValidationError):
        QuizItem(question="q", options=("a", "b", "c", "d"), correct=4)


def test_a_fallback_quiz_cannot_cite_the_material() -> None:
    with pytest.raises(ValidationError):
        Quiz(topic="x", items=(ITEM,), grounded=False)


def test_sources_are_listed_once_and_cite_like_answers() -> None:
    quiz = Quiz(topic="x", items=(ITEM, ITEM.model_copy(update={"question": "Other?"})))
    assert quiz.sources() == [SOURCE]
    assert SOURCE.label() == "lecture-02.pdf, p. 4, The Product Rule"
