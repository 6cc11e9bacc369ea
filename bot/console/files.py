"""Files the bot sends (a chart, a CSV export) saved where the terminal's user can open them.

A chat platform uploads a `DocumentReply`; the console writes it to a folder and says where.
An existing file is never overwritten: the new one gets a counter (`mistakes-2.csv`)."""

from __future__ import annotations

import itertools
import unicodedata
from pathlib import Path

from core.replies import DocumentReply

# Under the directory the console was started in, where `ls` finds it.
DEFAULT_FOLDER = Path("coursebot-files")


def save_document(document: DocumentReply, folder: Path) -> Path:
    """Write `document` into `folder` (created if need be) under a name not yet taken."""
    folder.mkdir(parents=True, exist_ok=True)
    name = safe_file_name(document.file_name)
    stem, suffix = _split(name)
    for number in itertools.count(1):
        candidate = folder / (name if number == 1 else f"{stem}-{number}{suffix}")
        try:
            # "x": create, or fail if it exists, in one step: nothing is ever overwritten.
            with candidate.open("xb") as file:
                file.write(document.content)
        except FileExistsError:
            continue
        return candidate
    raise AssertionError("unreachable")


def safe_file_name(name: str) -> str:
    """`name` reduced to one harmless file name: no folders, no control characters."""
    base = name.replace("\\", "/").rsplit("/", 1)[-1]
    base = "".join(
        c for c in base if not unicodedata.category(c).startswith(("C", "Z")) or c == " "
    )
    base = base.strip().lstrip(".")
    return base or "file"


def shown_path(path: Path) -> str:
    """A relative path as `./folder/name`, so it reads as a path; absolute ones as they are."""
    text = str(path)
    return text if path.is_absolute() or text.startswith(".") else f"./{text}"


def _split(name: str) -> tuple[str, str]:
    suffix = Path(name).suffix
    return (name[: -len(suffix)], suffix) if suffix else (name, "")
