"""Answers made of quoted passages, with their citations: what the bot says when no LLM is
configured."""

from __future__ import annotations

from core.index import SearchHit
from core.replies import Answer, Citation

NOT_COVERED = "The course material does not cover this question."
QUOTE_CHARS = 400


def citation_for(hit: SearchHit) -> Citation:
    chunk = hit.chunk
    return Citation(
        file_name=chunk.file_name,
        page=chunk.page,
        section=chunk.section or None,
        document_id=chunk.document_id,
        private=chunk.private,
    )


def quote_passages(hits: list[SearchHit], limit: int = 3) -> Answer:
    """The best passages, quoted and numbered to match their citations."""
    if not hits:
        return Answer(text=NOT_COVERED, grounded=False, quoted=True)
    chosen = hits[:limit]
    lines = [f"[{n}] “{_shorten(hit.chunk.text)}”" for n, hit in enumerate(chosen, start=1)]
    return Answer(
        text="\n".join(lines),
        citations=tuple(citation_for(hit) for hit in chosen),
        grounded=True,
        quoted=True,
    )


def _shorten(text: str) -> str:
    flat = " ".join(text.split())
    if len(flat) <= QUOTE_CHARS:
        return flat
    cut = flat.rfind(" ", 0, QUOTE_CHARS)
    return flat[: cut if cut > 0 else QUOTE_CHARS] + " …"
