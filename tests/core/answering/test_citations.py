"""A model's `[n]` markers become the citations shown under its reply."""

from __future__ import annotations

from core.answering.citations import resolve_citations
from core.index import SearchHit
from core.index.payload import ChunkRecord


def _hit(n: int, section: str) -> SearchHit:
    chunk = ChunkRecord(
        id=f"chunk-{n}",
        course_id="c",
        document_id="c/notes.pdf",
        file_name="notes.pdf",
        text=f"passage {n}",
        page=3,
        section=section,
        kind="notes",
        visibility="public",
        owner_id=None,
        chunk_index=n,
    )
    return SearchHit(chunk=chunk, score=1.0)


def test_markers_are_renumbered_in_order_of_use_and_invented_ones_dropped() -> None:
    hits = [_hit(0, "Limits"), _hit(1, "Derivatives")]
    cited = resolve_citations("Derivatives come after limits [2] [1] [7].", hits)
    assert cited.text == "Derivatives come after limits [1] [2]."
    assert [c.section for c in cited.citations] == ["Derivatives", "Limits"]


def test_passages_citing_the_same_place_share_one_number() -> None:
    hits = [_hit(0, "Chain rule"), _hit(1, "Chain rule"), _hit(2, "Summary")]
    cited = resolve_citations("The rule [1]. An example [2]. In short [3].", hits)
    assert cited.text == "The rule [1]. An example [1]. In short [2]."
    assert [c.section for c in cited.citations] == ["Chain rule", "Summary"]
