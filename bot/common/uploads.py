"""Files users send in a chat: checked before they are downloaded, kept in a private temporary
folder under their original (sanitised) names while they are ingested."""

from __future__ import annotations

import re
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from core.errors import BadInputError
from ingestion.errors import IngestError
from ingestion.loaders import loader_for

_UNSAFE = re.compile(r"[^\w.\- ()]+")


def safe_file_name(name: str) -> str:
    """The file name a user sent, without folders or characters a file system may refuse."""
    base = Path(name.replace("\\", "/")).name
    cleaned = _UNSAFE.sub("_", base).strip(" .")
    return cleaned[:200] or "upload"


def check_upload(file_name: str, size: int | None, max_bytes: int) -> None:
    """Refuse, before downloading, a file of an unsupported type or over the size limit."""
    try:
        loader_for(file_name)
    except IngestError as error:
        raise BadInputError(f"'{file_name}': {error}") from None
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
