"""The ingestion pipeline end to end: real loaders, chunking, the bundled embedder and Qdrant
local mode; idempotence, replacement, forget, private notes and every bad input."""

from __future__ import annotations

import shutil
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from fpdf import FPDF

from core.context import Audience, Context
from core.embedding.minilm_onnx import MiniLMOnnxEmbedder
from core.index import ChunkIndex, SparseEncoder
from ingestion import FileStatus, Ingestor, IngestProgress, SourceFile, discover, indexer

COURSE = "math101"


@pytest.fixture
async def ingestor(index: ChunkIndex, embedder: MiniLMOnnxEmbedder) -> AsyncIterator[Ingestor]:
    yield Ingestor(index=index, embedder=embedder, sparse=SparseEncoder(), max_bytes=5_000_000)


def student(user: str = "alice", course: str = COURSE) -> Context:
    return Context(platform="test", course_id=course, user_id=user, audience=Audience.PRIVATE)


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


async def texts(index: ChunkIndex, ctx: Context) -> str:
    documents = await index.documents(ctx)
    hits = []
    for document in documents:
        hits.append(document.file_name)
    points, _ = await index.client.scroll(index.collection, limit=10_000, with_payload=True)
    return "\n".join(p.payload["text"] for p in points if p.payload["course_id"] == ctx.course_id)


async def test_sample_course_ingests_every_file(
    ingestor: Ingestor, index: ChunkIndex, sample_course: Path
) -> None:
    sources, problems = discover([sample_course])
    report = await ingestor.ingest(sources, COURSE)
    assert problems == []
    assert {r.file_name for r in report.results} == {
        "syllabus.md",
        "worked-exercises.md",
        "lecture-01-limits.pdf",
        "lecture-02-derivatives.pdf",
        "derivative-product-rule.exercise.yaml",
        "limits-basics.exercise.yaml",
        "power-rule-drill.exercise.yaml",
        "limit-difference-of-squares.exercise.yaml",
    }
    assert all(r.status is FileStatus.ADDED and r.chunks > 0 for r in report.results)
    documents = {d.file_name: d for d in await index.documents(student())}
    assert documents["lecture-01-limits.pdf"].kind == "slides"
    assert documents["syllabus.md"].kind == "syllabus"
    assert documents["worked-exercises.md"].kind == "exercises"
    assert documents["limits-basics.exercise.yaml"].kind == "guided_exercise"


async def test_invalid_exercise_file_is_rejected_with_line_and_reason(
    ingestor: Ingestor, index: ChunkIndex, tmp_path: Path
) -> None:
    bad = write(
        tmp_path / "broken.exercise.yaml",
        "id: broken\ntitle: Broken\ntopic: limits\nskills: [limits]\nsteps:\n"
        "  - prompt: What is 1+1?\n    skill: limits\n    hints: [count]\n"
        "    answer: {kind: numerc, value: 2}\n",
    )
    [result] = (await ingestor.ingest([SourceFile.at(bad)], COURSE)).results
    assert result.status is FileStatus.FAILED
    assert "broken.exercise.yaml line 9" in result.error
    assert "unknown kind 'numerc'" in result.error
    assert await index.documents(student()) == []


async def test_reingesting_unchanged_files_does_nothing(
    ingestor: Ingestor, index: ChunkIndex, tmp_path: Path
) -> None:
    note = write(tmp_path / "policies.md", "# Policies\n\nLate work loses 10% per day.\n")
    first = await ingestor.ingest([SourceFile.at(note)], COURSE)
    count = await index.count(student())
    second = await ingestor.ingest([SourceFile.at(note)], COURSE)
    assert first.results[0].status is FileStatus.ADDED
    assert second.results[0].status is FileStatus.UNCHANGED
    assert await index.count(student()) == count


