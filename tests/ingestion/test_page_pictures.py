"""Pictures of PDF pages kept at ingestion: written for each page, replaced and removed with
their document, private with a student's notes, within the course's cap, and small for a
hostile page size."""

from __future__ import annotations

import io
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from fpdf import FPDF
from PIL import Image

from core.context import Audience, Context
from core.embedding.minilm_onnx import MiniLMOnnxEmbedder
from core.errors import BadInputError
from core.index import ChunkIndex, SparseEncoder
from core.page_pictures import NO_PAGE, ONLY_ALONE, PagePictures
from core.visibility import Visibility
from ingestion import FileStatus, Ingestor, SourceFile
from ingestion.identity import document_id
from ingestion.page_pictures import MAX_HEIGHT_PX, WIDTH_PX, picture_pdf

COURSE = "math101"
OTHER_COURSE = "chem101"


def course_pdf(path: Path, pages: int, *, size: tuple[float, float] = (210, 297)) -> Path:
    """A PDF of `pages` pages of text, each saying its number (`size` in millimetres)."""
    pdf = FPDF(format=size)
    pdf.set_auto_page_break(False)
    for number in range(1, pages + 1):
        pdf.add_page()
        if size[0] < 20:  # no room for a line: a page of nothing
            continue
        pdf.set_font("helvetica", size=12)
        pdf.set_xy(10, pdf.h * 0.4)  # away from the margins, where headers are dropped
        pdf.multi_cell(
            w=min(pdf.w - 20, 180),
            text=f"Page {number} on limits. A limit describes where a function heads.",
        )
    pdf.output(str(path))
    return path


def ctx(user: str, *, course: str = COURSE, private: bool = True) -> Context:
    audience = Audience.PRIVATE if private else Audience.SHARED
    return Context(platform="test", course_id=course, user_id=user, audience=audience)


@pytest.fixture
def pictures(tmp_path: Path) -> PagePictures:
    return PagePictures(tmp_path / "pages", max_course_bytes=50_000_000)


@pytest.fixture
async def ingestor(
    index: ChunkIndex, embedder: MiniLMOnnxEmbedder, pictures: PagePictures
) -> AsyncIterator[Ingestor]:
    yield Ingestor(
        index=index, embedder=embedder, sparse=SparseEncoder(), max_bytes=5_000_000,
        pictures=pictures,
    )  # fmt: skip


def pictured_files(pictures: PagePictures, document: str, course: str = COURSE) -> list[str]:
    folder = pictures.root / course / document
    return sorted(p.name for p in folder.iterdir()) if folder.is_dir() else []


async def test_every_page_of_a_pdf_is_pictured_about_800_px_wide(
    ingestor: Ingestor, pictures: PagePictures, tmp_path: Path
) -> None:
    path = course_pdf(tmp_path / "week1.pdf", 3)
    report = await ingestor.ingest([SourceFile.at(path)], COURSE)
    assert report.results[0].status is FileStatus.ADDED
    doc = document_id(COURSE, "week1.pdf")
    assert pictured_files(pictures, doc) == ["p0001.png", "p0002.png", "p0003.png", "pages.json"]
    shown = await pictures.show(ctx("bob", private=False), "week1.pdf", 2)
    image = Image.open(io.BytesIO(shown.content))
    assert image.format == "PNG" and image.width == WIDTH_PX
    assert shown.caption == "week1.pdf, p. 2" and not shown.private
    # By its id too (what a button carries), for anyone in the course.
    assert (await pictures.show(ctx("carol"), doc, 2)).content == shown.content


async def test_pictures_are_replaced_and_removed_with_their_document(
    ingestor: Ingestor, pictures: PagePictures, tmp_path: Path
) -> None:
    path = course_pdf(tmp_path / "week1.pdf", 3)
    await ingestor.ingest([SourceFile.at(path)], COURSE)
    doc = document_id(COURSE, "week1.pdf")
    # A new version with fewer pages: the old third page's picture goes with the old version.
    course_pdf(path, 2)
    report = await ingestor.ingest([SourceFile.at(path)], COURSE)
    assert report.results[0].status is FileStatus.REPLACED
    assert pictured_files(pictures, doc) == ["p0001.png", "p0002.png", "pages.json"]
    with pytest.raises(BadInputError, match="no picture of page 3"):
        await pictures.show(ctx("bob"), doc, 3)
    assert await ingestor.forget(COURSE, "week1.pdf")
    assert pictured_files(pictures, doc) == []
    assert list((pictures.root / COURSE).iterdir()) == []  # no draft left behind
    with pytest.raises(BadInputError):
        await pictures.show(ctx("bob"), doc, 1)


async def test_a_students_notes_pages_are_hers_alone_and_only_where_she_reads_alone(
    ingestor: Ingestor, pictures: PagePictures, tmp_path: Path
) -> None:
    path = course_pdf(tmp_path / "my-notes.pdf", 1)
    await ingestor.ingest([SourceFile.at(path)], COURSE, owner_id="alice")
    doc = document_id(COURSE, "my-notes.pdf", "alice")
    shown = await pictures.show(ctx("alice"), doc, 1)
    assert shown.private
    # In a group she is told where to ask; nobody else learns the page exists.
    with pytest.raises(BadInputError, match="private notes") as elsewhere:
        await pictures.show(ctx("alice", private=False), doc, 1)
    assert str(elsewhere.value) == ONLY_ALONE
    for other in (ctx("bob"), ctx("bob", private=False), ctx("alice", course=OTHER_COURSE)):
        for named in (doc, "my-notes.pdf"):
            with pytest.raises(BadInputError) as refused:
                await pictures.show(other, named, 1)
            assert str(refused.value) == NO_PAGE.format(page=1, document=named)
    record = pictures._record(COURSE, doc)
    assert record is not None and record.visibility is Visibility.PRIVATE


