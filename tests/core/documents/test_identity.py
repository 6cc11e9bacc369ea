"""A document's identity read at ingestion: codes, names and aliases, the programme flag and
the version of a curriculum; stored with every chunk and read back per course."""

from __future__ import annotations

from pathlib import Path

from support.programme import PROGRAMME

from core.context import Context
from core.documents import DocumentDirectory, DocumentIdentity
from core.embedding.minilm_onnx import MiniLMOnnxEmbedder
from core.index import ChunkIndex, SparseEncoder
from ingestion import Ingestor, SourceFile
from ingestion.document_identity import identify
from ingestion.loaders import loader_for

SYLLABUS = """# Syllabus: AIL303m

## General information

| Syllabus Name: | Machine Learning_Học máy |
|---|---|
| Syllabus English: | Machine Learning |
| Subject Code: | AIL303m |
| NoCredit: | 3 |

## Assessment

The mini capstone counts for 30% of the grade.
"""

CURRICULUM = """# Curriculum: {intake}

## General information

| CurriculumCode: | BIT_AI_{code} |
|---|---|
| English Name: | Bachelor Program of Information Technology, Artificial Intelligence |

## Curriculum details

| SubjectCode | Subject Name | Semester | NoCredit | PreRequisite |
|---|---|---|---|---|
| AIL303m | Machine Learning | 5 | 3 | MAS291 |
"""


def load(tmp_path: Path, name: str, text: str) -> DocumentIdentity:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return identify(loader_for(name)(path, name, False))


def test_a_syllabus_is_known_by_its_code_and_its_names_in_both_languages(tmp_path: Path) -> None:
    identity = load(tmp_path, "AIL303m.md", SYLLABUS)
    assert identity.codes == ("ail303m",)
    assert {"machine learning", "hoc may"} <= set(identity.names)
    assert not identity.programme and identity.family == ""


def test_a_document_titled_as_a_pathway_lists_course_groups(tmp_path: Path) -> None:
    assert load(tmp_path, "ZOO_COM_1.md", PROGRAMME["ZOO_COM_1.md"]).groups
    assert not load(tmp_path, "MAR301.md", PROGRAMME["MAR301.md"]).groups
    assert not load(tmp_path, "Curriculum_k30.md", PROGRAMME["Curriculum_k30.md"]).groups


def test_curricula_are_versions_of_one_programme_ordered_by_intake(tmp_path: Path) -> None:
    old = load(
        tmp_path, "Curriculum_k18.md", CURRICULUM.format(intake="K18D-K19A", code="K18D-19A")
    )
    new = load(tmp_path, "Curriculum_k20.md", CURRICULUM.format(intake="20D-21A", code="K20D-21A"))
    assert old.programme and new.programme
    assert old.family == new.family == "programme"
    assert (old.version, new.version) == ((18, 19), (20, 21))


async def test_identities_are_stored_with_the_chunks_and_read_back_per_course(
    tmp_path: Path, index: ChunkIndex, embedder: MiniLMOnnxEmbedder
) -> None:
    ingestor = Ingestor(index=index, embedder=embedder, sparse=SparseEncoder(), max_bytes=10**6)
    path = tmp_path / "AIL303m.md"
    path.write_text(SYLLABUS, encoding="utf-8")
    notes = tmp_path / "my-notes.md"
    notes.write_text("# MAS291 notes\n\nMy own notes.", encoding="utf-8")
    await ingestor.ingest([SourceFile(path, path.name)], "ai")
    await ingestor.ingest([SourceFile(notes, notes.name)], "ai", owner_id="alice")
    directory = DocumentDirectory(index)

    identities = await directory.of("ai")

    assert [i.codes for i in identities.values()] == [("ail303m",)]  # private notes never named
    curriculum = tmp_path / "Curriculum_k20.md"
    curriculum.write_text(CURRICULUM.format(intake="20D-21A", code="K20D-21A"), encoding="utf-8")
    await ingestor.ingest([SourceFile(curriculum, curriculum.name)], "ai")
    assert len(await directory.of("ai")) == 2  # this process wrote to the course: read again
    assert await index.count(Context("t", "ai", "bob")) > 0
