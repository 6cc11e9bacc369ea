"""ChunkIndex on Qdrant Edge behaves as on qdrant-client's local mode: the same scenarios run
against both engines, and searches and filters are compared hit for hit, score for score."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import tempfile
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given
from hypothesis import settings as examples
from hypothesis import strategies as st
from qdrant_client import AsyncQdrantClient, models
from support.embedders import HashEmbedder
from support.material import Passage, add_passages
from support.paths import REPO_ROOT

from bot.composition import open_index
from config import Settings
from core.content_kind import ContentKind
from core.context import Audience, Context
from core.index import (
    ChunkIndex,
    EdgeQdrantClient,
    IndexMismatchError,
    SearchHit,
    SearchMode,
    SparseEncoder,
    SparseVector,
    UntranslatableModelError,
    Visibility,
)
from core.index import fields as f
from core.index.chunk_index import GUIDED_EXERCISE_KIND
from core.index.edge_client import UPSERT_SLICE
from core.retrieval import VARIANTS, Retriever

Client = AsyncQdrantClient | EdgeQdrantClient
ENGINES = ("local", "edge")
COLLECTION = "chunks"
COURSE = "algebra"
DIMENSIONS = HashEmbedder.dimensions


def passage(text: str, name: str, course_id: str = COURSE, owner_id: str | None = None) -> Passage:
    return Passage(text, name, course_id=course_id, owner_id=owner_id)


SYLLABUS = [
    passage("The final exam takes place in week 14 and counts for 40 percent.", "exam.md"),
    passage("Homework is due every Friday before midnight through the course portal.", "hw.md"),
    passage("Late homework loses ten percent per day, up to three days.", "late.md"),
    passage("Office hours: Tuesday 2-4 pm in room 210, or by appointment.", "office.md"),
    passage("The midterm exam covers chapters one to five of the textbook.", "midterm.md"),
    passage("Lab reports are graded out of 100 points and count for 20 percent.", "lab.md"),
    passage("Attendance is not graded, but the weekly quiz is.", "quiz.md"),
    passage(
        "Ana's private reminder: ask about the exam formula sheet and the calculator.",
        "ana.md",
        owner_id="ana",
    ),
    passage("Ben's private note: the exam room changed to 310.", "ben.md", owner_id="ben"),
    passage("Biology final exam is an oral exam in week 15.", "bio.md", course_id="biology"),
]
QUESTIONS = [
    "when is the final exam",
    "how many points is the lab report",
    "what happens if homework is late",
    "exam room",
]


def open_client(engine: str, directory: Path) -> Client:
    if engine == "edge":
        return EdgeQdrantClient(directory / "edge")
    return AsyncQdrantClient(path=str(directory / "local"))


def chunk_index(engine: str, directory: Path, dimensions: int = DIMENSIONS) -> ChunkIndex:
    # As the composition root does: Edge filters through payload indexes, local mode scans.
    client = open_client(engine, directory)
    return ChunkIndex(client, COLLECTION, dimensions, payload_indexes=engine == "edge")


def student(user_id: str = "ana", course_id: str = COURSE) -> Context:
    return Context(platform="test", course_id=course_id, user_id=user_id, audience=Audience.PRIVATE)


@pytest.fixture(params=ENGINES)
def engine(request: pytest.FixtureRequest) -> str:
    return request.param


@pytest.fixture
async def index(engine: str, tmp_path: Path) -> AsyncIterator[ChunkIndex]:
    """An empty index on each engine (conftest's `index` is in-memory local mode only)."""
    chunks = chunk_index(engine, tmp_path)
    await chunks.ensure()
    yield chunks
    await chunks.close()


@pytest.fixture
async def both(tmp_path: Path) -> AsyncIterator[dict[str, ChunkIndex]]:
    """The same syllabus in each engine."""
    indexes = {engine: chunk_index(engine, tmp_path / engine) for engine in ENGINES}
    for chunks in indexes.values():
        await chunks.ensure()
        await add_passages(chunks, HashEmbedder(), SYLLABUS)
    yield indexes
    for chunks in indexes.values():
        await chunks.close()


def ranking(hits: list[SearchHit]) -> list[tuple[float, str]]:
    """Hits by score, ties in name order: engines may order equal scores differently."""
    return sorted(
        ((round(h.score, 4), h.chunk.file_name) for h in hits), key=lambda s: (-s[0], s[1])
    )


def chunk_point(
    document: str,
    generation: str,
    n: int,
    *,
    course_id: str = COURSE,
    owner_id: str | None = None,
    extra: dict[str, object] | None = None,
) -> models.PointStruct:
    """A chunk with a fixed vector: for tests about payloads, not ranking."""
    return models.PointStruct(
        id=str(uuid.uuid5(uuid.NAMESPACE_URL, f"{course_id}/{document}/{generation}/{n}")),
        vector={
            f.DENSE: [1.0] + [0.0] * (DIMENSIONS - 1),
            f.SPARSE: models.SparseVector(indices=[n], values=[1.0]),
        },
        payload={
            f.COURSE_ID: course_id,
            f.DOCUMENT_ID: f"{course_id}/{document}",
            f.FILE_NAME: document,
            f.TEXT: f"chunk {n} of {document} ({generation})",
            f.KIND: "notes",
            f.VISIBILITY: (Visibility.PRIVATE if owner_id else Visibility.PUBLIC).value,
            f.OWNER_ID: owner_id,
            f.CHUNK_INDEX: n,
            f.GENERATION: generation,
            f.FILE_HASH: f"hash-{document}-{generation}",
            **(extra or {}),
        },
    )


# --- collection -----------------------------------------------------------------------------


async def test_ensure_reopens_an_existing_collection(index: ChunkIndex) -> None:
    await index.ensure()
    assert await index.count(student()) == 0


async def test_ensure_refuses_a_collection_built_for_another_embedder(
    engine: str, tmp_path: Path
) -> None:
    first = chunk_index(engine, tmp_path)
    await first.ensure()
    await first.close()
    other = chunk_index(engine, tmp_path, dimensions=DIMENSIONS * 2)
    try:
        with pytest.raises(IndexMismatchError, match=f"holds {DIMENSIONS}-dimension"):
            await other.ensure()
    finally:
        await other.close()


async def test_the_index_survives_a_restart(engine: str, tmp_path: Path) -> None:
    first = chunk_index(engine, tmp_path)
    await first.ensure()
    await add_passages(first, HashEmbedder(), SYLLABUS)
    before = await first.documents(student())
    await first.close()

    reopened = chunk_index(engine, tmp_path)
    try:
        await reopened.ensure()
        assert await reopened.documents(student()) == before
        dense = (await HashEmbedder().embed(["exam"]))[0]
        sparse = SparseEncoder().encode_query("exam")
        hits = await reopened.search(student(), dense, sparse, 3, SearchMode.SPARSE)
        assert hits and all("exam" in h.chunk.text.lower() for h in hits)
    finally:
        await reopened.close()


async def test_edge_collection_reports_its_vectors_and_payload_indexes(tmp_path: Path) -> None:
    chunks = chunk_index("edge", tmp_path)
    await chunks.ensure()
    try:
        info = await chunks.client.get_collection(COLLECTION)
        assert info.config.params.vectors[f.DENSE].size == DIMENSIONS
        assert info.config.params.sparse_vectors[f.SPARSE].modifier == models.Modifier.IDF
        assert set(info.payload_schema) == set(f.KEYWORD_INDEXES)
        assert {i.data_type for i in info.payload_schema.values()} == {
            models.PayloadSchemaType.KEYWORD
        }
    finally:
        await chunks.close()


async def test_the_default_embedded_engine_is_edge_with_payload_indexes(
    settings: Settings,
) -> None:
    chunks = await open_index(settings, DIMENSIONS)
    try:
        assert isinstance(chunks.client, EdgeQdrantClient)
        assert chunks.payload_indexes
        assert (settings.data_dir / "qdrant-edge" / settings.qdrant_collection).is_dir()
    finally:
        await chunks.close()


async def test_local_mode_stays_available(tmp_path: Path) -> None:
    configured = Settings(_env_file=None, data_dir=tmp_path, qdrant_embedded="local")  # type: ignore[call-arg]
    chunks = await open_index(configured, DIMENSIONS)
    try:
        assert isinstance(chunks.client, AsyncQdrantClient)
        assert not chunks.payload_indexes
    finally:
        await chunks.close()


async def test_a_closed_edge_client_refuses_calls(tmp_path: Path) -> None:
    client = EdgeQdrantClient(tmp_path)
    await client.create_collection(
        COLLECTION, {f.DENSE: models.VectorParams(size=2, distance=models.Distance.DOT)}
    )
    await client.close()
    await client.close()
    with pytest.raises(RuntimeError, match="closed"):
        await client.count(COLLECTION)


async def test_a_missing_collection_is_reported_by_name(tmp_path: Path) -> None:
    client = EdgeQdrantClient(tmp_path)
    assert not await client.collection_exists("nowhere")
    with pytest.raises(ValueError, match="Collection nowhere not found"):
        await client.count("nowhere")
    await client.close()


@pytest.mark.parametrize("name", ["../escape", "a/b", ".hidden", ""])
async def test_a_collection_name_cannot_leave_the_data_dir(tmp_path: Path, name: str) -> None:
    client = EdgeQdrantClient(tmp_path / "edge")
    with pytest.raises(ValueError, match="collection name"):
        await client.collection_exists(name)
    await client.close()


# --- search ---------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", list(SearchMode))
@pytest.mark.parametrize("question", QUESTIONS)
async def test_every_search_mode_ranks_as_local_mode_does(
    both: dict[str, ChunkIndex], mode: SearchMode, question: str
) -> None:
    dense = (await HashEmbedder().embed([question]))[0]
    sparse = SparseEncoder().encode_query(question)
    results = {
        engine: await chunks.search(student("ana"), dense, sparse, 20, mode, with_vectors=True)
        for engine, chunks in both.items()
    }
    local, edge = results["local"], results["edge"]
    assert local, "the question should find something"
    if mode in (SearchMode.DENSE, SearchMode.SPARSE):
        # The engines order equal scores differently, which would shift the fused ranks.
        scores = [round(h.score, 4) for h in local]
        assert len(set(scores)) == len(scores), "keep the material free of tied scores"
    assert ranking(edge) == ranking(local)
    assert [h.score for h in sorted(edge, key=lambda h: h.chunk.file_name)] == pytest.approx(
        [h.score for h in sorted(local, key=lambda h: h.chunk.file_name)], rel=1e-5, abs=1e-6
    )
    by_name = {h.chunk.file_name: h for h in local}
    for hit in edge:
        twin = by_name[hit.chunk.file_name]
        # add_passages gives each engine's copy its own random id.
        assert replace(hit.chunk, id=twin.chunk.id) == twin.chunk
        assert hit.vector == pytest.approx(twin.vector, abs=1e-6)


async def test_search_sees_own_notes_but_not_another_students_or_course(
    index: ChunkIndex,
) -> None:
    await add_passages(index, HashEmbedder(), SYLLABUS)
    dense = (await HashEmbedder().embed(["exam"]))[0]
    sparse = SparseEncoder().encode_query("exam room formula")
    for mode in SearchMode:
        names = {
            h.chunk.file_name for h in await index.search(student("ana"), dense, sparse, 20, mode)
        }
        assert "ana.md" in names, mode
        assert not names & {"ben.md", "bio.md"}, mode


# --- tenant rule, as a property (ported from tests/core/test_tenant_scope.py) ----------------

COURSES = ("algebra", "biology")
STUDENTS = ("ana", "ben", "chloe")
WORDS = ("exam", "grade", "week", "homework", "lab", "quiz", "late", "secret", "formula")
texts = st.lists(st.sampled_from(WORDS), min_size=1, max_size=6).map(" ".join)


@dataclass(frozen=True)
class Chunk:
    course: str
    owner: str | None
    text: str


chunks_strategy = st.builds(
    Chunk,
    course=st.sampled_from(COURSES),
    owner=st.none() | st.sampled_from(STUDENTS),
    text=texts,
)


async def check_tenant_rule(material: list[Chunk], questions: list[str]) -> None:
    embedder = HashEmbedder()
    with tempfile.TemporaryDirectory() as directory:
        chunks = chunk_index("edge", Path(directory))
        await chunks.ensure()
        try:
            passages = [
                passage(c.text, f"{c.course}-{c.owner or 'public'}-{n}.md", c.course, c.owner)
                for n, c in enumerate(material)
            ]
            await add_passages(chunks, embedder, passages)
            retrievers = [
                Retriever(chunks, embedder, SparseEncoder(), config) for config in VARIANTS.values()
            ]
            for course in COURSES:
                for user in STUDENTS:
                    ctx = student(user, course)
                    expected = {
                        f"{p.course_id}/{p.file_name}"
                        for p, c in zip(passages, material, strict=True)
                        if c.course == course and c.owner in (None, user)
                    }
                    assert await chunks.count(ctx) == len(expected)
                    assert {d.document_id for d in await chunks.documents(ctx)} == expected
                    for retriever in retrievers:
                        for question in questions:
                            for hit in await retriever.retrieve(ctx, question, k=5):
                                assert hit.chunk.document_id in expected, (retriever.config, hit)
        finally:
            await chunks.close()


@examples(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    material=st.lists(chunks_strategy, min_size=1, max_size=10),
    questions=st.lists(texts, min_size=1, max_size=2),
)
def test_on_edge_no_student_sees_another_students_notes_or_another_course(
    material: list[Chunk], questions: list[str]
) -> None:
    asyncio.run(check_tenant_rule(material, questions))


# --- documents and maintenance --------------------------------------------------------------


async def test_documents_list_what_each_reader_may_see(index: ChunkIndex) -> None:
    await index.upsert(
        [chunk_point("syllabus.md", "g1", n) for n in range(3)]
        + [chunk_point("notes.md", "g1", n, owner_id="ana") for n in range(2)]
        + [chunk_point("other.md", "g1", 0, course_id="biology")]
    )
    mine = await index.documents(student("ana"))
    assert [(d.file_name, d.chunks, d.private) for d in mine] == [
        ("notes.md", 2, True),
        ("syllabus.md", 3, False),
    ]
    assert mine[1].file_hash == "hash-syllabus.md-g1"
    assert [d.file_name for d in await index.documents(student("ben"))] == ["syllabus.md"]
    public = await index.documents_in_course(COURSE)
    assert [d.file_name for d in public] == ["syllabus.md"]
    owned = await index.documents_in_course(COURSE, owner_id="ana")
    assert [d.file_name for d in owned] == ["notes.md"]


async def test_delete_document_keeps_only_the_new_generation(index: ChunkIndex) -> None:
    await index.upsert(
        [chunk_point("syllabus.md", "old", n) for n in range(4)]
        + [chunk_point("syllabus.md", "new", n) for n in range(2)]
        + [chunk_point("syllabus.md", "old", 0, course_id="biology")]
    )
    await index.delete_document(COURSE, f"{COURSE}/syllabus.md", keep_generation="new")
    (document,) = await index.documents(student())
    assert (document.chunks, document.file_hash) == (2, "hash-syllabus.md-new")
    # Another course's document of the same name is untouched.
    assert await index.count(student(course_id="biology")) == 1

    await index.delete_document(COURSE, f"{COURSE}/syllabus.md")
    assert await index.documents(student()) == []


async def test_delete_points_removes_exactly_those_ids(index: ChunkIndex) -> None:
    points = [chunk_point("syllabus.md", "g1", n) for n in range(5)]
    await index.upsert(points)
    await index.delete_points([str(points[0].id), str(points[3].id)])
    records, _ = await index.client.scroll(COLLECTION, limit=10, with_payload=[f.CHUNK_INDEX])
    assert sorted(r.payload[f.CHUNK_INDEX] for r in records) == [1, 2, 4]
    assert {str(r.id) for r in records} == {str(points[n].id) for n in (1, 2, 4)}


async def test_document_hash_is_read_back_per_course(index: ChunkIndex) -> None:
    await index.upsert([chunk_point("syllabus.md", "g1", 0)])
    assert await index.document_hash(COURSE, f"{COURSE}/syllabus.md") == "hash-syllabus.md-g1"
    assert await index.document_hash("biology", f"{COURSE}/syllabus.md") is None
    assert await index.document_hash(COURSE, f"{COURSE}/missing.md") is None


async def test_exercise_sources_follow_the_tenant_rule(index: ChunkIndex) -> None:
    def exercise(exercise_id: str, owner_id: str | None = None) -> models.PointStruct:
        return chunk_point(
            f"{exercise_id}.yaml",
            "g1",
            0,
            owner_id=owner_id,
            extra={
                f.KIND: GUIDED_EXERCISE_KIND,
                f.EXERCISE_ID: exercise_id,
                f.EXERCISE_SOURCE: f"source of {exercise_id}",
            },
        )

    await index.upsert(
        [
            exercise("limits"),
            exercise("series"),
            exercise("mine", owner_id="ana"),
            chunk_point("syllabus.md", "g1", 0),
        ]
    )
    assert await index.exercise_sources(student("ana")) == {
        "limits": "source of limits",
        "series": "source of series",
        "mine": "source of mine",
    }
    assert set(await index.exercise_sources(student("ben"))) == {"limits", "series"}
    assert await index.exercise_sources(student("ben"), "series") == {"series": "source of series"}
    assert await index.exercise_sources(student("ben"), "mine") == {}


async def test_scroll_pages_through_the_same_points_in_the_same_order(tmp_path: Path) -> None:
    count = 2 * UPSERT_SLICE + 37  # more than one upsert slice and several pages
    points = [chunk_point(f"doc-{n // 100}.md", "g1", n) for n in range(count)]
    pages: dict[str, list[list[str]]] = {}
    for engine in ENGINES:
        chunks = chunk_index(engine, tmp_path / engine)
        await chunks.ensure()
        try:
            await chunks.upsert(points)
            assert sum(d.chunks for d in await chunks.documents(student())) == count
            pages[engine], offset = [], None
            while True:
                records, offset = await chunks.client.scroll(
                    COLLECTION, limit=100, offset=offset, with_payload=False
                )
                pages[engine].append([str(r.id) for r in records])
                if offset is None:
                    break
        finally:
            await chunks.close()
    assert pages["edge"] == pages["local"]
    assert sorted(i for page in pages["edge"] for i in page) == sorted(str(p.id) for p in points)


# --- filter translation ---------------------------------------------------------------------

FILTERS = {
    "match any": models.Filter(
        must=[models.FieldCondition(key=f.CHUNK_INDEX, match=models.MatchAny(any=[1, 3, 5]))]
    ),
    "match except": models.Filter(
        must=[
            models.FieldCondition(key=f.FILE_NAME, match=models.MatchExcept(**{"except": ["a.md"]}))
        ]
    ),
    "must not": models.Filter(
        must_not=[models.FieldCondition(key=f.OWNER_ID, match=models.MatchValue(value="ana"))]
    ),
    "single condition, not a list": models.Filter(
        must=models.FieldCondition(key=f.FILE_NAME, match=models.MatchValue(value="b.md"))
    ),
    "range": models.Filter(
        must=[models.FieldCondition(key=f.CHUNK_INDEX, range=models.Range(gte=2, lt=5))]
    ),
    "is empty": models.Filter(
        must=[models.IsEmptyCondition(is_empty=models.PayloadField(key=f.OWNER_ID))]
    ),
    "is null": models.Filter(
        must=[models.IsNullCondition(is_null=models.PayloadField(key=f.OWNER_ID))]
    ),
    "has id": models.Filter(
        must=[
            models.HasIdCondition(
                has_id=[
                    str(uuid.uuid5(uuid.NAMESPACE_URL, f"{COURSE}/a.md/g1/{n}")) for n in (0, 2)
                ]
            )
        ]
    ),
    "min should": models.Filter(
        min_should=models.MinShould(
            conditions=[
                models.FieldCondition(key=f.FILE_NAME, match=models.MatchValue(value="a.md")),
                models.FieldCondition(key=f.CHUNK_INDEX, match=models.MatchAny(any=[0, 1])),
                models.FieldCondition(key=f.OWNER_ID, match=models.MatchValue(value="ana")),
            ],
            min_count=2,
        )
    ),
    "nested should in must": models.Filter(
        must=[
            models.FieldCondition(key=f.COURSE_ID, match=models.MatchValue(value=COURSE)),
            models.Filter(
                should=[
                    models.FieldCondition(key=f.FILE_NAME, match=models.MatchValue(value="b.md")),
                    models.Filter(
                        must_not=[
                            models.IsEmptyCondition(is_empty=models.PayloadField(key=f.OWNER_ID))
                        ]
                    ),
                ]
            ),
        ]
    ),
}


@pytest.mark.parametrize("name", list(FILTERS))
async def test_a_filter_selects_the_same_points_as_in_local_mode(tmp_path: Path, name: str) -> None:
    points = [chunk_point("a.md", "g1", n) for n in range(4)] + [
        chunk_point("b.md", "g1", n, owner_id="ana" if n % 2 else None) for n in range(4)
    ]
    selected: dict[str, set[str]] = {}
    for engine in ENGINES:
        chunks = chunk_index(engine, tmp_path / engine)
        await chunks.ensure()
        try:
            await chunks.upsert(points)
            records, _ = await chunks.client.scroll(
                COLLECTION, scroll_filter=FILTERS[name], limit=100, with_payload=False
            )
            selected[engine] = {str(r.id) for r in records}
            counted = await chunks.client.count(COLLECTION, count_filter=FILTERS[name])
            assert counted.count == len(selected[engine])
        finally:
            await chunks.close()
    assert selected["edge"] == selected["local"]
    assert 0 < len(selected["edge"]) < len(points), "the filter should discriminate"


UNTRANSLATABLE = {
    "geo condition": models.FieldCondition(
        key="place",
        geo_radius=models.GeoRadius(center=models.GeoPoint(lon=0, lat=0), radius=10),
    ),
    "values count": models.FieldCondition(key=f.OWNER_ID, values_count=models.ValuesCount(gt=1)),
    "text match": models.FieldCondition(key=f.TEXT, match=models.MatchText(text="exam")),
    "datetime range": models.FieldCondition(
        key=f.INGESTED_AT, range=models.DatetimeRange(gte=datetime(2024, 1, 1, tzinfo=UTC))
    ),
    "nested objects": models.NestedCondition(
        nested=models.Nested(key="parts", filter=models.Filter(must=[]))
    ),
    "has vector": models.HasVectorCondition(has_vector=f.DENSE),
}


@pytest.mark.parametrize("name", list(UNTRANSLATABLE))
async def test_a_condition_it_cannot_translate_is_refused_not_dropped(
    tmp_path: Path, name: str
) -> None:
    chunks = chunk_index("edge", tmp_path)
    await chunks.ensure()
    # Deep inside the tenant filter's should, where a dropped condition would widen access.
    scope = models.Filter(
        must=[
            models.FieldCondition(key=f.COURSE_ID, match=models.MatchValue(value=COURSE)),
            models.Filter(should=[UNTRANSLATABLE[name]]),
        ]
    )
    try:
        with pytest.raises(UntranslatableModelError):
            await chunks.client.count(COLLECTION, count_filter=scope)
        with pytest.raises(UntranslatableModelError):
            await chunks.client.query_points(
                COLLECTION, query=[0.0] * DIMENSIONS, using=f.DENSE, query_filter=scope
            )
    finally:
        await chunks.close()


async def test_requests_it_cannot_translate_are_refused(tmp_path: Path) -> None:
    chunks = chunk_index("edge", tmp_path)
    await chunks.ensure()
    client = chunks.client
    some_id = str(uuid.uuid4())
    try:
        with pytest.raises(UntranslatableModelError, match="query"):
            await client.query_points(COLLECTION, query=some_id, using=f.DENSE)  # by point id
        with pytest.raises(UntranslatableModelError, match=r"Prefetch\.params"):
            await client.query_points(
                COLLECTION,
                prefetch=[
                    models.Prefetch(
                        query=[0.0] * DIMENSIONS,
                        using=f.DENSE,
                        params=models.SearchParams(hnsw_ef=8),
                    )
                ],
                query=models.FusionQuery(fusion=models.Fusion.RRF),
            )
        with pytest.raises(UntranslatableModelError, match="points_selector"):
            await client.delete(COLLECTION, points_selector=[some_id])
        with pytest.raises(UntranslatableModelError, match="points"):
            await client.upsert(
                COLLECTION,
                points=models.Batch(ids=[some_id], vectors={f.DENSE: [[0.0] * DIMENSIONS]}),
            )
        with pytest.raises(UntranslatableModelError, match="payload index schema"):
            await client.create_payload_index(
                COLLECTION, f.TEXT, field_schema=models.TextIndexParams(type="text")
            )
        with pytest.raises(UntranslatableModelError, match=r"VectorParams\.on_disk"):
            await client.create_collection(
                "other",
                vectors_config={
                    f.DENSE: models.VectorParams(size=2, distance=models.Distance.DOT, on_disk=True)
                },
            )
    finally:
        await chunks.close()


async def test_a_shard_open_in_another_process_is_reported_plainly(tmp_path: Path) -> None:
    client = EdgeQdrantClient(tmp_path)
    index = ChunkIndex(client, "held", 8)
    await index.ensure()
    holder = subprocess.run(
        [
            sys.executable,
            "-c",
            "import asyncio, sys\n"
            "from pathlib import Path\n"
            "from core.index import EdgeQdrantClient, IndexInUseError\n"
            "async def main():\n"
            "    try:\n"
            "        await EdgeQdrantClient(Path(sys.argv[1])).count('held')\n"
            "    except IndexInUseError as error:\n"
            "        print(error)\n"
            "asyncio.run(main())\n",
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
        cwd=REPO_ROOT,
        timeout=60,
    )
    await index.close()
    assert "open in another coursebot process" in holder.stdout, holder.stderr


# --- teaching or logistics -----------------------------------------------------------------


async def test_a_teaching_search_leaves_logistics_out_and_keeps_unclassified_chunks(
    index: ChunkIndex,
) -> None:
    await index.upsert(
        [
            chunk_point("notes.md", "g", 0, extra={f.CONTENT_KIND: "teaching"}),
            chunk_point("syllabus.md", "g", 1, extra={f.CONTENT_KIND: "logistics"}),
            chunk_point("old.md", "g", 2),  # stored before chunks were classified
        ]
    )
    dense = [1.0] + [0.0] * (DIMENSIONS - 1)
    sparse = SparseVector(indices=[0, 1, 2], values=[1.0, 1.0, 1.0])
    for mode in SearchMode:

        async def names(content: ContentKind | None) -> set[str]:
            hits = await index.search(student(), dense, sparse, 10, mode, content=content)  # noqa: B023
            return {hit.chunk.file_name for hit in hits}

        assert await names(ContentKind.TEACHING) == {"notes.md", "old.md"}, mode
        assert await names(ContentKind.LOGISTICS) == {"syllabus.md", "old.md"}, mode
        assert await names(None) == {"notes.md", "syllabus.md", "old.md"}, mode