async def test_another_courses_page_is_no_page_here(
    ingestor: Ingestor, pictures: PagePictures, tmp_path: Path
) -> None:
    path = course_pdf(tmp_path / "exam-key.pdf", 1)
    await ingestor.ingest([SourceFile.at(path)], OTHER_COURSE)
    doc = document_id(OTHER_COURSE, "exam-key.pdf")
    assert (await pictures.show(ctx("dan", course=OTHER_COURSE), doc, 1)).content
    for named in (doc, "exam-key.pdf"):
        with pytest.raises(BadInputError, match="no picture"):
            await pictures.show(ctx("dan"), named, 1)


async def test_the_course_cap_stops_pictures_but_never_the_ingestion(
    index: ChunkIndex, embedder: MiniLMOnnxEmbedder, tmp_path: Path
) -> None:
    # Room for about two of these pages (each some 10-20 KB).
    probe = PagePictures(tmp_path / "probe", 10**9)
    draft = probe.draft(COURSE, "0" * 16)
    one = picture_pdf(course_pdf(tmp_path / "probe.pdf", 1), draft, 10**9).bytes
    capped = PagePictures(tmp_path / "pages", max_course_bytes=int(2.5 * one))
    ingestor = Ingestor(
        index=index, embedder=embedder, sparse=SparseEncoder(), max_bytes=5_000_000,
        pictures=capped,
    )  # fmt: skip
    first = course_pdf(tmp_path / "week1.pdf", 4)
    second = course_pdf(tmp_path / "week2.pdf", 2)
    report = await ingestor.ingest([SourceFile.at(first), SourceFile.at(second)], COURSE)
    assert [r.status for r in report.results] == [FileStatus.ADDED, FileStatus.ADDED]
    assert report.results[0].chunks > 0 and report.pages == 6
    week1 = pictured_files(capped, document_id(COURSE, "week1.pdf"))
    week2 = pictured_files(capped, document_id(COURSE, "week2.pdf"))
    assert week1 == ["p0001.png", "p0002.png", "pages.json"]
    assert week2 == ["pages.json"]  # no room left: the record says no page is pictured
    used = sum(p.stat().st_size for p in (capped.root / COURSE).rglob("*.png"))
    assert used <= capped.max_course_bytes
    # Replacing week1 counts its own old pictures as gone: it gets its two pages again.
    course_pdf(first, 3)
    await ingestor.ingest([SourceFile.at(first)], COURSE)
    assert pictured_files(capped, document_id(COURSE, "week1.pdf"))[:2] == [
        "p0001.png",
        "p0002.png",
    ]


@pytest.mark.parametrize(
    "size_mm",
    [(5.0, 5000.0), (5000.0, 5000.0), (5000.0, 5.0)],
    ids=["a-tall-strip", "a-giant-square", "a-wide-strip"],
)
def test_a_hostile_page_size_makes_a_small_picture(
    size_mm: tuple[float, float], tmp_path: Path
) -> None:
    path = course_pdf(tmp_path / "hostile.pdf", 1, size=size_mm)
    draft = PagePictures(tmp_path / "pages", 10**9).draft(COURSE, "0" * 16)
    outcome = picture_pdf(path, draft, 10**9)
    assert outcome.pages == 1
    image = Image.open(draft.folder / "p0001.png")
    assert image.width <= WIDTH_PX and image.height <= MAX_HEIGHT_PX
    assert outcome.bytes < 200_000


async def test_slides_and_text_files_get_no_pictures(
    ingestor: Ingestor, pictures: PagePictures, tmp_path: Path
) -> None:
    """Without a slide converter (LibreOffice) only PDF pages are pictured."""
    from pptx import Presentation

    notes = tmp_path / "notes.md"
    notes.write_text("# Limits\n\nA limit describes where a function heads.\n", encoding="utf-8")
    deck = Presentation()
    slide = deck.slides.add_slide(deck.slide_layouts[1])
    slide.shapes.title.text = "Limits"
    slide.placeholders[1].text = "A limit describes where a function heads."
    deck.save(str(tmp_path / "week1.pptx"))
    sources = [SourceFile.at(notes), SourceFile.at(tmp_path / "week1.pptx")]
    report = await ingestor.ingest(sources, COURSE)
    assert [r.status for r in report.results] == [FileStatus.ADDED, FileStatus.ADDED]
    assert not pictures.root.exists() or list(pictures.root.rglob("*")) == []


async def test_no_store_keeps_no_pictures(
    index: ChunkIndex, embedder: MiniLMOnnxEmbedder, tmp_path: Path
) -> None:
    ingestor = Ingestor(index=index, embedder=embedder, sparse=SparseEncoder(), max_bytes=10**7)
    path = course_pdf(tmp_path / "week1.pdf", 1)
    report = await ingestor.ingest([SourceFile.at(path)], COURSE)
    assert report.results[0].status is FileStatus.ADDED
    assert not (tmp_path / "pages").exists()
