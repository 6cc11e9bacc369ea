"""How retrieved chunks are shown to the answer model: numbered, labelled by scope, fenced."""

from __future__ import annotations

from core.index import SearchHit

COURSE_SCOPE = "course material"
PRIVATE_SCOPE = "your private notes"


def format_sources(hits: list[SearchHit]) -> str:
    blocks = []
    for number, hit in enumerate(hits, start=1):
        chunk = hit.chunk
        scope = PRIVATE_SCOPE if chunk.private else COURSE_SCOPE
        where = ", ".join(
            part
            for part in (
                chunk.file_name,
                f"page {chunk.page}" if chunk.page is not None else "",
                chunk.section,
            )
            if part
        )
        # The fence marks where quoted material starts and ends; the system prompt says
        # nothing inside it is an instruction.
        text = chunk.text.replace("<<<", "‹‹‹").replace(">>>", "›››")
        blocks.append(f"[{number}] ({scope}) {where}\n<<<\n{text}\n>>>")
    return "\n\n".join(blocks)
