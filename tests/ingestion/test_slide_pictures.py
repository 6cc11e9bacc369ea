"""Pictures of a deck's slides, printed to PDF by LibreOffice where it is installed: one per
slide, numbered as the loader numbers slides (hidden ones included), private with a
student's notes, removed with their deck; without LibreOffice, or when it fails, hangs or
prints the wrong number of pages, the deck goes in without pictures."""

from __future__ import annotations

import io
import time
from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from PIL import Image
from pptx import Presentation
from pptx.dml.color import RGBColor

from core.embedding.minilm_onnx import MiniLMOnnxEmbedder
from core.errors import BadInputError
from core.index import ChunkIndex, SparseEncoder
from core.page_pictures import PagePictures
from ingestion import FileStatus, Ingestor, SourceFile
from ingestion.identity import document_id
from ingestion.page_pictures import WIDTH_PX
from ingestion.slide_pictures import SlideConverter
from tests.ingestion.test_page_pictures import COURSE, course_pdf, ctx, pictured_files

RED = RGBColor(0xE0, 0x10, 0x10)


def course_deck(path: Path, slides: int, *, hidden: int | None = None, red: int | None = None):
    """A deck of `slides` title-and-text slides; slide `hidden` hidden, slide `red` on red."""
    deck = Presentation()
    for number in range(1, slides + 1):
        slide = deck.slides.add_slide(deck.slide_layouts[1])
        slide.shapes.title.text = f"Limits, part {number}"
        slide.placeholders[1].text = f"Slide {number}: a limit describes where a function heads."
        if number == hidden:
            slide._element.set("show", "0")
        if number == red:
            slide.background.fill.solid()
            slide.background.fill.fore_color.rgb = RED
    deck.save(str(path))
    return path


def red_share(png: bytes) -> float:
    rgb = np.asarray(Image.open(io.BytesIO(png)).convert("RGB")).astype(int)
    red = (rgb[..., 0] > 180) & (rgb[..., 1] < 80) & (rgb[..., 2] < 80)
    return float(red.mean())


def ingestor_with(
    index: ChunkIndex, embedder: MiniLMOnnxEmbedder, pictures: PagePictures, slides: object
) -> Ingestor:
    return Ingestor(
        index=index, embedder=embedder, sparse=SparseEncoder(), max_bytes=5_000_000,
        pictures=pictures, slides=slides,  # type: ignore[arg-type]
    )  # fmt: skip


@pytest.fixture
def pictures(tmp_path: Path) -> PagePictures:
    return PagePictures(tmp_path / "pages", max_course_bytes=50_000_000)


@pytest.fixture
async def soffice_ingestor(
    index: ChunkIndex, embedder: MiniLMOnnxEmbedder, pictures: PagePictures
) -> AsyncIterator[Ingestor]:
    converter = SlideConverter.find()
    if converter is None:
        pytest.skip("LibreOffice (soffice) is not installed")
    yield ingestor_with(index, embedder, pictures, converter)


async def test_each_slide_is_pictured_in_the_loaders_numbering_hidden_slides_included(
    soffice_ingestor: Ingestor, pictures: PagePictures, tmp_path: Path
) -> None:
    path = course_deck(tmp_path / "week1.pptx", 3, hidden=2, red=3)
    report = await soffice_ingestor.ingest([SourceFile.at(path)], COURSE)
    assert report.results[0].status is FileStatus.ADDED
    doc = document_id(COURSE, "week1.pptx")
    assert pictured_files(pictures, doc) == ["p0001.png", "p0002.png", "p0003.png", "pages.json"]
    third = await pictures.show(ctx("bob", private=False), "week1.pptx", 3)
    assert Image.open(io.BytesIO(third.content)).width == WIDTH_PX
    assert third.caption == "week1.pptx, p. 3"
    # Slide 3 is the red one: a hidden slide 2 left out would have made it page 2.
    assert red_share(third.content) > 0.5
    second = await pictures.show(ctx("bob"), doc, 2)
    assert red_share(second.content) < 0.05
    assert await soffice_ingestor.forget(COURSE, "week1.pptx")
    assert pictured_files(pictures, doc) == []


async def test_a_students_deck_of_notes_is_pictured_for_her_alone(
    soffice_ingestor: Ingestor, pictures: PagePictures, tmp_path: Path
) -> None:
    path = course_deck(tmp_path / "my-slides.pptx", 1)
    await soffice_ingestor.ingest([SourceFile.at(path)], COURSE, owner_id="alice")
    doc = document_id(COURSE, "my-slides.pptx", "alice")
    assert (await pictures.show(ctx("alice"), doc, 1)).private
    with pytest.raises(BadInputError, match="no picture"):
        await pictures.show(ctx("bob"), "my-slides.pptx", 1)


