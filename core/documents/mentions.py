"""Which of a course's documents a question names, and which it should not be steered to.

A question names a document by a code ("DAT301m", "cs 101"; a family, "AIL30x", names each
of its courses' documents), a unique code prefix written in capitals ("MAS" when only MAS291
starts so), a name or alias ("Machine Learning", "dan bau"), or, for a versioned document,
its version ("K19-K20", "K20"): case and accents ignored. A name or prefix that fits several
documents names none of them. Older versions of a document are superseded unless the
question names them. Codes, prefixes, intakes and programme words are `core.course_codes`'s."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field

from core.course_codes import (
    PREFIX_LETTERS_TO_STEER,
    asks_about_groups,
    asks_about_programme,
    codes_in,
    in_family,
    intakes_in,
    prefixes_in,
)
from core.documents.identity import DocumentIdentity
from core.text import fold_name

# A one-word name is too vague to steer retrieval unless it is this long.
MIN_ONE_WORD_NAME = 8


@dataclass(frozen=True, slots=True)
class Mentions:
    """`named`: document ids in the order the question names them; `superseded`: older
    versions it does not name; `programme`: the current programme document when the question
    is about the programme and names no programme version; `groups`: the documents listing
    groups of courses (combos) when the question is about them and names none of them."""

    named: tuple[str, ...] = ()
    superseded: frozenset[str] = frozenset()
    programme: str | None = None
    # document id -> the question's words that name it (a code as written, a prefix, a
    # folded name); a version ("K20") is not among them.
    named_by: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    groups: tuple[str, ...] = ()

    @property
    def steers(self) -> bool:
        return bool(self.named or self.superseded or self.programme or self.groups)


def mentions(question: str, documents: Mapping[str, DocumentIdentity]) -> Mentions:
    if not documents:
        return Mentions()
    folded = f" {fold_name(question)} "
    found: dict[str, int] = {}  # document id -> where in the question it is named
    words: dict[str, list[str]] = defaultdict(list)
    for doc, position, word in (
        *_by_code(question, documents),
        *_by_prefix(question, documents),
        *_by_name(folded, documents),
        *((doc, position, "") for doc, position in _by_version(question, documents)),
    ):
        found[doc] = min(position, found.get(doc, position))
        if word and word not in words[doc]:
            words[doc].append(word)
    named = tuple(sorted(found, key=found.__getitem__))
    superseded = _superseded(documents, set(named))
    return Mentions(
        named,
        superseded,
        _programme(question, documents, set(named), superseded),
        {doc: tuple(w) for doc, w in words.items()},
        _groups(question, documents, set(named), superseded),
    )


def _by_code(
    question: str, documents: Mapping[str, DocumentIdentity]
) -> list[tuple[str, int, str]]:
    hits: list[tuple[str, int, str]] = []
    for code in codes_in(question, typed=True):
        if code.family:
            owners = [
                d for d, i in documents.items() if any(in_family(code.key, c) for c in i.codes)
            ]
        else:
            owners = [d for d, i in documents.items() if code.key in i.codes]
        hits.extend((doc, code.start, code.written) for doc in owners)
    return hits


def _by_prefix(
    question: str, documents: Mapping[str, DocumentIdentity]
) -> list[tuple[str, int, str]]:
    hits = []
    for prefix, where in prefixes_in(question, letters=PREFIX_LETTERS_TO_STEER):
        owners = [doc for doc, i in documents.items() if any(c.startswith(prefix) for c in i.codes)]
        if len(owners) == 1:
            hits.append((owners[0], where, prefix))
    return hits


def _by_name(folded: str, documents: Mapping[str, DocumentIdentity]) -> list[tuple[str, int, str]]:
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
            hits.append((next(iter(docs)), position, name))
    return hits


def _by_version(question: str, documents: Mapping[str, DocumentIdentity]) -> list[tuple[str, int]]:
    """ "K19-K20" names the version with those intakes; "K20" alone the one starting with it."""
    hits = []
    for intakes in intakes_in(question):
        wanted = intakes.numbers
        for doc, identity in documents.items():
            if identity.family and identity.version[: len(wanted)] == wanted:
                hits.append((doc, intakes.start))
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
    question: str,
    documents: Mapping[str, DocumentIdentity],
    named: set[str],
    superseded: frozenset[str],
) -> str | None:
    if not asks_about_programme(question):
        return None
    current = [d for d, i in documents.items() if i.programme and d not in superseded]
    if any(documents[d].programme for d in named) or len(current) != 1:
        return None
    return current[0]


def _groups(
    question: str,
    documents: Mapping[str, DocumentIdentity],
    named: set[str],
    superseded: frozenset[str],
) -> tuple[str, ...]:
    if not asks_about_groups(question) or any(documents[d].groups for d in named):
        return ()
    return tuple(sorted(d for d, i in documents.items() if i.groups and d not in superseded))


def without_names(question: str, words: Collection[str]) -> str:
    """`question` without the words that name its documents (`Mentions.named_by`), accents
    and case ignored: what it asks of them ("what is the description of Toán rời rạc?" ->
    "what is the description of?"). The question itself when nothing would be left."""
    naming = {part for word in words for part in fold_name(word).split()}
    if not naming:
        return question
    kept = [
        token
        for token in question.split()
        if not (parts := fold_name(token).split()) or not all(p in naming for p in parts)
    ]
    return " ".join(kept) if any(fold_name(t) for t in kept) else question
