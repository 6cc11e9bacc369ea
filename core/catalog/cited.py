"""Citations of catalog answers: each fact's source once, numbered in order of first use."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

from core.replies import Answer, Citation


class Sourced(Protocol):
    """A row with where it was read (a course fact, an outcome)."""

    @property
    def file_name(self) -> str: ...
    @property
    def page(self) -> int | None: ...
    @property
    def section(self) -> str: ...
    @property
    def document_id(self) -> str: ...


@dataclass(slots=True)
class Cited:
    """Citations in order of first use; `mark` gives a fact's `[n]`."""

    citations: list[Citation] = field(default_factory=list)

    def mark(self, fact: Sourced | None) -> str:
        if fact is None:
            return ""
        citation = Citation(
            file_name=fact.file_name,
            page=fact.page,
            section=fact.section or None,
            document_id=fact.document_id,
        )
        if citation not in self.citations:
            self.citations.append(citation)
        return f" [{self.citations.index(citation) + 1}]"

    def answer(self, lines: Sequence[str]) -> Answer:
        return Answer(text="\n".join(lines), citations=tuple(self.citations))
