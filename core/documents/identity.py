"""A document's identity as stored with its chunks: the codes and names it goes by, the family
of documents it is a version of, and its version.

Written by `ingestion.document_identity` and read by `core.documents.directory`. Codes and
names are stored folded (case, accents and punctuation ignored: `core.text.fold_name`, and a
code's key, `core.course_codes.code_key`) so a question is matched by comparing folded words
only; what a code is, is `core.course_codes`'s."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from core.index import fields as f


@dataclass(frozen=True, slots=True)
class DocumentIdentity:
    """`codes`: course or document codes ("dat301m", "bit ai k20d 21a"); `names`: titles and
    aliases ("machine learning", "k20 k21"); `family`: documents sharing it are versions of
    one document ("curriculum"), empty when the document has no versions; `version`: numbers
    that order the versions (higher is newer); `programme`: the document describes a whole
    programme (a curriculum), so it answers questions about semesters and the course list;
    `groups`: the document lists groups of courses a student chooses among (combos, pathways,
    specialisations), so it answers questions about them."""

    codes: tuple[str, ...] = ()
    names: tuple[str, ...] = ()
    family: str = ""
    version: tuple[int, ...] = ()
    programme: bool = False
    groups: bool = False

    # The payload fields `from_payload` reads (for a scroll's payload selector).
    FIELDS = (f.DOC_CODES, f.DOC_NAMES, f.DOC_FAMILY, f.DOC_VERSION, f.DOC_PROGRAMME,
              f.DOC_GROUPS)  # fmt: skip

    def to_payload(self) -> dict[str, Any]:
        return {
            f.DOC_CODES: list(self.codes),
            f.DOC_NAMES: list(self.names),
            f.DOC_FAMILY: self.family,
            f.DOC_VERSION: list(self.version),
            f.DOC_PROGRAMME: self.programme,
            f.DOC_GROUPS: self.groups,
        }

    @classmethod
    def from_payload(cls, payload: Mapping[str, Any]) -> DocumentIdentity:
        return cls(
            codes=tuple(payload.get(f.DOC_CODES) or ()),
            names=tuple(payload.get(f.DOC_NAMES) or ()),
            family=payload.get(f.DOC_FAMILY) or "",
            version=tuple(int(n) for n in payload.get(f.DOC_VERSION) or ()),
            programme=bool(payload.get(f.DOC_PROGRAMME)),
            groups=bool(payload.get(f.DOC_GROUPS)),
        )
