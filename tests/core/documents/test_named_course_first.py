"""A question naming a course by its name (accents or none) is answered from that course's
own syllabus first, on every course of the fpt-bit-ai programme (64 documents in one course,
where a grading rule or a textbook of another course is always close by). The vectors come
from a fast stand-in (the bundled embedder passes too, in minutes): the naming, the steering
and the quoting are what is pinned here."""

from __future__ import annotations

import re

import pytest
from qdrant_client import AsyncQdrantClient
from support.embedders import HashEmbedder
from support.paths import SHARED_DATASETS

from core.answering import ExtractiveAnswerer, pack
from core.context import Context
from core.index import ChunkIndex, SparseEncoder
from core.retrieval import VARIANTS, Retriever
from core.text import fold
from ingestion import Ingestor, discover

FOLDER = SHARED_DATASETS / "fpt-bit-ai" / "courses" / "bit-ai"
COURSE = "bit-ai"
CTX = Context(platform="test", course_id=COURSE, user_id="student")
_ENGLISH_NAME = re.compile(r"^\|\s*Syllabus English:\s*\|\s*([^|]+?)\s*\|", re.M)
ASKED = ("description", "assessment", "main material")


def course_names() -> dict[str, str]:
    """file name -> the course's English name, for names only one syllabus has."""
    names: dict[str, str] = {}
    for path in sorted(FOLDER.iterdir()) if FOLDER.is_dir() else []:
        found = _ENGLISH_NAME.search(path.read_text(encoding="utf-8"))
        if found and len(found.group(1)) >= 8:
            names[path.name] = found.group(1)
    counts: dict[str, int] = {}
    for name in names.values():
        counts[fold(name)] = counts.get(fold(name), 0) + 1
    return {file: name for file, name in names.items() if counts[fold(name)] == 1}


async def test_every_course_named_by_its_name_is_quoted_from_its_own_file_first() -> None:
    names = course_names()
    if not names:
        pytest.skip("fpt-bit-ai is not present next to the project")
    embedder = HashEmbedder()
    index = ChunkIndex(AsyncQdrantClient(location=":memory:"), "named", embedder.dimensions, False)
    await index.ensure()
    try:
        sources, _ = discover([FOLDER])
        ingestor = Ingestor(
            index=index, embedder=embedder, sparse=SparseEncoder(), max_bytes=50 << 20
        )
        await ingestor.ingest(sources, COURSE)
        retriever = Retriever(index, embedder, SparseEncoder(), VARIANTS["dbsf+documents"])
        answerer = ExtractiveAnswerer()
        wrong = []
        for file_name, name in names.items():
            for asked in ASKED:
                # Half the questions drop the name's accents and case, as students type.
                written = fold(name) if asked == "assessment" else name
                question = f"what is the {asked} of {written}?"
                hits = pack(await retriever.retrieve(CTX, question, k=5, unit_scores=True), 4000)
                answer = await answerer.answer(question, hits)
                first = answer.citations[0].file_name if answer.citations else None
                if first != file_name:
                    wrong.append((question, first))
        assert wrong == []
    finally:
        await index.close()
