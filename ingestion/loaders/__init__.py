"""File loaders by type. Each turns one file into a `LoadedDocument` of ordered blocks."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from pathlib import Path

from ingestion.documents import LoadedDocument
from ingestion.errors import UnsupportedFileError
from ingestion.file_limits import FileLimits
from ingestion.loaders.docx import load_docx
from ingestion.loaders.exercise import is_exercise_file, load_exercise
from ingestion.loaders.markdown import load_markdown
from ingestion.loaders.ocr import TesseractOcr
from ingestion.loaders.pdf import load_pdf
from ingestion.loaders.plain_text import load_text
from ingestion.loaders.pptx import load_pptx

Loader = Callable[[Path, str, bool], LoadedDocument]

LOADERS: dict[str, Loader] = {
    ".pdf": load_pdf,
    ".pptx": load_pptx,
    ".docx": load_docx,
    ".md": load_markdown,
    ".markdown": load_markdown,
    ".txt": load_text,
}


def supported_types() -> str:
    return ", ".join([*sorted(LOADERS), ".exercise.yaml"])


def loader_for(
    file_name: str, limits: FileLimits | None = None, ocr: TesseractOcr | None = None
) -> Loader:
    """The loader for a file name's type, bound to `limits` (the defaults when None) and to
    `ocr` for scanned PDF pages (None: none read), or UnsupportedFileError naming what is
    supported."""
    limits = limits or FileLimits()
    if is_exercise_file(file_name):
        return load_exercise
    suffix = Path(file_name).suffix.lower()
    loader = LOADERS.get(suffix)
    if loader is None:
        kinds = supported_types()
        shown = f"'{suffix}'" if suffix else "a file without an extension"
        raise UnsupportedFileError(f"{shown} is not a supported type (supported: {kinds})")
    if loader is load_pdf:
        return partial(load_pdf, max_pages=limits.max_pdf_pages, ocr=ocr)
    if loader is load_pptx:
        return partial(load_pptx, max_slides=limits.max_deck_slides)
    return loader
