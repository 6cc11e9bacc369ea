"""Plain text: paragraphs separated by blank lines."""

from __future__ import annotations

import re
from pathlib import Path

from ingestion.documents import Block, LoadedDocument
from ingestion.errors import CorruptFileError

_BLANK_LINES = re.compile(r"\n\s*\n")


def read_text(path: Path) -> str:
    """The file as text: UTF-8 (with or without BOM), else a clear error."""
    raw = path.read_bytes()
    if b"\x00" in raw[:4096]:
        raise CorruptFileError("this looks like a binary file, not text")
    try:
        return raw.decode("utf-8-sig").replace("\r\n", "\n")
    except UnicodeDecodeError:
        try:
            raw.decode("cp1252")
        except UnicodeDecodeError:
            raise CorruptFileError("the file is not valid UTF-8 text") from None
        raise CorruptFileError(
            "the file is not UTF-8 text (it looks like Latin-1/Windows-1252): re-save it as UTF-8"
        ) from None


def load_text(path: Path, file_name: str, with_images: bool = False) -> LoadedDocument:
    paragraphs = [p.strip() for p in _BLANK_LINES.split(read_text(path))]
    blocks = [Block(p) for p in paragraphs if p]
    return LoadedDocument(file_name=file_name, title=Path(file_name).stem, blocks=blocks)
