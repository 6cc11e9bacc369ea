"""Which of a course's documents a question names, and which it should not be steered to.

A question names a document by a code ("DAT301m", "cs 101"), a unique code prefix written in
capitals ("MAS" when only MAS291 starts so), a name or alias ("Machine Learning", "dan bau"),
or, for a versioned document, its version ("K19-K20", "K20"): case and accents ignored. A
name or prefix that fits several documents names none of them. Older versions of a document
are superseded unless the question names them."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass

from core.documents.identity import DocumentIdentity, codes_in, fold_name

# A code prefix the way students write one: capitals, maybe the first digits ("MAS", "MAE1").
_PREFIX = re.compile(r"(?<![A-Za-z0-9])([A-Z]{2,5}\d{0,2})(?![A-Za-z0-9])")
_INTAKES = re.compile(r"(?<![a-z0-9])k(\d{2})(?:\s*[-–]?\s*k(\d{2}))?(?![0-9])")
# Words of a question about the programme as a whole, which the programme document answers.
_PROGRAMME = re.compile(
    r"\b(semesters?|curriculum|programme|program|plos?|ojt|combos?|speciali[sz]ations?)\b"
)
# A one-word name is too vague to steer retrieval unless it is this long.
MIN_ONE_WORD_NAME = 8


@dataclass(frozen=True, slots=True)
class Mentions:
    """`named`: document ids in the order the question names them; `superseded`: older
    versions it does not name; `programme`: the current programme document when the question
    is about the programme and names no programme version."""

    named: tuple[str, ...] = ()
    superseded: frozenset[str] = frozenset()
    programme: str | None = None

    @property
    def steers(self) -> bool:
        return bool(self.named or self.superseded or self.programme)


def mentions(question: str, documents: Mapping[str, DocumentIdentity]) -> Mentions:
    if not documents:
        return Mentions()
    folded = f" {fold_name(question)} "
    found: dict[str, int] = {}  # document id -> where in the question it is named
    for doc, position in (
        *_by_code(question, documents),
        *_by_prefix(question, documents),
        *_by_name(folded, documents),
        *_by_version(folded, documents),
    ):
        found[doc] = min(position, found.get(doc, position))
    named = tuple(sorted(found, key=found.__getitem__))
    superseded = _superseded(documents, set(named))
    return Mentions(named, superseded, _programme(folded, documents, set(named), superseded))


def _by_code(question: str, documents: Mapping[str, DocumentIdentity]) -> list[tuple[str, int]]:
    hits = []
    for code, where in codes_in(question, any_case=True):
        hits.extend((doc, where) for doc, i in documents.items() if code in i.codes)
    return hits


def _by_prefix(question: str, documents: Mapping[str, DocumentIdentity]) -> list[tuple[str, int]]:
    hits = []
    for match in _PREFIX.finditer(question):
        prefix = fold_name(match.group(1))
        owners = [doc for doc, i in documents.items() if any(c.startswith(prefix) for c in i.codes)]
        if len(owners) == 1:
            hits.append((owners[0], match.start()))
    return hits


def _by_name(folded: str, documents: Mapping[str, DocumentIdentity]) -> list[tuple[str, int]]:
    owners: dict[str, set[str]] = defaultdict(set)
    for doc, identity in documents.items():
        for name in identity.names:
            owners[name].add(doc)
    hits = []
    for name, docs in owners.items():
        if len(docs) != 1 or (" " not in name and len(name) < MIN_ONE_WORD_NAME):
            continue
        position = folded.find(f" {name} ")
        if position >= 0:
            hits.append((next(iter(docs)), position))
    return hits


def _by_version(folded: str, documents: Mapping[str, DocumentIdentity]) -> list[tuple[str, int]]:
    """ "K19-K20" names the version with those intakes; "K20" alone the one starting with it."""
    hits = []
    for match in _INTAKES.finditer(folded):
        wanted = tuple(int(n) for n in match.groups() if n)
        for doc, identity in documents.items():
            if identity.family and identity.version[: len(wanted)] == wanted:
                hits.append((doc, match.start()))
    return hits


def _superseded(documents: Mapping[str, DocumentIdentity], named: set[str]) -> frozenset[str]:
    families: dict[str, list[str]] = defaultdict(list)
    for doc, identity in documents.items():
        if identity.family and identity.version:
            families[identity.family].append(doc)
    older: set[str] = set()
    for members in families.values():
        newest = max(members, key=lambda doc: documents[doc].version)
        older.update(doc for doc in members if doc != newest and doc not in named)
    return frozenset(older)


def _programme(
    folded: str,
    documents: Mapping[str, DocumentIdentity],
    named: set[str],
    superseded: frozenset[str],
) -> str | None:
    if not _PROGRAMME.search(folded):
        return None
    current = [d for d, i in documents.items() if i.programme and d not in superseded]
    if any(documents[d].programme for d in named) or len(current) != 1:
        return None
    return current[0]
