"""Text of scanned PDF pages, read with the Tesseract binary.

A page with no text layer is rendered with pdfium and passed to `tesseract` on stdin; its
TSV output gives each recognised line with its box, so the PDF loader lays OCR'd lines out
into paragraphs and headings by the same rules as a page's own text. The binary is optional:
without it, `TesseractOcr.find` gives None and scanned PDFs are refused as before."""

from __future__ import annotations

import csv
import io
import os
import shutil
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c
import structlog

from ingestion.errors import FileTooLargeError

log = structlog.get_logger(__name__)

# 300 dpi is what Tesseract is trained for; smaller text is misread below ~200.
RENDER_DPI = 300
# A poster-sized page is rendered smaller, so one page never makes a 100-megapixel image.
MAX_RENDER_SIDE = 5000
PAGE_TIMEOUT_S = 60.0
# A whole scanned reader is ~300 pages; at ~2 s a page that is minutes of one core's work.
MAX_OCR_PAGES = 300
# Words Tesseract gives less confidence (0-100) than this are mostly specks and picture
# fragments, not text.
MIN_WORD_CONFIDENCE = 30.0
POINTS_PER_INCH = 72


@dataclass(frozen=True, slots=True)
class OcrLine:
    text: str
    box: tuple[float, float, float, float]  # left, bottom, right, top (PDF points)


@dataclass(frozen=True, slots=True)
class TesseractOcr:
    """`languages` in Tesseract's notation ("eng", "eng+vie"); `max_pages` scanned pages per
    file, past which the file is refused before any page is read."""

    binary: str
    languages: str = "eng"
    page_timeout_s: float = PAGE_TIMEOUT_S
    max_pages: int = MAX_OCR_PAGES

    @classmethod
    def find(
        cls,
        binary: str = "tesseract",
        languages: str = "eng",
        page_timeout_s: float = PAGE_TIMEOUT_S,
        max_pages: int = MAX_OCR_PAGES,
    ) -> TesseractOcr | None:
        """The OCR where `binary` (a name on PATH or a path) runs and has `languages`'
        data; None (with a warning) where it doesn't, so scanned PDFs are refused."""
        found = shutil.which(binary)
        if found is None:
            # Debug only: every command looks, and a scanned PDF's refusal says it to the user.
            log.debug("tesseract not found: scanned PDFs are refused", binary=binary)
            return None
        installed = _installed_languages(found)
        missing = [name for name in languages.split("+") if name not in installed]
        if missing:
            log.warning(
                "tesseract lacks language data: scanned PDFs are refused",
                missing=missing,
                installed=sorted(installed),
            )
            return None
        return cls(found, languages, page_timeout_s, max_pages)

    def read_pages(
        self, pdf: pdfium.PdfDocument, numbers: Sequence[int], file_name: str
    ) -> dict[int, list[OcrLine]]:
        """The lines of the pages `numbers` (1-based) that have something drawn on them;
        a page Tesseract fails on or times out on is skipped with a warning."""
        drawn = [number for number in numbers if _has_objects(pdf, number)]
        if len(drawn) > self.max_pages:
            raise FileTooLargeError(
                f"{file_name} has {len(drawn):,} scanned pages; at most {self.max_pages:,} "
                "scanned pages per file are read: send the parts you need as smaller files."
            )
        read = {}
        for number in drawn:
            lines = self._read_page(pdf, number, file_name)
            if lines is not None:
                read[number] = lines
        return read

    def _read_page(
        self, pdf: pdfium.PdfDocument, number: int, file_name: str
    ) -> list[OcrLine] | None:
        page = pdf[number - 1]
        try:
            width, height = page.get_size()
            scale = min(RENDER_DPI / POINTS_PER_INCH, MAX_RENDER_SIDE / max(width, height, 1))
            image = page.render(scale=scale, grayscale=True).to_pil()
        finally:
            page.close()
        png = io.BytesIO()
        image.save(png, format="PNG")
        try:
            tsv = self._run(png.getvalue())
        except (subprocess.TimeoutExpired, subprocess.CalledProcessError, OSError) as error:
            log.warning("OCR failed on a page", file=file_name, page=number, error=str(error))
            return None
        return _tsv_lines(tsv, scale, height)

    def _run(self, png: bytes) -> str:
        # One thread per process: ingestion already runs files side by side, and Tesseract's
        # own threads only slow a small machine down.
        env = {**os.environ, "OMP_THREAD_LIMIT": "1"}
        done = subprocess.run(
            [self.binary, "stdin", "stdout", "-l", self.languages, "tsv"],
            input=png,
            capture_output=True,
            timeout=self.page_timeout_s,
            check=True,
            env=env,
        )
        return done.stdout.decode("utf-8", errors="replace")


def _installed_languages(binary: str) -> set[str]:
    try:
        done = subprocess.run([binary, "--list-langs"], capture_output=True, timeout=30, check=True)
    except (subprocess.SubprocessError, OSError):
        return set()
    # The first line says where the data lives; each further line is one language.
    return set(done.stdout.decode(errors="replace").split()[1:]) - {"osd"}


def _has_objects(pdf: pdfium.PdfDocument, number: int) -> bool:
    """A blank page (nothing drawn) is not worth a render and a Tesseract run."""
    page = pdf[number - 1]
    try:
        return int(pdfium_c.FPDFPage_CountObjects(page)) > 0
    finally:
        page.close()


def _tsv_lines(tsv: str, scale: float, page_height: float) -> list[OcrLine]:
    """Words grouped into their lines, in Tesseract's reading order, boxes in PDF points."""
    lines: dict[tuple[str, str, str], list[dict[str, str]]] = {}
    for row in csv.DictReader(io.StringIO(tsv), delimiter="\t", quoting=csv.QUOTE_NONE):
        text = (row.get("text") or "").strip()
        if row.get("level") != "5" or not text:
            continue
        if float(row.get("conf") or -1) < MIN_WORD_CONFIDENCE:
            continue
        key = (row["block_num"], row["par_num"], row["line_num"])
        lines.setdefault(key, []).append(row)
    found = []
    for words in lines.values():
        left = min(int(word["left"]) for word in words)
        top = min(int(word["top"]) for word in words)
        right = max(int(word["left"]) + int(word["width"]) for word in words)
        bottom = max(int(word["top"]) + int(word["height"]) for word in words)
        text = " ".join(word["text"].strip() for word in words)
        box = (left / scale, page_height - bottom / scale, right / scale, page_height - top / scale)
        found.append(OcrLine(text, box))
    return found
