"""Scanned PDF pages read with Tesseract: pages made here as pictures of text (Pillow) placed
in a PDF with no text layer (fpdf2).

The tests that run Tesseract need its binary and English data; they skip without them,
except where CI_REQUIRE_TESSERACT is set (CI installs Tesseract and must run them)."""

from __future__ import annotations

import io
import os
from pathlib import Path

import pypdfium2 as pdfium
import pytest
from fpdf import FPDF
from PIL import Image, ImageDraw, ImageFont

from ingestion.errors import EmptyFileError, FileTooLargeError
from ingestion.file_limits import FileLimits
from ingestion.loaders import loader_for
from ingestion.loaders.ocr import TesseractOcr
from ingestion.loaders.pdf import load_pdf

SCANNED_LINES = (
    "Photosynthesis Overview",
    "",
    "Chloroplasts capture sunlight and turn",
    "carbon dioxide and water into sugar in",
    "the stroma, where the Calvin cycle fixes",
    "carbon from the air into glucose.",
    "",
    "Light reactions split water and release",
    "oxygen into the leaf and then the air.",
)

_OCR = TesseractOcr.find()
_REQUIRED = bool(os.environ.get("CI_REQUIRE_TESSERACT"))
needs_tesseract = pytest.mark.skipif(
    _OCR is None and not _REQUIRED, reason="tesseract with English data is not installed"
)


def _ocr() -> TesseractOcr:
    assert _OCR is not None, "CI_REQUIRE_TESSERACT is set but tesseract (eng) is missing"
    return _OCR


def _scan(lines: tuple[str, ...]) -> bytes:
    """A picture of a printed page: black text on white, 200 dpi, as a PNG."""
    image = Image.new("L", (1700, 2200), 255)
    draw = ImageDraw.Draw(image)
    font = ImageFont.load_default(size=44)
    for row, line in enumerate(lines):
        draw.text((150, 150 + 70 * row), line, fill=0, font=font)
    png = io.BytesIO()
    image.save(png, format="PNG")
    return png.getvalue()


def _add_scanned_page(pdf: FPDF, lines: tuple[str, ...]) -> None:
    pdf.add_page()
    pdf.image(io.BytesIO(_scan(lines)), x=0, y=0, w=pdf.w, h=pdf.h)


def _scanned_pdf(path: Path, pages: int = 1) -> Path:
    pdf = FPDF(format="letter")
    for _ in range(pages):
        _add_scanned_page(pdf, SCANNED_LINES)
    path.write_bytes(bytes(pdf.output()))
    return path


def _has_text_layer(path: Path) -> bool:
    pdf = pdfium.PdfDocument(path)
    try:
        return any(page.get_textpage().get_text_range().strip() for page in pdf)
    finally:
        pdf.close()


def test_the_generated_scan_has_no_text_layer(tmp_path: Path) -> None:
    assert not _has_text_layer(_scanned_pdf(tmp_path / "scan.pdf"))


@needs_tesseract
def test_a_scanned_page_is_read_with_ocr(tmp_path: Path) -> None:
    document = load_pdf(_scanned_pdf(tmp_path / "scan.pdf"), "scan.pdf", ocr=_ocr())

    text = " ".join(block.text for block in document.blocks)
    for word in ("Photosynthesis", "Chloroplasts", "sunlight", "glucose", "stroma"):
        assert word in text
    assert document.page_count == 1
    assert {block.page for block in document.blocks} == {1}


@needs_tesseract
def test_ocr_lines_are_laid_out_into_a_heading_and_a_paragraph(tmp_path: Path) -> None:
    """Tesseract's line boxes go through the loader's layout rules: the title line stands
    apart above, the lines under it wrap into paragraphs split at the blank line."""
    document = load_pdf(_scanned_pdf(tmp_path / "scan.pdf"), "scan.pdf", ocr=_ocr())

    assert document.blocks[0].text == "Photosynthesis Overview"
    assert [block.section for block in document.blocks[1:]] == [("Photosynthesis Overview",)] * 2
    assert "sunlight and turn\ncarbon dioxide" in document.blocks[1].text
    assert document.blocks[1].text.endswith("into glucose.")
    assert document.blocks[2].text.startswith("Light reactions")


