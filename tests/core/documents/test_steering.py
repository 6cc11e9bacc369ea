"""Retrieval steered by the documents a question names: their best passage first, superseded
curricula after the current one, the programme document for programme questions; every hit
still within the asker's tenant scope."""

from __future__ import annotations

from pathlib import Path

from support.programme import PROGRAMME

from core.context import Context
from core.documents import Mentions
from core.embedding.minilm_onnx import MiniLMOnnxEmbedder
from core.index import ChunkIndex, ChunkRecord, SearchHit, SparseEncoder
from core.retrieval import VARIANTS, Retriever, steer
from ingestion import Ingestor, SourceFile

COURSE = "bit-ai"
CTX = Context(platform="test", course_id=COURSE, user_id="student")

SYLLABUS = """# Syllabus: {code}

## General information

| Syllabus English: | {name} |
|---|---|
| Subject Code: | {code} |

## Assessment

Progress tests count for 30% of the grade and the final exam for {final}%.
"""

CURRICULUM = """# Curriculum: {intake}

| CurriculumCode: | BIT_AI_{code} |
|---|---|

## Curriculum details

| SubjectCode | Subject Name | Semester | NoCredit |
|---|---|---|---|
| MAS291 | Statistics | {semester} | 3 |
"""


async def ingest(tmp_path: Path, index: ChunkIndex, embedder: MiniLMOnnxEmbedder) -> None:
    files = {
        "MAS291.md": SYLLABUS.format(code="MAS291", name="Xác suất thống kê", final=35),
        "AIL303m.md": SYLLABUS.format(code="AIL303m", name="Machine Learning", final=40),
        "DPL302m.md": SYLLABUS.format(code="DPL302m", name="Deep Learning", final=45),
        "Curriculum_k18.md": CURRICULUM.format(intake="K18D-K19A", code="K18D-19A", semester=3),
        "Curriculum_k20.md": CURRICULUM.format(intake="20D-21A", code="K20D-21A", semester=4),
    }
    sources = []
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
        sources.append(SourceFile(tmp_path / name, name))
    ingestor = Ingestor(index=index, embedder=embedder, sparse=SparseEncoder(), max_bytes=10**6)
    await ingestor.ingest(sources, COURSE)


async def test_a_named_document_comes_first_and_the_plain_fusion_does_not_know_it(
    tmp_path: Path, index: ChunkIndex, embedder: MiniLMOnnxEmbedder
) -> None:
    await ingest(tmp_path, index, embedder)
    steered = Retriever(index, embedder, SparseEncoder(), VARIANTS["dbsf+documents"])
    plain = Retriever(index, embedder, SparseEncoder(), VARIANTS["dbsf"])
    for question, expected in [
        ("whats the grading breakdown for MAS?", "MAS291.md"),
        ("how much is the final exam in Deep Learning?", "DPL302m.md"),
        ("how much is the final exam in AIL303m?", "AIL303m.md"),
    ]:
        hits = await steered.retrieve(CTX, question, k=5)
        assert hits[0].chunk.file_name == expected, question
    # A name written without its accents matches no word of the passages: only the
    # document's identity knows it.
    question = "how much is the final exam in xac suat thong ke?"
    assert (await steered.retrieve(CTX, question, k=5))[0].chunk.file_name == "MAS291.md"
    assert plain.config.steer is False


def record(document: str, number: int) -> SearchHit:
    chunk = ChunkRecord(f"{document}-{number}", COURSE, document, f"{document}.md", "text",
                        None, "", "syllabus", "public", None, number)  # fmt: skip
    return SearchHit(chunk, score=1.0 / (number + 1))


def test_steer_puts_named_documents_first_and_superseded_ones_last() -> None:
    ranked = [record("old", 0), record("a", 1), record("b", 2), record("named", 3)]
    found = Mentions(named=("named",), superseded=frozenset({"old"}))

    order = [hit.chunk.document_id for hit in steer(ranked, [], found)]

    assert order == ["named", "a", "b", "old"]


def test_a_named_document_outside_the_candidates_is_brought_in_by_its_own_search() -> None:
    ranked = [record("a", 0), record("b", 1)]
    own_search = [record("named", 7)]

    steered = steer(ranked, own_search, Mentions(named=("named",)))

    assert [hit.chunk.id for hit in steered] == ["named-7", "a-0", "b-1"]


