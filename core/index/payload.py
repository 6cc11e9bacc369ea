"""The payload stored with every chunk, written and read here only: ingestion builds it from
typed values with `ChunkPayload.to_payload`, searches read it back with
`ChunkRecord.from_payload` and `DocumentSummary.from_payload`. The field names are in
`core.index.fields`; visibility is derived from the owner by `core.visibility`."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from core.content_kind import ContentKind, classify
from core.documents.identity import DocumentIdentity
from core.index import fields as f
from core.visibility import chunk_visibility, is_private

DEFAULT_KIND = "notes"


@dataclass(frozen=True, slots=True)
class ChunkPayload:
    """Everything stored with one chunk, as typed values. `attributes` are extra payload
    fields a loader attaches to every chunk of a document; they cannot override the fields
    above (visibility, owner and course are never set through them)."""

    course_id: str
    document_id: str
    file_name: str
    title: str
    kind: str
    text: str
    page: int | None
    section: str
    owner_id: str | None
    file_hash: str
    content_hash: str
    chunk_index: int
    generation: str
    ingested_at: datetime
    exercise_id: str | None = None
    exercise_source: str | None = None
    attributes: Mapping[str, str] = field(default_factory=dict)
    # The text the dense vector was made from, kept so the vectors can be remade with another
    # embedder without reading the files again; empty = not stored.
    embed_text: str = ""
    identity: DocumentIdentity = field(default_factory=DocumentIdentity)
    page_count: int = 0
    file_bytes: int = 0
    content_kind: ContentKind = ContentKind.UNKNOWN
    # The document's chunks in this generation: fewer stored means a write that died
    # half-way (a killed worker), which the next ingestion replaces instead of skipping.
    chunk_count: int = 0

    def to_payload(self) -> dict[str, Any]:
        payload: dict[str, Any] = dict(self.attributes)
        payload.update(
            {
                f.COURSE_ID: self.course_id,
                f.DOCUMENT_ID: self.document_id,
                f.FILE_NAME: self.file_name,
                f.TITLE: self.title,
                f.KIND: self.kind,
                f.VISIBILITY: chunk_visibility(self.owner_id).value,
                f.OWNER_ID: self.owner_id,
                f.FILE_HASH: self.file_hash,
                f.GENERATION: self.generation,
                f.INGESTED_AT: self.ingested_at.isoformat(),
                f.PAGE: self.page,
                f.SECTION: self.section,
                f.CHUNK_INDEX: self.chunk_index,
                f.CONTENT_HASH: self.content_hash,
                f.TEXT: self.text,
                f.PAGE_COUNT: self.page_count,
                f.FILE_BYTES: self.file_bytes,
                f.CHUNK_COUNT: self.chunk_count,
            }
        )
        payload.update(self.identity.to_payload())
        if self.content_kind is not ContentKind.UNKNOWN:
            payload[f.CONTENT_KIND] = self.content_kind.value
        if self.embed_text:
            payload[f.EMBED_TEXT] = self.embed_text
        if self.exercise_id is not None:
            payload[f.EXERCISE_ID] = self.exercise_id
        if self.exercise_source is not None:
            payload[f.EXERCISE_SOURCE] = self.exercise_source
        return payload


@dataclass(frozen=True, slots=True)
class ChunkRecord:
    """A chunk as stored: the text shown to users and where it came from."""

    id: str
    course_id: str
    document_id: str
    file_name: str
    text: str
    page: int | None
    section: str
    kind: str
    visibility: str
    owner_id: str | None
    chunk_index: int
    # The matched chunk's own text inside `text` (its passage, which adds the neighbours):
    # what a tight context budget keeps first. Empty = the whole passage.
    matched: str = ""
    # The document's title (an answer quoting several documents labels each quote with it).
    title: str = ""
    # As stored: UNKNOWN for a chunk stored before chunks were classified (see `content`).
    content_kind: ContentKind = ContentKind.UNKNOWN

    @classmethod
    def from_payload(cls, point_id: Any, payload: Mapping[str, Any]) -> ChunkRecord:
        return cls(
            id=str(point_id),
            course_id=payload[f.COURSE_ID],
            document_id=payload[f.DOCUMENT_ID],
            file_name=payload[f.FILE_NAME],
            text=payload[f.TEXT],
            page=payload.get(f.PAGE),
            section=payload.get(f.SECTION, ""),
            kind=payload.get(f.KIND, DEFAULT_KIND),
            visibility=payload.get(f.VISIBILITY, f.Visibility.PUBLIC.value),
            owner_id=payload.get(f.OWNER_ID),
            chunk_index=payload.get(f.CHUNK_INDEX, 0),
            matched=_matched_text(payload),
            title=payload.get(f.TITLE) or "",
            content_kind=stored_content_kind(payload),
        )

    @property
    def private(self) -> bool:
        return is_private(self.visibility)

    @property
    def content(self) -> ContentKind:
        """Whether the chunk teaches or is course logistics: as classified at ingestion, or,
        for a chunk stored before that, read from its own text now."""
        if self.content_kind is not ContentKind.UNKNOWN:
            return self.content_kind
        return classify(self.matched or self.text, self.section)

    @property
    def teaches(self) -> bool:
        return self.content is ContentKind.TEACHING


def stored_content_kind(payload: Mapping[str, Any]) -> ContentKind:
    """The payload's content kind; UNKNOWN where it is absent or not one we know."""
    try:
        return ContentKind(payload.get(f.CONTENT_KIND, ContentKind.UNKNOWN))
    except ValueError:
        return ContentKind.UNKNOWN


def _matched_text(payload: Mapping[str, Any]) -> str:
    """The chunk's own text: its embed text without the one-line context header the chunking
    puts first, when that text lies inside the passage."""
    embedded = payload.get(f.EMBED_TEXT) or ""
    _header, _, own = embedded.partition("\n")
    return own if own and own in payload.get(f.TEXT, "") else ""


@dataclass(frozen=True, slots=True)
class DocumentSummary:
    document_id: str
    file_name: str
    kind: str
    chunks: int
    private: bool
    file_hash: str | None
    # 0 for documents stored before these were recorded.
    pages: int = 0
    file_bytes: int = 0

    # The payload fields `from_payload` reads (for a scroll's payload selector).
    FIELDS = (
        f.DOCUMENT_ID,
        f.FILE_NAME,
        f.KIND,
        f.VISIBILITY,
        f.FILE_HASH,
        f.PAGE_COUNT,
        f.FILE_BYTES,
    )

    @classmethod
    def from_payload(cls, payload: Mapping[str, Any], chunks: int) -> DocumentSummary:
        return cls(
            document_id=payload[f.DOCUMENT_ID],
            file_name=payload[f.FILE_NAME],
            kind=payload.get(f.KIND, DEFAULT_KIND),
            chunks=chunks,
            private=is_private(payload.get(f.VISIBILITY)),
            file_hash=payload.get(f.FILE_HASH),
            pages=payload.get(f.PAGE_COUNT) or 0,
            file_bytes=payload.get(f.FILE_BYTES) or 0,
        )