@needs_tesseract
def test_a_mixed_pdf_reads_only_its_pages_without_text_with_ocr(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pdf = FPDF(format="letter")
    pdf.add_page()
    pdf.set_font("helvetica", size=12)
    pdf.multi_cell(0, 6, "Typed page: the light reactions happen in the thylakoid membranes.")
    _add_scanned_page(pdf, SCANNED_LINES)
    path = tmp_path / "mixed.pdf"
    path.write_bytes(bytes(pdf.output()))
    ocr = _ocr()
    asked: list[list[int]] = []
    read_pages = TesseractOcr.read_pages

    def spy(self: TesseractOcr, pdf: pdfium.PdfDocument, numbers: list[int], name: str) -> object:
        asked.append(list(numbers))
        return read_pages(self, pdf, numbers, name)

    monkeypatch.setattr(TesseractOcr, "read_pages", spy)

    document = load_pdf(path, "mixed.pdf", ocr=ocr)

    assert asked == [[2]]
    by_page = {block.page: block.text for block in document.blocks}
    assert "thylakoid membranes" in by_page[1]
    assert "glucose" in " ".join(b.text for b in document.blocks if b.page == 2)


@needs_tesseract
def test_the_pipeline_loader_reads_scans_with_the_ocr_it_is_given(tmp_path: Path) -> None:
    loader = loader_for("scan.pdf", FileLimits(), _ocr())

    document = loader(_scanned_pdf(tmp_path / "scan.pdf"), "scan.pdf", False)

    assert "glucose" in " ".join(block.text for block in document.blocks)


def test_without_the_tesseract_binary_a_scan_is_refused_with_the_ocr_message(
    tmp_path: Path,
) -> None:
    missing = tmp_path / "bin" / "tesseract"  # a path with nothing there

    ocr = TesseractOcr.find(str(missing))
    assert ocr is None
    with pytest.raises(EmptyFileError, match="run it through OCR first"):
        loader_for("scan.pdf", FileLimits(), ocr)(
            _scanned_pdf(tmp_path / "scan.pdf"), "scan.pdf", False
        )


def test_tesseract_without_the_languages_asked_for_is_not_used(tmp_path: Path) -> None:
    """A binary that runs but lists no such language: scans are refused, not misread."""
    fake = tmp_path / "tesseract"
    fake.write_text('#!/bin/sh\necho "List of available languages (2):"\necho eng\necho osd\n')
    fake.chmod(0o755)

    assert TesseractOcr.find(str(fake), "eng") is not None
    assert TesseractOcr.find(str(fake), "eng+vie") is None


def test_a_page_tesseract_fails_on_is_skipped_and_an_all_failed_scan_is_refused(
    tmp_path: Path,
) -> None:
    failing = tmp_path / "tesseract"
    failing.write_text("#!/bin/sh\nexit 1\n")
    failing.chmod(0o755)
    ocr = TesseractOcr(str(failing))

    with pytest.raises(EmptyFileError, match="even with OCR"):
        load_pdf(_scanned_pdf(tmp_path / "scan.pdf"), "scan.pdf", ocr=ocr)


def test_a_page_over_the_ocr_timeout_is_given_up(tmp_path: Path) -> None:
    slow = tmp_path / "tesseract"
    slow.write_text("#!/bin/sh\nexec sleep 30\n")
    slow.chmod(0o755)
    ocr = TesseractOcr(str(slow), page_timeout_s=0.5)

    with pytest.raises(EmptyFileError, match="even with OCR"):
        load_pdf(_scanned_pdf(tmp_path / "scan.pdf"), "scan.pdf", ocr=ocr)


def test_more_scanned_pages_than_the_ocr_limit_are_refused_before_any_is_read(
    tmp_path: Path,
) -> None:
    never = tmp_path / "tesseract"
    never.write_text(f"#!/bin/sh\ntouch {tmp_path / 'ran'}\nexit 1\n")
    never.chmod(0o755)
    ocr = TesseractOcr(str(never), max_pages=2)

    with pytest.raises(FileTooLargeError, match="3 scanned pages; at most 2"):
        load_pdf(_scanned_pdf(tmp_path / "scan.pdf", pages=3), "scan.pdf", ocr=ocr)
    assert not (tmp_path / "ran").exists()


def test_blank_pages_are_not_sent_to_ocr(tmp_path: Path) -> None:
    never = tmp_path / "tesseract"
    never.write_text(f"#!/bin/sh\ntouch {tmp_path / 'ran'}\nexit 1\n")
    never.chmod(0o755)
    pdf = FPDF()
    pdf.add_page()
    pdf.set_font("helvetica", size=12)
    pdf.cell(0, 10, "Only this page has anything on it.")
    pdf.add_page()
    path = tmp_path / "blank.pdf"
    path.write_bytes(bytes(pdf.output()))

    document = load_pdf(path, "blank.pdf", ocr=TesseractOcr(str(never)))

    assert [block.text for block in document.blocks] == ["Only this page has anything on it."]
    assert not (tmp_path / "ran").exists()
