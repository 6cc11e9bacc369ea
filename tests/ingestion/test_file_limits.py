"""Limits on what one file may hold (pages per PDF, slides per deck, passages per file) and
each student's notes quota (files, pages, bytes), through the real loaders and pipeline on
files made here."""

from __future__ import annotations

from pathlib import Path

import pypdfium2 as pdfium
import pytest
from fpdf import FPDF
from pptx import Presentation

import ingestion.loaders.pdf as pdf_loader
from core.embedding.minilm_onnx import MiniLMOnnxEmbedder
from core.index import ChunkIndex, SparseEncoder
from core.notes_quota import NotesQuota, NotesUsage
from ingestion import FileStatus, Ingestor, SourceFile
from ingestion.errors import FileTooLargeError
from ingestion.file_limits import MAX_PDF_PAGES, FileLimits
from ingestion.loaders import loader_for
from ingestion.loaders.pdf import load_pdf
from ingestion.loaders.pptx import load_pptx

COURSE = "math101"


def blank_pdf(path: Path, pages: int) -> Path:
    """Blank pages, cheaply: a 100,000-page file of them is 13 MB."""
    pdf = pdfium.PdfDocument.new()
    for _ in range(pages):
        pdf.new_page(612, 792).close()
    pdf.save(str(path))
    pdf.close()
    return path


def text_pdf(path: Path, pages: int, word: str = "limits") -> Path:
    pdf = FPDF()
    pdf.set_font("Helvetica", size=12)
    for number in range(1, pages + 1):
        pdf.add_page()
        pdf.set_y(80)  # below the margin where running headers are dropped
        pdf.multi_cell(0, 8, f"Notes on {word}, part {number}: the rule holds near a.")
    pdf.output(str(path))
    return path


def deck(path: Path, slides: int) -> Path:
    presentation = Presentation()
    for number in range(slides):
        slide = presentation.slides.add_slide(presentation.slide_layouts[1])
        slide.shapes.title.text = f"Slide {number + 1}"
        slide.placeholders[1].text_frame.text = "A limit describes behaviour near a point"
    presentation.save(str(path))
    return path


def test_a_pdf_over_the_page_limit_is_refused_before_any_page_is_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def read_page(*_: object) -> None:
        raise AssertionError("a page was read")

    monkeypatch.setattr(pdf_loader, "_read_page", read_page)
    huge = blank_pdf(tmp_path / "huge.pdf", 101)

    with pytest.raises(FileTooLargeError) as refused:
        load_pdf(huge, "huge.pdf", max_pages=100)

    assert str(refused.value) == (
        "huge.pdf has 101 pages; the limit is 100 pages per file: send the parts you need as "
        "smaller files."
    )


def test_the_default_loader_refuses_a_pdf_one_page_over_the_default(tmp_path: Path) -> None:
    over = blank_pdf(tmp_path / "reader.pdf", MAX_PDF_PAGES + 1)

    with pytest.raises(FileTooLargeError, match=f"{MAX_PDF_PAGES + 1:,} pages"):
        loader_for("reader.pdf")(over, "reader.pdf", False)


def test_a_pdf_at_the_limit_is_read(tmp_path: Path) -> None:
    document = load_pdf(text_pdf(tmp_path / "notes.pdf", 3), "notes.pdf", max_pages=3)
    assert document.page_count == 3


def test_a_deck_over_the_slide_limit_is_refused(tmp_path: Path) -> None:
    path = deck(tmp_path / "week1.pptx", 4)

    assert load_pptx(path, "week1.pptx", max_slides=4).page_count == 4
    with pytest.raises(FileTooLargeError, match=r"week1\.pptx has 4 slides; the limit is 3"):
        loader_for("week1.pptx", FileLimits(max_deck_slides=3))(path, "week1.pptx", False)


def ingestor_with(index: ChunkIndex, embedder: MiniLMOnnxEmbedder, **options: object) -> Ingestor:
    return Ingestor(
        index=index,
        embedder=embedder,
        sparse=SparseEncoder(),
        max_bytes=50 << 20,
        **options,  # type: ignore[arg-type]
    )


async def test_the_pipeline_refuses_a_pdf_over_the_page_limit_in_one_line(
    index: ChunkIndex, embedder: MiniLMOnnxEmbedder, tmp_path: Path
) -> None:
    ingestor = ingestor_with(index, embedder, limits=FileLimits(max_pdf_pages=10))
    huge = blank_pdf(tmp_path / "huge.pdf", 11)

    [result] = (await ingestor.ingest([SourceFile.at(huge)], COURSE, owner_id="eve")).results

    assert result.status is FileStatus.FAILED
    assert result.error.startswith("huge.pdf has 11 pages; the limit is 10 pages")
    assert "\n" not in result.error
    assert await index.notes_of("eve") == []