async def test_without_libreoffice_a_deck_goes_in_without_pictures(
    index: ChunkIndex, embedder: MiniLMOnnxEmbedder, pictures: PagePictures, tmp_path: Path
) -> None:
    assert SlideConverter.find(str(tmp_path / "no-soffice")) is None
    ingestor = ingestor_with(index, embedder, pictures, None)
    notes = tmp_path / "notes.md"
    notes.write_text("# Limits\n\nA limit describes where a function heads.\n", encoding="utf-8")
    deck = course_deck(tmp_path / "week1.pptx", 2)
    report = await ingestor.ingest([SourceFile.at(notes), SourceFile.at(deck)], COURSE)
    assert [r.status for r in report.results] == [FileStatus.ADDED, FileStatus.ADDED]
    assert not pictures.root.exists() or list(pictures.root.rglob("*")) == []


def fake_soffice(tmp_path: Path, body: str) -> SlideConverter:
    """A stand-in for soffice running `body` (a shell script; $OUT is its --outdir)."""
    script = tmp_path / "soffice"
    script.write_text(
        f'#!/bin/sh\nwhile [ $# -gt 0 ]; do [ "$1" = --outdir ] && OUT="$2"; shift; done\n{body}\n',
        encoding="utf-8",
    )
    script.chmod(0o755)
    converter = SlideConverter.find(str(script), timeout_s=1.0)
    assert converter is not None
    return converter


@pytest.mark.parametrize(
    "body",
    [
        "sleep 30 & sleep 30",  # hangs (and its child with it): killed at the time limit
        "echo 'Error: source file could not be loaded' >&2; exit 1",  # fails
        "exit 0",  # says it worked and wrote nothing
        'mkdir -p "$OUT" && cp "$ONE_PAGE" "$OUT/deck.pdf"',  # one page for two slides
    ],
    ids=["hangs", "fails", "writes-nothing", "wrong-page-count"],
)
async def test_a_deck_libreoffice_cannot_print_goes_in_without_pictures(
    index: ChunkIndex,
    embedder: MiniLMOnnxEmbedder,
    pictures: PagePictures,
    tmp_path: Path,
    body: str,
) -> None:
    one_page = course_pdf(tmp_path / "one.pdf", 1)
    body = body.replace("$ONE_PAGE", str(one_page))
    ingestor = ingestor_with(index, embedder, pictures, fake_soffice(tmp_path, body))
    deck = course_deck(tmp_path / "week1.pptx", 2)
    started = time.monotonic()
    report = await ingestor.ingest([SourceFile.at(deck)], COURSE)
    assert time.monotonic() - started < 20
    assert report.results[0].status is FileStatus.ADDED and report.results[0].chunks > 0
    assert pictured_files(pictures, document_id(COURSE, "week1.pptx")) == []
    assert not any(p.name.startswith(".draft-") for p in pictures.root.rglob("*"))


async def test_pages_are_pictured_beside_the_embedder(
    index: ChunkIndex,
    embedder: MiniLMOnnxEmbedder,
    pictures: PagePictures,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """LibreOffice prints the deck only once the deck's chunks are being embedded: drawn
    before embedding, as one step after the other, it would wait in vain and time out."""
    embedding = tmp_path / "embedding-started"
    for name in ("embed", "embed_with_units"):
        inner = getattr(embedder, name)

        async def marked(texts, inner=inner):  # type: ignore[no-untyped-def]
            embedding.touch()
            return await inner(texts)

        monkeypatch.setattr(embedder, name, marked)
    one_page = course_pdf(tmp_path / "one.pdf", 1)
    body = (
        f'for i in $(seq 100); do [ -f "{embedding}" ] && break; sleep 0.05; done\n'
        f'[ -f "{embedding}" ] && mkdir -p "$OUT" && cp "{one_page}" "$OUT/deck.pdf"'
    )
    converter = fake_soffice(tmp_path, body)
    ingestor = ingestor_with(index, embedder, pictures, replace(converter, timeout_s=30.0))
    deck = course_deck(tmp_path / "week1.pptx", 1)
    report = await ingestor.ingest([SourceFile.at(deck)], COURSE)
    assert report.results[0].status is FileStatus.ADDED
    assert pictured_files(pictures, document_id(COURSE, "week1.pptx")) == [
        "p0001.png",
        "pages.json",
    ]
