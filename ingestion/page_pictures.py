"""A small picture of every page of a PDF, and of every slide of a deck LibreOffice has
printed to PDF (`ingestion.slide_pictures`), for citations to show (`core.page_pictures`
keeps them and says who may see them).

Pages are drawn by pypdfium2 about 800 px wide and reduced to 256 colours (a page of text is
a quarter of the bytes, and the PNG encodes faster). The height is capped, so a hostile page
size (a strip a few points wide and metres long) makes a small picture, not a giant one.
A page pdfium cannot draw is left out; a course whose pictures reach their cap keeps the
pages that fit and the rest are skipped and logged: pictures never fail an ingestion."""

from __future__ import annotations

import io
import threading
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from pathlib import Path

import pypdfium2 as pdfium
import structlog
from PIL import Image

from core.page_pictures import PageDraft

log = structlog.get_logger(__name__)

WIDTH_PX = 800
# A page taller than this (at 800 px wide) is drawn smaller: a long strip stays readable
# down to A4's proportions times two and never becomes a giant picture.
MAX_HEIGHT_PX = 2300
COLOURS = 256
PICTURED_SUFFIXES = (".pdf",)


@dataclass(frozen=True, slots=True)
class Pictured:
    """What came of picturing one file."""

    pages: int = 0
    bytes: int = 0
    capped: bool = False  # the course's cap stopped it before the last page


def pictured(file_name: str) -> bool:
    """Whether pages of this kind of file are pictured."""
    return file_name.lower().endswith(PICTURED_SUFFIXES)


def page_scale(width_pt: float, height_pt: float) -> float:
    """The scale that draws a page WIDTH_PX wide, less when it would be over MAX_HEIGHT_PX."""
    scale = WIDTH_PX / max(width_pt, 1.0)
    if height_pt * scale > MAX_HEIGHT_PX:
        scale = MAX_HEIGHT_PX / max(height_pt, 1.0)
    return scale


def picture_pdf(
    path: Path,
    draft: PageDraft,
    room: int,
    *,
    lock: threading.Lock | None = None,
    file_name: str = "",
    pages: int | None = None,
) -> Pictured:
    """Write a picture of each page of the PDF at `path` into `draft`, within `room` bytes.
    `lock` is held for each call into pdfium (it is not thread-safe), not while encoding;
    `pages`, when given, is the page count the PDF must have (ValueError otherwise).
    Blocking: run it in a worker thread."""
    held: AbstractContextManager[object] = lock if lock is not None else nullcontext()
    written = done = 0
    with held:
        pdf = pdfium.PdfDocument(path)
    try:
        with held:
            count = len(pdf)
        if pages is not None and count != pages:
            raise ValueError(f"{count} pages printed of {pages} expected")
        for number in range(1, count + 1):
            try:
                with held:
                    image = _draw(pdf, number)
            except pdfium.PdfiumError as error:
                log.warning("page not pictured", file=file_name, page=number, error=str(error))
                continue
            png = encode(image)
            if written + len(png) > room:
                log.warning(
                    "page pictures cap reached: the rest of the file is not pictured",
                    file=file_name,
                    course=draft.course_id,
                    pictured=done,
                    pages=count,
                )
                return Pictured(done, written, capped=True)
            written += draft.add(number, png)
            done += 1
    finally:
        with held:
            pdf.close()
    return Pictured(done, written)


def _draw(pdf: pdfium.PdfDocument, number: int) -> Image.Image:
    page = pdf[number - 1]
    try:
        width, height = page.get_size()
        bitmap = page.render(scale=page_scale(width, height))
        # A copy: the bitmap's buffer goes with the page.
        return bitmap.to_pil().convert("RGB")
    finally:
        page.close()


def encode(image: Image.Image) -> bytes:
    out = io.BytesIO()
    image.quantize(COLOURS, method=Image.Quantize.FASTOCTREE).save(out, format="PNG")
    return out.getvalue()
