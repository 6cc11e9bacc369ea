"""Study sets written by a language model through the structured-output layer
(`core.generation.generate`): the model gets the numbered passages on the topic and a JSON
schema; its items are checked in code (`core.study.checks`) and must cite a passage that
exists. Too few usable items are re-asked with the problems listed; what still fails after
the re-asks is dropped, and a smaller set says why.

With no passages (the course has nothing on the topic) the model may write a fallback set
from general knowledge: it is labelled not grounded, cites nothing, and is never graded."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypeVar

from pydantic import BaseModel, Field

from core import prompts
from core.answering.citations import citation_for
from core.generation import (
    GenerationError,
    GenerationFailedError,
    Message,
    StructuredModel,
    Writing,
    check_reply,
)
from core.index import SearchHit
from core.study import checks
from core.study.checks import CountRange
from core.study.extractive import skill_of
from core.study.models import (
    NOT_FROM_MATERIAL,
    OPTIONS_PER_QUESTION,
    Flashcard,
    FlashcardSet,
    MindMap,
    MindNode,
    Quiz,
    QuizItem,
    Source,
)

D = TypeVar("D", bound=BaseModel)

PASSAGE_CHARS = 1500
MAX_EXPLANATION_CHARS = 200
MAX_LABEL_CHARS = 60
MAX_BRANCHES = 6
MAX_POINTS = 5


# --- what the model writes -------------------------------------------------------------------


class DraftQuestion(BaseModel):
    question: str
    # A list, not four fields: three or five options are reported by the checks and re-asked.
    options: list[str]
    correct: int = Field(description="0-based index of the correct option in options")
    passage: int = Field(0, description="number of the passage the question comes from")
    explanation: str = ""
    skill: str = ""


class QuizDraft(BaseModel):
    items: list[DraftQuestion]


class DraftCard(BaseModel):
    front: str
    back: str
    passage: int = Field(0, description="number of the passage the card comes from")
    skill: str = ""


class FlashcardsDraft(BaseModel):
    cards: list[DraftCard]


class DraftPoint(BaseModel):
    label: str
    passage: int = Field(0, description="number of the passage the point comes from")


class DraftBranch(BaseModel):
    label: str
    passage: int = Field(0, description="number of the passage the branch comes from")
    children: list[DraftPoint] = []


class MindMapDraft(BaseModel):
    branches: list[DraftBranch]


class StudyWriteError(GenerationError):
    """The model wrote nothing usable, re-asks included."""


# --- one request's passages ---------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Passages:
    topic: str
    hits: Sequence[SearchHit]

    @property
    def grounded(self) -> bool:
        return bool(self.hits)

    def source(self, number: int) -> Source | None:
        """The passage `number` (1-based) cites, or None when it names none (fallback)."""
        if not self.grounded:
            return None
        return Source.from_chunk(self.hits[number - 1].chunk)

    def citation_problem(self, number: int) -> str | None:
        if self.grounded and not 1 <= number <= len(self.hits):
            count = len(self.hits)
            return f"passage must be the number of one passage (1 to {count}), not {number}"
        return None

    def skill(self, written: str, number: int) -> str:
        slug = "-".join(re.findall(r"\w+", written.casefold()))[:60].strip("-")
        if slug:
            return slug
        if self.grounded:
            return skill_of(self.hits[number - 1].chunk, self.topic)
        return "-".join(re.findall(r"\w+", self.topic.casefold()))[:60] or "general"

    def messages(self, system: str, count: int, noun: str) -> list[Message]:
        if self.grounded:
            user = prompts.STUDY_USER.format(
                passages=self._numbered(), count=count, noun=noun, topic=self.topic
            )
        else:
            user = prompts.STUDY_FALLBACK_USER.format(count=count, noun=noun, topic=self.topic)
        return [Message("system", system), Message("user", user)]

    def _numbered(self) -> str:
        return "\n\n".join(
            f"[{number}] ({citation_for(hit).label()})\n{hit.chunk.text[:PASSAGE_CHARS]}"
            for number, hit in enumerate(self.hits, 1)
        )

    def fallback_reason(self) -> str:
        return f"{NOT_FROM_MATERIAL}: the course material has nothing on '{self.topic}'"


def _position(question: str) -> int:
    return hashlib.sha256(question.encode("utf-8")).digest()[0] % OPTIONS_PER_QUESTION


def _placed(options: Sequence[str], correct: int, question: str) -> tuple[list[str], int]:
    """The options with the correct one moved to a position drawn from the question's hash:
    small models put it first far more often than chance."""
    wrong = [option for i, option in enumerate(options) if i != correct]
    position = _position(question)
    return [*wrong[:position], options[correct], *wrong[position:]], position


# --- quizzes ---------------------------------------------------------------------------------


def _questions(draft: QuizDraft, passages: _Passages) -> tuple[list[QuizItem], list[str]]:
    """The usable questions (checked, deduplicated) and what is wrong with the others."""
    usable: list[QuizItem] = []
    problems: list[str] = []
    for n, written in enumerate(draft.items):
        found = checks.item_problems(written.question, written.options, written.correct)
        wrong = [str(p) for p in checks.errors(found)]
        if (citing := passages.citation_problem(written.passage)) is not None:
            wrong.append(citing)
        if wrong:
            problems.append(f"items[{n}]: " + "; ".join(wrong))
            continue
        options, correct = _placed(
            [o.strip() for o in written.options], written.correct, written.question
        )
        usable.append(
            QuizItem(
                question=written.question.strip(),
                options=(options[0], options[1], options[2], options[3]),
                correct=correct,
                source=passages.source(written.passage),
                skill=passages.skill(written.skill, written.passage),
                explanation=written.explanation.strip()[:MAX_EXPLANATION_CHARS],
                flags=tuple(p.rule.value for p in checks.warnings(found)),
            )
        )
    kept = checks.dedupe_items(usable)
    if len(kept) < len(usable):
        problems.append(f"{len(usable) - len(kept)} questions repeat an earlier one")
    return kept, problems


def _quiz_validator(passages: _Passages, wanted: CountRange) -> Callable[[QuizDraft], list[str]]:
    def validate(draft: QuizDraft) -> list[str]:
        items, problems = _questions(draft, passages)
        counted = checks.count_problems(len(items), wanted, "questions")
        if counted:
            return [*problems, *map(str, counted)]
        return [str(p) for p in checks.set_problems(items[: wanted.maximum])]

    return validate


# --- flashcards -------------------------------------------------------------------------------


def _cards(draft: FlashcardsDraft, passages: _Passages) -> tuple[list[Flashcard], list[str]]:
    usable: list[Flashcard] = []
    problems: list[str] = []
    for n, written in enumerate(draft.cards):
        wrong = [str(p) for p in checks.errors(checks.card_problems(written.front, written.back))]
        if (citing := passages.citation_problem(written.passage)) is not None:
            wrong.append(citing)
        if wrong:
            problems.append(f"cards[{n}]: " + "; ".join(wrong))
            continue
        usable.append(
            Flashcard(
                front=written.front.strip(),
                back=written.back.strip(),
                source=passages.source(written.passage),
                skill=passages.skill(written.skill, written.passage),
            )
        )
    kept = checks.dedupe_cards(usable)
    if len(kept) < len(usable):
        problems.append(f"{len(usable) - len(kept)} cards repeat an earlier one")
    return kept, problems


def _cards_validator(
    passages: _Passages, wanted: CountRange
) -> Callable[[FlashcardsDraft], list[str]]:
    def validate(draft: FlashcardsDraft) -> list[str]:
        cards, problems = _cards(draft, passages)
        counted = checks.count_problems(len(cards), wanted, "cards")
        return [*problems, *map(str, counted)] if counted else []

    return validate


# --- mind maps ------------------------------------------------------------------------------


def _short(label: str) -> str:
    label = " ".join(label.split())
    return label if len(label) <= MAX_LABEL_CHARS else label[: MAX_LABEL_CHARS - 1] + "…"


def _branches(draft: MindMapDraft, passages: _Passages) -> tuple[list[MindNode], list[str]]:
    kept: list[MindNode] = []
    problems: list[str] = []
    for n, branch in enumerate(draft.branches[:MAX_BRANCHES]):
        citing = passages.citation_problem(branch.passage)
        if citing is not None or not branch.label.strip():
            problems.append(f"branches[{n}]: {citing or 'the label is empty'}")
            continue
        points = [
            MindNode(label=_short(point.label), source=passages.source(point.passage))
            for point in branch.children[:MAX_POINTS]
            if point.label.strip() and passages.citation_problem(point.passage) is None
        ]
        kept.append(
            MindNode(
                label=_short(branch.label),
                source=passages.source(branch.passage),
                children=tuple(points),
            )
        )
    return kept, problems


def _mindmap_validator(passages: _Passages) -> Callable[[MindMapDraft], list[str]]:
    def validate(draft: MindMapDraft) -> list[str]:
        branches, problems = _branches(draft, passages)
        return [] if branches else [*problems, "the mind map needs at least one branch"]

    return validate


# --- the writer -------------------------------------------------------------------------------


class StudyWriter:
    """Writes study sets with `model`. Raises `GenerationTimeoutError` or
    `LlmUnavailableError` when the model does not answer, `StudyWriteError` when nothing it
    wrote is usable."""

    def __init__(
        self,
        writing: Writing,
    ) -> None:
        self.writing = writing

    @property
    def model(self) -> StructuredModel:
        return self.writing.model

    async def quiz(self, topic: str, hits: Sequence[SearchHit], wanted: CountRange) -> Quiz:
        passages = _Passages(topic, hits)
        messages = passages.messages(
            prompts.quiz_system(passages.grounded), wanted.maximum, "quiz questions"
        )
        draft = await self._generate(messages, QuizDraft, _quiz_validator(passages, wanted), "quiz")
        items, _ = _questions(draft, passages)
        items = checks.rebalance_longest(items[: wanted.maximum])
        if not items:
            raise StudyWriteError(f"no usable quiz questions on '{topic}'")
        return Quiz(
            topic=topic,
            items=tuple(items),
            grounded=passages.grounded,
            reason=self._reason(passages, len(items), wanted, "questions"),
            made_by=self.model.name,
        )

    async def flashcards(
        self, topic: str, hits: Sequence[SearchHit], wanted: CountRange
    ) -> FlashcardSet:
        passages = _Passages(topic, hits)
        messages = passages.messages(
            prompts.flashcards_system(passages.grounded), wanted.maximum, "flashcards"
        )
        draft = await self._generate(
            messages, FlashcardsDraft, _cards_validator(passages, wanted), "flashcards"
        )
        cards, _ = _cards(draft, passages)
        cards = cards[: wanted.maximum]
        if not cards:
            raise StudyWriteError(f"no usable flashcards on '{topic}'")
        return FlashcardSet(
            topic=topic,
            cards=tuple(cards),
            grounded=passages.grounded,
            reason=self._reason(passages, len(cards), wanted, "cards"),
            made_by=self.model.name,
        )

    async def mindmap(self, topic: str, hits: Sequence[SearchHit]) -> MindMap:
        passages = _Passages(topic, hits)
        messages = passages.messages(
            prompts.mindmap_system(passages.grounded), MAX_BRANCHES, "mind map branches"
        )
        draft = await self._generate(
            messages, MindMapDraft, _mindmap_validator(passages), "mindmap"
        )
        branches, _ = _branches(draft, passages)
        if not branches:
            raise StudyWriteError(f"no usable mind map on '{topic}'")
        return MindMap(
            topic=topic,
            root=MindNode(label=topic, children=tuple(branches)),
            grounded=passages.grounded,
            reason="" if passages.grounded else passages.fallback_reason(),
            made_by=self.model.name,
        )

    # -------------------------------------------------------------------------------

    async def _generate(
        self,
        messages: list[Message],
        schema: type[D],
        validate: Callable[[D], list[str]],
        purpose: str,
    ) -> D:
        """The accepted draft; after the last re-ask, the last reply as it is (its usable
        items are kept, the rest dropped), if it parses at all."""
        try:
            result = await self.writing.generate(
                messages, schema, validate=validate, purpose=purpose
            )
        except GenerationFailedError as error:
            last = check_reply(error.raw, schema)
            if last.value is None:
                raise StudyWriteError(str(error)) from error
            return last.value
        return result.value

    @staticmethod
    def _reason(passages: _Passages, found: int, wanted: CountRange, noun: str) -> str:
        if not passages.grounded:
            return passages.fallback_reason()
        if found >= wanted.minimum:
            return ""
        return f"only {found} of the {noun} written on '{passages.topic}' passed the checks"
