"""From `[n]` markers in a model's reply to citations users can follow.

Markers are renumbered 1..m in order of first use, so the reply's numbers match the list of
citations shown under it (passages citing the same place share a number); markers naming a
source that does not exist are dropped."""

from __future__ import annotations

import re
from dataclasses import dataclass

from core.index import SearchHit
from core.replies import Citation

_MARKER = re.compile(r"\[(\d+(?:\s*,\s*\d+)*)\]")


def citation_for(hit: SearchHit) -> Citation:
    chunk = hit.chunk
    return Citation(
        file_name=chunk.file_name,
        page=chunk.page,
        section=chunk.section or None,
        document_id=chunk.document_id,
        private=chunk.private,
    )


class CitationNumbers:
    """The numbers shown for citations: 1..m in order of first use, and one number for
    passages citing the same place (two chunks of one section are one source to a reader)."""

    def __init__(self) -> None:
        self._numbers: dict[Citation, int] = {}

    def of(self, hit: SearchHit) -> int:
        return self._numbers.setdefault(citation_for(hit), len(self._numbers) + 1)

    @property
    def citations(self) -> tuple[Citation, ...]:
        return tuple(self._numbers)


@dataclass(frozen=True, slots=True)
class CitedText:
    text: str
    citations: tuple[Citation, ...]


def resolve_citations(text: str, hits: list[SearchHit]) -> CitedText:
    numbers = CitationNumbers()

    def renumber(match: re.Match[str]) -> str:
        shown = []
        for part in match.group(1).split(","):
            number = int(part)
            if not 1 <= number <= len(hits):
                continue  # a source the model invented
            shown.append(f"[{numbers.of(hits[number - 1])}]")
        return "".join(dict.fromkeys(shown))

    rewritten = _MARKER.sub(renumber, text)
    rewritten = re.sub(r"[ \t]+([.,;:])", r"\1", rewritten).strip()
    return CitedText(rewritten, numbers.citations)
