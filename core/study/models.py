"""Study sets as typed values: flashcards, quizzes and mind maps, each item with the chunk it
came from. `to_json()` gives the JSON-able dict the CLI prints and the material store keeps
(quiz `{"items": [{"question", "options", "correct", "source": {"file", "page", "section",
...}}]}`, flashcards `{"cards": [{"front", "back", "source"}]}`); `from_json()` reads it back."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import Any, ClassVar, Self

from pydantic import BaseModel, ConfigDict, field_validator, model_validator

from core.generation.store import MaterialKind
from core.index import ChunkRecord
from core.replies import Citation

# How a set that was not taken from the course's material is labelled wherever it is shown.
NOT_FROM_MATERIAL = "not from your course material"
OPTIONS_PER_QUESTION = 4


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="ignore")


class Source(_Frozen):
    """The chunk an item came from: enough to cite it and to find the chunk again."""

    file: str
    page: int | None = None
    section: str | None = None
    chunk_id: str | None = None
    document_id: str | None = None
    private: bool = False

    @classmethod
    def from_chunk(cls, chunk: ChunkRecord) -> Source:
        return cls(
            file=chunk.file_name,
            page=chunk.page,
            section=chunk.section or None,
            chunk_id=chunk.id,
            document_id=chunk.document_id,
            private=chunk.private,
        )

    def citation(self) -> Citation:
        return Citation(
            file_name=self.file,
            page=self.page,
            section=self.section,
            document_id=self.document_id,
            private=self.private,
        )

    def label(self) -> str:
        return self.citation().label()


class Flashcard(_Frozen):
    front: str
    back: str
    source: Source | None = None  # None: fallback, not from the material
    skill: str = ""


class QuizItem(_Frozen):
    """One multiple-choice question: exactly four options, `correct` the 0-based index of
    the right one. `flags` are the checks' warnings (a negative stem) kept for review."""

    question: str
    options: tuple[str, str, str, str]
    correct: int
    source: Source | None = None
    skill: str = ""
    explanation: str = ""
    flags: tuple[str, ...] = ()

    @field_validator("correct")
    @classmethod
    def _in_range(cls, value: int) -> int:
        if not 0 <= value < OPTIONS_PER_QUESTION:
            raise ValueError(f"correct must be 0 to {OPTIONS_PER_QUESTION - 1}, got {value}")
        return value

    @property
    def answer(self) -> str:
        return self.options[self.correct]

    @property
    def grounded(self) -> bool:
        return self.source is not None


class MindNode(_Frozen):
    label: str
    source: Source | None = None
    children: tuple[MindNode, ...] = ()

    def walk(self, depth: int = 0) -> Iterator[tuple[int, MindNode]]:
        """This node and its descendants, depth first, with their depth (this node: 0)."""
        yield depth, self
        for child in self.children:
            yield from child.walk(depth + 1)


class StudySet(_Frozen):
    """What every set has. `grounded` is False for a fallback set written without the
    course's material (labelled NOT_FROM_MATERIAL, never graded); `reason` says why the set
    is smaller or other than asked; `made_by` is "extractive" or the model's name."""

    kind: ClassVar[MaterialKind]

    topic: str
    grounded: bool = True
    reason: str = ""
    made_by: str = "extractive"

    def to_json(self) -> dict[str, Any]:
        return self.model_dump(mode="json")

    @classmethod
    def from_json(cls, data: Mapping[str, Any] | str) -> Self:
        return cls.model_validate(json.loads(data) if isinstance(data, str) else dict(data))

    def sources(self) -> list[Source]:
        """Every distinct source the set cites, in order of first use."""
        return list(dict.fromkeys(self._sources()))

    def _sources(self) -> Iterator[Source]:
        return iter(())


class FlashcardSet(StudySet):
    kind: ClassVar[MaterialKind] = MaterialKind.FLASHCARDS

    cards: tuple[Flashcard, ...] = ()

    def _sources(self) -> Iterator[Source]:
        return (card.source for card in self.cards if card.source is not None)


class Quiz(StudySet):
    kind: ClassVar[MaterialKind] = MaterialKind.QUIZ

    items: tuple[QuizItem, ...] = ()

    @model_validator(mode="after")
    def _fallback_items_have_no_source(self) -> Quiz:
        # A fallback item citing a chunk would look graded-worthy: keep the two apart.
        if not self.grounded and any(item.source is not None for item in self.items):
            raise ValueError("a quiz that is not grounded cannot cite the material")
        return self

    def _sources(self) -> Iterator[Source]:
        return (item.source for item in self.items if item.source is not None)


class MindMap(StudySet):
    kind: ClassVar[MaterialKind] = MaterialKind.MINDMAP

    root: MindNode

    def nodes(self) -> int:
        return sum(1 for _ in self.root.walk())

    def outline(self) -> str:
        """The map as an indented text outline (for the console and as the picture's
        caption), each node sourced from the material followed by its citation."""
        lines = []
        for depth, node in self.root.walk():
            cited = f" ({node.source.label()})" if node.source and depth > 1 else ""
            lines.append(f"{'  ' * depth}{'- ' if depth else ''}{node.label}{cited}")
        return "\n".join(lines)

    def _sources(self) -> Iterator[Source]:
        return (node.source for _, node in self.root.walk() if node.source is not None)


SET_TYPES: dict[MaterialKind, type[StudySet]] = {
    MaterialKind.FLASHCARDS: FlashcardSet,
    MaterialKind.QUIZ: Quiz,
    MaterialKind.MINDMAP: MindMap,
}
