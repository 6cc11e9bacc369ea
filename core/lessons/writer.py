"""A lesson deck, or one revised slide, written by a language model through the
structured-output layer (`core.generation.generate`: schema as Ollama's `format`, syntax
repair, re-ask with the errors).

The model cites passage numbers, not chunks: `DraftSlide.sources` are the numbers of the
passages it was shown, turned into `Citation`s here. What is checked in code before a draft
is accepted: every number names a passage, every content slide cites one and says something,
and the slide count is inside the bounds asked for (`SlideBounds.problems`; a schema's
`minItems` is not trusted). Formulas are not checked here: one that cannot be typeset is
shown as its source by the renderer, and widgets are sanitised by the service."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Annotated

from pydantic import BaseModel, Field, ValidationError

from core.generation import Message, StructuredModel, Writing
from core.index import SearchHit
from core.lessons.models import (
    HARD_MAX_SLIDES,
    MAX_FORMULA_CHARS,
    MAX_ITEM_CHARS,
    MAX_ITEMS_PER_SLIDE,
    MAX_TITLE_CHARS,
    MAX_WIDGET_BYTES,
    Citation,
    Deck,
    Profile,
    Slide,
    SlideBounds,
    SlideKind,
)
from core.prompts import LESSON_EDIT_USER, LESSON_PROFILE, LESSON_SYSTEM, LESSON_USER

PASSAGE_CHARS = 1500

Item = Annotated[str, Field(max_length=MAX_ITEM_CHARS)]
Formula = Annotated[str, Field(max_length=MAX_FORMULA_CHARS)]


class DraftSlide(BaseModel):
    """One slide as the model writes it: the `Slide` schema, citing passage numbers."""

    title: str = Field(min_length=1, max_length=MAX_TITLE_CHARS)
    content: list[Item] = Field(default_factory=list, max_length=MAX_ITEMS_PER_SLIDE)
    math: list[Formula] = Field(default_factory=list, max_length=8)
    widget_html: str | None = Field(default=None, max_length=MAX_WIDGET_BYTES)
    accessibility_notes: str = Field(default="", max_length=1000)
    sources: list[int] = Field(default_factory=list, max_length=20)
    recap: bool = False


class DraftDeck(BaseModel):
    slides: list[DraftSlide] = Field(min_length=1, max_length=HARD_MAX_SLIDES)


def numbered_passages(hits: Sequence[SearchHit]) -> str:
    blocks = []
    for number, hit in enumerate(hits, 1):
        label = _citation(hit).label()
        blocks.append(f"[{number}] ({label})\n{hit.chunk.text[:PASSAGE_CHARS]}")
    return "\n\n".join(blocks)


def _citation(hit: SearchHit) -> Citation:
    chunk = hit.chunk
    return Citation(
        file=chunk.file_name, page=chunk.page, section=chunk.section.strip(), chunk_id=chunk.id
    )


def slide_problems(draft: DraftSlide, count: int, where: str) -> list[str]:
    problems = [
        f"{where} cites passage {n}, but the passages are numbered 1 to {count}"
        for n in draft.sources
        if not 1 <= n <= count
    ]
    if not draft.recap and not draft.sources:
        problems.append(f"{where} cites no passage: list the numbers it is taken from")
    if not any(item.strip() for item in draft.content) and not draft.math:
        problems.append(f"{where} has no content")
    return problems


def to_slide(draft: DraftSlide, hits: Sequence[SearchHit]) -> Slide:
    """`draft` as a deck slide, its passage numbers as citations (checked beforehand)."""
    citations = [_citation(hits[n - 1]) for n in dict.fromkeys(draft.sources)]
    return Slide(
        title=draft.title,
        content=list(draft.content),
        math=list(draft.math),
        widget_html=draft.widget_html or None,
        accessibility_notes=draft.accessibility_notes,
        citations=citations,
        kind=SlideKind.RECAP if draft.recap else SlideKind.CONTENT,
    )


def to_deck(draft: DraftDeck, hits: Sequence[SearchHit], topic: str, profile: Profile) -> Deck:
    return Deck(topic=topic, profile=profile, slides=[to_slide(s, hits) for s in draft.slides])


def deck_problems(
    draft: DraftDeck, hits: Sequence[SearchHit], bounds: SlideBounds, topic: str, profile: Profile
) -> list[str]:
    problems = [
        p
        for n, slide in enumerate(draft.slides, 1)
        for p in slide_problems(slide, len(hits), f"slide {n}")
    ]
    if problems:
        return problems
    try:
        deck = to_deck(draft, hits, topic, profile)
    except ValidationError as error:  # the Slide validators (whitespace-only titles, say)
        return [str(e["msg"]) for e in error.errors(include_url=False)]
    return bounds.problems(deck)


class DeckWriter:
    """The model's side of a lesson. Model errors (`GenerationError`, `LlmTimeoutError`,
    `LlmUnavailableError`) propagate: the service words them for the student."""

    def __init__(self, writing: Writing) -> None:
        self.writing = writing

    @property
    def model(self) -> StructuredModel:
        return self.writing.model

    async def deck(
        self, topic: str, hits: Sequence[SearchHit], bounds: SlideBounds, profile: Profile
    ) -> Deck:
        messages = [
            Message("system", LESSON_SYSTEM),
            Message("user", LESSON_USER.format(
                passages=numbered_passages(hits), topic=topic, minimum=bounds.minimum,
                maximum=bounds.maximum, profile=LESSON_PROFILE[profile.value],
            )),
        ]  # fmt: skip
        result = await self.writing.generate(
            messages, DraftDeck,
            validate=lambda d: deck_problems(d, hits, bounds, topic, profile), purpose="lesson",
        )  # fmt: skip
        return to_deck(result.value, hits, topic, profile)

    async def slide(
        self, deck: Deck, number: int, instruction: str, hits: Sequence[SearchHit]
    ) -> Slide:
        """Slide `number` (1-based) of `deck` revised by `instruction` from `hits`."""
        current = deck.slides[number - 1]
        shown = {
            "title": current.title,
            "content": current.content,
            "math": current.math,
            "accessibility_notes": current.accessibility_notes,
            "recap": current.kind is SlideKind.RECAP,
        }
        messages = [
            Message("system", LESSON_SYSTEM),
            Message("user", LESSON_EDIT_USER.format(
                passages=numbered_passages(hits), number=number, topic=deck.topic,
                slide=json.dumps(shown, ensure_ascii=False, indent=1), instruction=instruction,
            )),
        ]  # fmt: skip
        result = await self.writing.generate(
            messages, DraftSlide,
            validate=lambda s: slide_problems(s, len(hits), "the slide"), purpose="lesson edit",
        )  # fmt: skip
        return to_slide(result.value, hits)