async def test_a_file_making_more_passages_than_the_limit_is_refused_before_embedding(
    index: ChunkIndex, embedder: MiniLMOnnxEmbedder, tmp_path: Path
) -> None:
    embedded: list[int] = []

    class Counting:
        def __getattr__(self, name: str) -> object:
            return getattr(embedder, name)

        async def embed_with_units(self, texts: list[str]) -> object:
            embedded.append(len(texts))
            return await embedder.embed_with_units(texts)

    ingestor = ingestor_with(index, Counting(), limits=FileLimits(max_chunks=3))  # type: ignore[arg-type]
    path = tmp_path / "notes.txt"
    path.write_text("\n\n".join(f"Page {n}. " + "A long sentence. " * 80 for n in range(8)))

    [result] = (await ingestor.ingest([SourceFile.at(path)], COURSE)).results

    assert result.status is FileStatus.FAILED
    assert "passages; the limit is 3 passages per file" in result.error
    assert embedded == []


async def test_the_notes_quota_refuses_the_next_file_and_counts_every_course(
    index: ChunkIndex, embedder: MiniLMOnnxEmbedder, tmp_path: Path
) -> None:
    quota = NotesQuota(max_files=2, max_pages=100, max_bytes=10 << 20)
    ingestor = ingestor_with(index, embedder, notes_quota=quota)
    first = text_pdf(tmp_path / "week1.pdf", 2)
    second = text_pdf(tmp_path / "week2.pdf", 2, "derivatives")
    third = text_pdf(tmp_path / "week3.pdf", 2, "integrals")

    one = await ingestor.ingest([SourceFile.at(first)], COURSE, owner_id="eve")
    two = await ingestor.ingest([SourceFile.at(second)], "phys101", owner_id="eve")
    [refused] = (await ingestor.ingest([SourceFile.at(third)], COURSE, owner_id="eve")).results

    assert not one.failed and not two.failed
    assert refused.status is FileStatus.FAILED
    assert refused.error == (
        "your private notes are limited to 2 files (you keep 2): remove notes you no longer "
        "need (/forget --private FILE), then send it again."
    )
    # A new version of a file she keeps replaces it; another student has her own quota;
    # course material has none.
    text_pdf(first, 3, "continuity")
    [again] = (await ingestor.ingest([SourceFile.at(first)], COURSE, owner_id="eve")).results
    assert again.status is FileStatus.REPLACED
    assert not (await ingestor.ingest([SourceFile.at(third)], COURSE, owner_id="ann")).failed
    assert not (await ingestor.ingest([SourceFile.at(third)], COURSE)).failed
    kept = {d.file_name: (d.pages, d.file_bytes) for d in await index.notes_of("eve")}
    assert kept == {
        "week1.pdf": (3, first.stat().st_size),
        "week2.pdf": (2, second.stat().st_size),
    }


async def test_the_notes_quota_counts_pages_and_bytes_within_one_run(
    index: ChunkIndex, embedder: MiniLMOnnxEmbedder, tmp_path: Path
) -> None:
    by_pages = ingestor_with(index, embedder, notes_quota=NotesQuota(max_pages=5))
    files = [text_pdf(tmp_path / f"part{n}.pdf", 2, f"topic{n}") for n in range(3)]

    report = await by_pages.ingest([SourceFile.at(f) for f in files], COURSE, owner_id="eve")

    assert [r.status for r in report.results] == [FileStatus.ADDED] * 2 + [FileStatus.FAILED]
    assert "limited to 5 pages (you keep 4; this file has 2)" in report.results[2].error

    big = tmp_path / "big.md"
    big.write_text("# Notes\n\n" + "The chain rule applies. " * 50_000)  # 1.1 MB
    by_bytes = ingestor_with(index, embedder, notes_quota=NotesQuota(max_bytes=1 << 20))
    [result] = (await by_bytes.ingest([SourceFile.at(big)], COURSE, owner_id="eve")).results
    assert result.status is FileStatus.FAILED
    assert "your private notes are limited to 1 MB (you keep 0.0 MB; this file is 1.1 MB)" in (
        result.error
    )


def test_notes_usage_adds_up_and_the_quota_says_nothing_within_it() -> None:
    quota = NotesQuota(max_files=2, max_pages=10, max_bytes=1000)
    assert quota.refusal(NotesUsage(1, 5, 500), NotesUsage(1, 5, 500)) is None
    assert quota.refusal(NotesUsage(1, 5, 500), NotesUsage(1, 5, 501)) is not None
    assert NotesUsage(1, 2, 3) + NotesUsage(1, 1, 1) - NotesUsage(5, 0, 0) == NotesUsage(0, 3, 4)