async def test_changed_file_replaces_all_its_chunks(
    ingestor: Ingestor, index: ChunkIndex, tmp_path: Path
) -> None:
    path = tmp_path / "policies.md"
    old_sections = "\n\n".join(f"## Old rule {n}\n\nObsolete clause number {n}." for n in range(5))
    write(path, f"# Policies\n\n{old_sections}\n")
    await ingestor.ingest([SourceFile.at(path)], COURSE)
    write(path, "# Policies\n\n## Late work\n\nLate work loses 10% per day.\n")
    report = await ingestor.ingest([SourceFile.at(path)], COURSE)
    assert report.results[0].status is FileStatus.REPLACED
    stored = await texts(index, student())
    assert "Obsolete clause" not in stored
    assert "Late work loses 10% per day." in stored
    [document] = await index.documents(student())
    assert document.chunks == report.results[0].chunks


async def test_replacement_writes_the_new_version_before_removing_the_old(
    ingestor: Ingestor, index: ChunkIndex, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = write(tmp_path / "policies.md", "# Policies\n\nVersion one of the rules.\n")
    await ingestor.ingest([SourceFile.at(path)], COURSE)
    write(path, "# Policies\n\nVersion two of the rules.\n")
    seen_before_delete: list[str] = []
    delete = index.delete_document

    async def spying_delete(*args, **kwargs):
        seen_before_delete.append(await texts(index, student()))
        await delete(*args, **kwargs)

    monkeypatch.setattr(index, "delete_document", spying_delete)
    await ingestor.ingest([SourceFile.at(path)], COURSE)
    assert "Version one" in seen_before_delete[0] and "Version two" in seen_before_delete[0]
    assert "Version one" not in await texts(index, student())


async def test_failed_write_leaves_the_old_version_in_place(
    ingestor: Ingestor, index: ChunkIndex, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = write(tmp_path / "policies.md", "# Policies\n\nVersion one of the rules.\n")
    await ingestor.ingest([SourceFile.at(path)], COURSE)
    write(path, "# Policies\n\nVersion two of the rules.\n")

    async def failing_upsert(_points):
        raise ConnectionError("qdrant went away")

    monkeypatch.setattr(index, "upsert", failing_upsert)
    report = await ingestor.ingest([SourceFile.at(path)], COURSE)
    assert report.results[0].status is FileStatus.FAILED
    stored = await texts(index, student())
    assert "Version one" in stored and "Version two" not in stored


async def test_a_write_failing_after_some_batches_removes_the_batches_written(
    ingestor: Ingestor, index: ChunkIndex, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Points are built and written a batch at a time (memory): a failure part way removes
    what this version wrote, and the old version stays whole."""
    monkeypatch.setattr(indexer, "UPSERT_BATCH", 2)
    path = write(tmp_path / "policies.md", "# Policies\n\nVersion one of the rules.\n")
    await ingestor.ingest([SourceFile.at(path)], COURSE)
    sections = "".join(
        f"# Rule {n}\n\nVersion two of rule {n}. " + "More. " * 200 for n in range(6)
    )
    write(path, sections)
    upsert = index.upsert
    batches: list[int] = []

    async def failing_third_upsert(points):
        batches.append(len(points))
        if len(batches) == 3:
            raise ConnectionError("qdrant went away")
        await upsert(points)

    built: list[int] = []
    points = ingestor.writer._points

    def counted_points(meta, chunks, *rest):
        built.append(len(chunks))
        return points(meta, chunks, *rest)

    monkeypatch.setattr(index, "upsert", failing_third_upsert)
    monkeypatch.setattr(ingestor.writer, "_points", counted_points)
    report = await ingestor.ingest([SourceFile.at(path)], COURSE)

    assert report.results[0].status is FileStatus.FAILED
    assert batches == [2, 2, 2] and built == [2, 2, 2]
    stored = await texts(index, student())
    assert "Version one" in stored and "Version two" not in stored


async def test_forget_removes_a_document(
    ingestor: Ingestor, index: ChunkIndex, tmp_path: Path
) -> None:
    keep = write(tmp_path / "keep.md", "# Keep\n\nThis stays.\n")
    drop = write(tmp_path / "drop.md", "# Drop\n\nThis goes.\n")
    await ingestor.ingest([SourceFile.at(keep), SourceFile.at(drop)], COURSE)
    assert await ingestor.forget(COURSE, "drop.md")
    assert [d.file_name for d in await index.documents(student())] == ["keep.md"]
    assert not await ingestor.forget(COURSE, "drop.md")


async def test_private_notes_are_visible_to_their_owner_only(
    ingestor: Ingestor, index: ChunkIndex, tmp_path: Path
) -> None:
    notes = write(tmp_path / "notes.md", "# My notes\n\nRemember the chain rule.\n")
    await ingestor.ingest([SourceFile.at(notes)], COURSE, owner_id="alice")
    assert [d.file_name for d in await index.documents(student("alice"))] == ["notes.md"]
    assert await index.documents(student("bob")) == []
    [document] = await index.documents(student("alice"))
    assert document.private and document.kind == "notes"
    # Another student's notes of the same name never replace Alice's.
    await ingestor.ingest([SourceFile.at(notes)], COURSE, owner_id="bob")
    assert len(await index.documents(student("alice"))) == 1
    assert not await ingestor.forget(COURSE, "notes.md")  # public scope: nothing to remove
    assert await ingestor.forget(COURSE, "notes.md", owner_id="bob")
    assert len(await index.documents(student("alice"))) == 1


@pytest.mark.parametrize(
    ("name", "content", "reason"),
    [
        ("broken.pdf", b"%PDF-1.7\nthis is not really a pdf", "may be damaged"),
        ("empty.md", b"", "the file is empty"),
        ("spreadsheet.xlsx", b"PK\x03\x04whatever", "'.xlsx' is not a supported type"),
        ("huge.txt", b"x" * 6_000_000, "the limit is 5 MB"),
        ("blank.md", b"\n\n   \n", "no text could be found"),
    ],
)
async def test_bad_file_fails_alone_and_the_others_are_ingested(
    ingestor: Ingestor, index: ChunkIndex, tmp_path: Path, name: str, content: bytes, reason: str
) -> None:
    good = write(tmp_path / "good.md", "# Good\n\nThe final exam is on 14 December.\n")
    bad = tmp_path / name
    bad.write_bytes(content)
    report = await ingestor.ingest([SourceFile.at(bad), SourceFile.at(good)], COURSE)
    failed, ok = report.results
    assert failed.status is FileStatus.FAILED
    assert reason in failed.error.lower() or reason in failed.error
    assert ok.status is FileStatus.ADDED
    assert [d.file_name for d in await index.documents(student())] == ["good.md"]


async def test_encrypted_and_scanned_pdfs_fail_alone(
    ingestor: Ingestor, index: ChunkIndex, tmp_path: Path
) -> None:
    locked = FPDF()
    locked.add_page()
    locked.set_font("helvetica", size=12)
    locked.cell(text="Exam answers")
    locked.set_encryption(owner_password="owner", user_password="user")
    locked.output(str(tmp_path / "answers.pdf"))
    scanned = FPDF()
    scanned.add_page()
    scanned.rect(20, 20, 100, 60, style="F")
    scanned.output(str(tmp_path / "scan.pdf"))
    write(tmp_path / "good.md", "# Good\n\nStill ingested.\n")
    sources = [SourceFile.at(tmp_path / n) for n in ("answers.pdf", "scan.pdf", "good.md")]
    report = await ingestor.ingest(sources, COURSE)
    locked_result, scanned_result, good_result = report.results
    assert locked_result.status is FileStatus.FAILED
    assert "password-protected" in locked_result.error
    assert scanned_result.status is FileStatus.FAILED and "OCR" in scanned_result.error
    assert good_result.status is FileStatus.ADDED
    assert [d.file_name for d in await index.documents(student())] == ["good.md"]


async def test_corrupt_new_version_keeps_the_old_one(
    ingestor: Ingestor, index: ChunkIndex, tmp_path: Path, sample_course: Path
) -> None:
    deck = tmp_path / "lecture.pdf"
    shutil.copy(sample_course / "lecture-01-limits.pdf", deck)
    first = await ingestor.ingest([SourceFile.at(deck)], COURSE)
    deck.write_bytes(b"%PDF-1.4 truncated")
    second = await ingestor.ingest([SourceFile.at(deck)], COURSE)
    assert second.results[0].status is FileStatus.FAILED
    [document] = await index.documents(student())
    assert document.chunks == first.results[0].chunks


async def test_progress_reports_files_pages_and_chunks(
    ingestor: Ingestor, sample_course: Path
) -> None:
    seen: list[IngestProgress] = []

    async def record(progress: IngestProgress) -> None:
        seen.append(progress)

    sources = [
        SourceFile.at(sample_course / "lecture-01-limits.pdf"),
        SourceFile.at(sample_course / "syllabus.md"),
    ]
    report = await ingestor.ingest(sources, COURSE, on_progress=record)
    final = seen[-1]
    assert (final.files_done, final.files_total) == (2, 2)
    assert final.chunks == report.chunks and final.pages == report.pages == 8
    assert [p.files_done for p in seen] == sorted(p.files_done for p in seen)
    assert any(p.stage == "embedding" for p in seen)


def test_discover_walks_folders_and_reports_missing_paths(tmp_path: Path) -> None:
    (tmp_path / "course" / "week1").mkdir(parents=True)
    write(tmp_path / "course" / "week1" / "notes.md", "x")
    write(tmp_path / "course" / ".hidden.md", "x")
    found, problems = discover([tmp_path / "course", tmp_path / "nope.pdf"])
    assert [s.file_name for s in found] == ["notes.md"]
    assert problems[0].status is FileStatus.FAILED and problems[0].error == "no such file"


async def test_type_error_names_the_supported_types_before_any_file_is_read(
    ingestor: Ingestor,
) -> None:
    assert ingestor.type_error("notes.PDF") is None
    assert ingestor.type_error("limits.exercise.yaml") is None
    reason = ingestor.type_error("virus.exe")
    assert reason is not None and ".pdf" in reason


async def test_chunking_and_sparse_encoding_run_off_the_event_loop(
    ingestor: Ingestor, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import threading

    import ingestion.pipeline as pipeline

    loop_thread = threading.current_thread()
    threads: dict[str, set[threading.Thread]] = {"chunk": set(), "sparse": set()}
    chunk_document = pipeline.chunk_document
    encode_document = ingestor.writer.sparse.encode_document

    def chunk(*args, **kwargs):
        threads["chunk"].add(threading.current_thread())
        return chunk_document(*args, **kwargs)

    def encode(text: str):
        threads["sparse"].add(threading.current_thread())
        return encode_document(text)

    monkeypatch.setattr(pipeline, "chunk_document", chunk)
    monkeypatch.setattr(ingestor.writer.sparse, "encode_document", encode)
    notes = write(tmp_path / "notes.md", "# Limits\n\nA limit describes a value approached.\n")
    [result] = (await ingestor.ingest([SourceFile.at(notes)], COURSE)).results
    assert result.status is FileStatus.ADDED
    assert threads["chunk"] and loop_thread not in threads["chunk"]
    assert threads["sparse"] and loop_thread not in threads["sparse"]


def test_sparse_encoder_shared_between_threads_stems_alike() -> None:
    from concurrent.futures import ThreadPoolExecutor

    encoder = SparseEncoder()
    texts = [f"derivatives integrating limits continuity number {n}" for n in range(400)]
    expected = [SparseEncoder().encode_document(t) for t in texts]
    with ThreadPoolExecutor(8) as pool:
        assert list(pool.map(encoder.encode_document, texts)) == expected
