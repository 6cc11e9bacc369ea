"""The tenant rule as a property: whatever the material and the question, a student sees only
their course's public chunks and their own private notes, through every retrieval variant,
the document listing and the count."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from qdrant_client import AsyncQdrantClient
from support.embedders import HashEmbedder
from support.material import Passage, add_passages

from core.context import Audience, Context
from core.index import ChunkIndex, SearchHit, SparseEncoder
from core.retrieval import VARIANTS, Retriever

COURSES = ("algebra", "biology", "chemistry")
STUDENTS = ("ana", "ben", "chloe")
WORDS = (
    "exam",
    "grade",
    "week",
    "homework",
    "lab",
    "quiz",
    "deadline",
    "office",
    "hours",
    "late",
    "policy",
    "midterm",
    "final",
    "secret",
    "formula",
    "cell",
)

texts = st.lists(st.sampled_from(WORDS), min_size=1, max_size=8).map(" ".join)


@dataclass(frozen=True)
class Chunk:
    course: str
    owner: str | None  # None: public course material
    text: str


chunks = st.builds(
    Chunk,
    course=st.sampled_from(COURSES),
    owner=st.none() | st.sampled_from(STUDENTS),
    text=texts,
)


def visible(chunk: Chunk, ctx: Context) -> bool:
    """The rule, restated independently of `tenant_filter`."""
    return chunk.course == ctx.course_id and chunk.owner in (None, ctx.user_id)


def allowed(hit: SearchHit, ctx: Context) -> bool:
    record = hit.chunk
    mine = record.owner_id == ctx.user_id
    return record.course_id == ctx.course_id and (not record.private or mine)


async def check(material: list[Chunk], questions: list[str]) -> None:
    embedder = HashEmbedder()
    index = ChunkIndex(AsyncQdrantClient(location=":memory:"), "tenant", embedder.dimensions, False)
    await index.ensure()
    try:
        passages = [
            # One file per chunk, so the document listing shows exactly what leaks.
            Passage(
                c.text,
                f"{c.course}-{c.owner or 'public'}-{n}.md",
                course_id=c.course,
                owner_id=c.owner,
            )
            for n, c in enumerate(material)
        ]
        await add_passages(index, embedder, passages)
        sparse = SparseEncoder()
        retrievers = [Retriever(index, embedder, sparse, config) for config in VARIANTS.values()]
        for course in COURSES:
            for student in STUDENTS:
                ctx = Context(
                    platform="test", course_id=course, user_id=student, audience=Audience.PRIVATE
                )
                expected = [p for p, c in zip(passages, material, strict=True) if visible(c, ctx)]
                assert await index.count(ctx) == len(expected)
                listed = {d.document_id for d in await index.documents(ctx)}
                assert listed == {f"{p.course_id}/{p.file_name}" for p in expected}
                for retriever in retrievers:
                    for question in questions:
                        hits = await retriever.retrieve(ctx, question, k=5)
                        assert all(allowed(hit, ctx) for hit in hits), (retriever.config, hits)
    finally:
        await index.close()


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    material=st.lists(chunks, min_size=1, max_size=12),
    questions=st.lists(texts, min_size=1, max_size=2),
)
def test_no_student_sees_another_students_notes_or_another_course(
    material: list[Chunk], questions: list[str]
) -> None:
    asyncio.run(check(material, questions))
