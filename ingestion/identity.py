"""Stable identities and fingerprints: document ids, file and chunk hashes."""

from __future__ import annotations

import hashlib
import uuid
from pathlib import Path

_NAMESPACE = uuid.UUID("6f1d1c52-8d4e-4b53-9a43-5a3c0e2f7b10")


def document_id(course_id: str, file_name: str, owner_id: str | None = None) -> str:
    """Stable across runs and machines. A private document's id includes its owner, so two
    students' `notes.pdf` never replace each other."""
    key = "\x00".join([course_id, owner_id or "", file_name])
    return uuid.uuid5(_NAMESPACE, key).hex[:16]


def point_id(document: str, generation: str, index: int) -> str:
    return str(uuid.uuid5(_NAMESPACE, f"{document}:{generation}:{index}"))


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as stream:
        for block in iter(lambda: stream.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def text_sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
