"""Files users send in a chat: checked before they are downloaded, kept in a private temporary
folder under their original (sanitised) names while they are ingested."""

from __future__ import annotations

import re
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from core.errors import BadInputError

_UNSAFE = re.compile(r"[^\w.\- ()]+")
# File systems allow 255 bytes per name; a margin for the suffixes tools add.
_MAX_NAME_BYTES = 200
_MAX_SUFFIX_BYTES = 32
_DOUBLE_SUFFIXES = (".exercise.yaml", ".exercise.yml")


def safe_file_name(name: str) -> str:
    """The file name a user sent, without folders or characters a file system may refuse,
    shortened to fit a file system but keeping its type (the loader is chosen by it)."""
    base = Path(name.replace("\\", "/")).name
    cleaned = _UNSAFE.sub("_", base).strip(" .")
    if not cleaned:
        return "upload"
    lower = cleaned.lower()
    suffix = next((s for s in _DOUBLE_SUFFIXES if lower.endswith(s)), Path(cleaned).suffix)
    suffix = _fit(cleaned[len(cleaned) - len(suffix) :], _MAX_SUFFIX_BYTES) if suffix else ""
    stem = _fit(cleaned[: len(cleaned) - len(suffix)], _MAX_NAME_BYTES - len(suffix.encode()))
    return f"{stem.rstrip(' .') or 'upload'}{suffix}"


def _fit(text: str, max_bytes: int) -> str:
    """`text` cut to at most `max_bytes` of UTF-8, never inside a character."""
    return text.encode()[:max_bytes].decode(errors="ignore")


def check_upload(
    file_name: str,
    size: int | None,
    max_bytes: int,
    type_error: Callable[[str], str | None],
) -> None:
    """Refuse, before downloading, a file of an unsupported type or over the size limit.
    `type_error` says why a file name's type is refused, or None (`CourseBot.ingestor`'s)."""
    reason = type_error(file_name)
    if reason is not None:
        raise BadInputError(f"'{file_name}': {reason}")
    if size is not None and size > max_bytes:
        raise BadInputError(
            f"'{file_name}' is {size / 1_048_576:.1f} MB; the limit is "
            f"{max_bytes / 1_048_576:.0f} MB."
        )


@contextmanager
def upload_folder() -> Iterator[Path]:
    """A private temporary folder, removed with everything in it afterwards."""
    with tempfile.TemporaryDirectory(prefix="coursebot-upload-") as folder:
        yield Path(folder)