def test_the_programme_document_is_put_second_only_when_missing_from_the_first_three() -> None:
    ranked = [record(name, n) for n, name in enumerate("abcdp")]
    moved = steer(ranked, [], Mentions(programme="p"))
    assert [hit.chunk.document_id for hit in moved] == ["a", "p", "b", "c", "d"]
    early = [record(name, n) for n, name in enumerate("apbcd")]
    assert steer(early, [], Mentions(programme="p")) == early


def test_a_group_document_is_put_third_only_when_none_is_in_the_first_three() -> None:
    ranked = [record(name, n) for n, name in enumerate("abcdg")]
    own_search = [record("g", 9)]
    moved = steer(ranked, own_search, Mentions(groups=("g", "h")))
    assert [hit.chunk.id for hit in moved] == ["a-0", "b-1", "g-9", "c-2", "d-3", "g-4"]
    early = [record(name, n) for n, name in enumerate("agbcd")]
    assert steer(early, own_search, Mentions(groups=("g",))) == early


async def test_a_combo_question_reads_a_document_listing_the_combos_early(
    tmp_path: Path, index: ChunkIndex, embedder: MiniLMOnnxEmbedder
) -> None:
    # The made-up programme: its combo document never says "combo" in the words asked for.
    sources = []
    for name, text in PROGRAMME.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
        sources.append(SourceFile(tmp_path / name, name))
    ingestor = Ingestor(index=index, embedder=embedder, sparse=SparseEncoder(), max_bytes=10**6)
    await ingestor.ingest(sources, COURSE)
    steered = Retriever(index, embedder, SparseEncoder(), VARIANTS["dbsf+documents"])

    hits = await steered.retrieve(
        CTX, "im into birds, is there any combo with a course on them?", k=5
    )

    assert "ZOO_COM_1.md" in [hit.chunk.file_name for hit in hits[:3]]


async def test_the_current_curriculum_comes_before_an_older_one_unless_that_one_is_named(
    tmp_path: Path, index: ChunkIndex, embedder: MiniLMOnnxEmbedder
) -> None:
    await ingest(tmp_path, index, embedder)
    steered = Retriever(index, embedder, SparseEncoder(), VARIANTS["dbsf+documents"])

    current = await steered.retrieve(CTX, "in which semester is Statistics?", k=10)
    older = await steered.retrieve(CTX, "in which semester is Statistics in K18-K19?", k=5)

    files = [hit.chunk.file_name for hit in current]
    assert files.index("Curriculum_k20.md") < files.index("Curriculum_k18.md")
    assert older[0].chunk.file_name == "Curriculum_k18.md"


async def test_a_programme_question_reads_the_current_programme_document_early(
    tmp_path: Path, index: ChunkIndex, embedder: MiniLMOnnxEmbedder
) -> None:
    await ingest(tmp_path, index, embedder)
    steered = Retriever(index, embedder, SparseEncoder(), VARIANTS["dbsf+documents"])

    hits = await steered.retrieve(CTX, "how much do progress tests count, per semester?", k=5)

    assert "Curriculum_k20.md" in [hit.chunk.file_name for hit in hits[:3]]


async def test_steering_never_leaves_the_askers_course(
    tmp_path: Path, index: ChunkIndex, embedder: MiniLMOnnxEmbedder
) -> None:
    await ingest(tmp_path, index, embedder)
    other = tmp_path / "other"
    other.mkdir()
    (other / "MAS291.md").write_text(SYLLABUS.format(code="MAS291", name="S", final=99))
    ingestor = Ingestor(index=index, embedder=embedder, sparse=SparseEncoder(), max_bytes=10**6)
    await ingestor.ingest([SourceFile(other / "MAS291.md", "MAS291.md")], "other-course")
    steered = Retriever(index, embedder, SparseEncoder(), VARIANTS["dbsf+documents"])

    hits = await steered.retrieve(CTX, "final exam weight of MAS291?", k=10)

    assert {hit.chunk.course_id for hit in hits} == {COURSE}
    assert "99%" not in hits[0].chunk.text
