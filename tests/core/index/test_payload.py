"""The chunk payload is written and read in one module: what ingestion stores is what a
search reads back, and visibility follows the owner."""

from __future__ import annotations

from datetime import UTC, datetime

from core.content_kind import ContentKind
from core.index import fields as f
from core.index.payload import ChunkPayload, ChunkRecord, DocumentSummary


def payload(owner_id: str | None = None, **changes: object) -> ChunkPayload:
    values: dict[str, object] = {
        "course_id": "math101",
        "document_id": "math101/notes.md",
        "file_name": "notes.md",
        "title": "Notes",
        "kind": "notes",
        "text": "A limit describes a value approached.",
        "page": 3,
        "section": "Limits",
        "owner_id": owner_id,
        "file_hash": "f" * 64,
        "content_hash": "c" * 64,
        "chunk_index": 2,
        "generation": "g1",
        "ingested_at": datetime(2026, 11, 2, 9, 0, tzinfo=UTC),
    }
    values.update(changes)
    return ChunkPayload(**values)  # type: ignore[arg-type]


def test_a_written_payload_reads_back_as_the_same_chunk() -> None:
    stored = payload(owner_id="ana").to_payload()
    record = ChunkRecord.from_payload("p1", stored)
    assert record == ChunkRecord(
        id="p1",
        course_id="math101",
        document_id="math101/notes.md",
        file_name="notes.md",
        text="A limit describes a value approached.",
        page=3,
        section="Limits",
        kind="notes",
        visibility="private",
        owner_id="ana",
        chunk_index=2,
        title="Notes",
    )
    assert record.private
    summary = DocumentSummary.from_payload(stored, chunks=4)
    assert summary.private and summary.chunks == 4 and summary.file_hash == "f" * 64
    assert set(DocumentSummary.FIELDS) <= set(stored)


def test_visibility_is_derived_from_the_owner() -> None:
    assert payload().to_payload()[f.VISIBILITY] == "public"
    assert payload(owner_id="ana").to_payload()[f.VISIBILITY] == "private"
    assert not ChunkRecord.from_payload("p", payload().to_payload()).private


def test_exercise_fields_are_stored_only_for_exercises() -> None:
    plain = payload().to_payload()
    assert f.EXERCISE_ID not in plain and f.EXERCISE_SOURCE not in plain
    exercise = payload(exercise_id="limits", exercise_source="id: limits").to_payload()
    assert exercise[f.EXERCISE_ID] == "limits"
    assert exercise[f.EXERCISE_SOURCE] == "id: limits"


def test_attributes_cannot_override_the_tenant_fields() -> None:
    stored = payload(
        attributes={f.VISIBILITY: "public", f.COURSE_ID: "other", "extra": "kept"},
        owner_id="ana",
    ).to_payload()
    assert stored[f.VISIBILITY] == "private"
    assert stored[f.COURSE_ID] == "math101"
    assert stored["extra"] == "kept"


def test_a_chunks_content_kind_reads_back_and_an_unclassified_one_is_read_from_its_text() -> None:
    stored = payload(content_kind=ContentKind.TEACHING).to_payload()
    assert ChunkRecord.from_payload("p", stored).content is ContentKind.TEACHING
    # Stored before chunks were classified: no field, classified from the text when read.
    old = payload(
        text="| Week | Topic | Due |\n| 1 | Limits | Homework 1, Friday 23:59 |",
        section="Weekly Schedule",
    ).to_payload()
    assert f.CONTENT_KIND not in old
    record = ChunkRecord.from_payload("p", old)
    assert record.content_kind is ContentKind.UNKNOWN
    assert record.content is ContentKind.LOGISTICS and not record.teaches
    assert ChunkRecord.from_payload("p", {**old, f.CONTENT_KIND: "gossip"}).content_kind is (
        ContentKind.UNKNOWN
    )
