"""Generated material in the SQL database (SQLite or PostgreSQL), cached per course, owner,
kind, topic, visibility and parameters: asking again for the same set finds it, `--new`
replaces it. Every replica and every restart sees the same sets. A set's visibility and owner
are columns, written from a `NewMaterial` and filtered in the queries; what they allow is
`core.visibility`'s to say. A set saved by a background job carries the job's id, one set
per job: a job run again after it saved (`core.jobs`) finds it with `saved_by`, and a save
under an id that saved already returns that set."""

from __future__ import annotations

import builtins
import hashlib
import json
import unicodedata
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from enum import StrEnum
from typing import Any

from sqlalchemy import delete, insert, select, text
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncEngine

from core.generation.models import GeneratedMaterialRow
from core.visibility import Visibility

_REPLACE_TRIES = 3


class MaterialKind(StrEnum):
    EXERCISE = "exercise"
    FLASHCARDS = "flashcards"
    QUIZ = "quiz"
    MINDMAP = "mindmap"
    LESSON = "lesson"


@dataclass(frozen=True, slots=True)
class GeneratedMaterial:
    id: int
    course_id: str
    owner_id: str
    kind: MaterialKind
    topic: str  # normalised
    visibility: Visibility
    parameters: dict[str, Any]
    seed: int | None
    content: Any
    source_chunks: list[Any]
    model: str
    grounded: bool
    created_at: datetime


def normalise_topic(topic: str) -> str:
    """The topic as the cache compares it: case-folded, accents stripped, whitespace
    collapsed ("  Dérivées  PARTIELLES " and "derivees partielles" are one topic)."""
    decomposed = unicodedata.normalize("NFKD", topic.casefold())
    bare = "".join(c for c in decomposed if not unicodedata.combining(c))
    return " ".join(bare.split())


def parameters_hash(parameters: Mapping[str, Any]) -> str:
    """A stable hash of JSON-able parameters: key order does not matter."""
    try:
        canonical = json.dumps(
            parameters, sort_keys=True, separators=(",", ":"), ensure_ascii=False
        )
    except (TypeError, ValueError) as error:
        raise ValueError(f"parameters must be JSON: {error}") from None
    return hashlib.sha256(canonical.encode()).hexdigest()


def _material(row: Any) -> GeneratedMaterial:
    return GeneratedMaterial(
        id=row.id,
        course_id=row.course_id,
        owner_id=row.owner_id,
        kind=MaterialKind(row.kind),
        topic=row.topic,
        visibility=Visibility(row.visibility),
        parameters=dict(row.parameters),
        seed=row.seed,
        content=row.content,
        source_chunks=list(row.source_chunks),
        model=row.model,
        grounded=bool(row.grounded),
        created_at=row.created_at,
    )


@dataclass(frozen=True, slots=True)
class MaterialKey:
    """What a set is cached under: asking again with the same key finds it."""

    course_id: str
    owner_id: str
    kind: MaterialKind
    topic: str
    visibility: Visibility
    parameters: Mapping[str, Any] = field(default_factory=dict)

    def columns(self) -> dict[str, str]:
        return {
            "course_id": self.course_id,
            "owner_id": self.owner_id,
            "kind": MaterialKind(self.kind).value,
            "topic": normalise_topic(self.topic),
            "visibility": Visibility(self.visibility).value,
            "parameters_hash": parameters_hash(self.parameters),
        }


@dataclass(frozen=True, slots=True)
class NewMaterial:
    """A set to store: its key, what it holds, and what made it. `seed` is what it was
    generated with, to reproduce it; not part of the key. `job` is the id of the background
    job saving it, if any."""

    key: MaterialKey
    content: Any
    model: str
    grounded: bool
    source_chunks: Sequence[Any] = ()
    seed: int | None = None
    job: str | None = None

    def values(self) -> dict[str, Any]:
        return self.key.columns() | {
            "parameters": dict(self.key.parameters),
            "seed": self.seed,
            "content": self.content,
            "source_chunks": builtins.list(self.source_chunks),
            "model": self.model,
            "grounded": self.grounded,
            "created_at": datetime.now(UTC),
            "job_id": self.job,
        }


class MaterialStore:
    def __init__(self, engine: AsyncEngine) -> None:
        self._engine = engine

    async def save(self, material: NewMaterial) -> int:
        """Store a new set and return its id. When a set with the same key exists already
        (another request generated it meanwhile) that set is kept and its id returned: the
        first writer wins. `replace` overwrites. A job that saved a set already gets that
        set's id: it is not saved twice."""
        values = material.values()
        try:
            async with self._engine.begin() as connection:
                return await self._insert(connection, values)
        except IntegrityError:
            if (saved := await self._saved(material)) is not None:
                return saved
            existing = await self._find(values)
            if existing is None:  # deleted again in between: store ours after all
                return await self.replace(material)
            return existing.id

    async def replace(self, material: NewMaterial) -> int:
        """Store a set in place of the one with the same key (if any), in one transaction,
        and return the new set's id (a new id: whatever held the old id still finds it
        gone, not changed under it). A job that saved a set already gets that set's id, and
        nothing is replaced."""
        if (saved := await self._saved(material)) is not None:
            return saved  # its own set would be the one replaced
        values = material.values()
        key = material.key.columns()
        for attempt in range(_REPLACE_TRIES):
            try:
                async with self._engine.begin() as connection:
                    if connection.dialect.name == "postgresql":
                        # Replaces of one key take turns (SQLite has one writer anyway).
                        await connection.execute(
                            text("SELECT pg_advisory_xact_lock(:lock_id)"),
                            {"lock_id": _lock_id(key)},
                        )
                    await connection.execute(
                        delete(GeneratedMaterialRow).where(
                            *(getattr(GeneratedMaterialRow, k) == v for k, v in key.items())
                        )
                    )
                    return await self._insert(connection, values)
            except IntegrityError:
                if (saved := await self._saved(material)) is not None:
                    return saved
                # A save() inserted the key between our delete and insert: replace that.
                if attempt == _REPLACE_TRIES - 1:
                    raise
        raise AssertionError("unreachable")

    async def latest(self, key: MaterialKey) -> GeneratedMaterial | None:
        """The cached set for this key, or None."""
        return await self._find(key.columns())

    async def saved_by(self, job_id: str) -> GeneratedMaterial | None:
        """The set the background job `job_id` saved, or None (it saved none yet)."""
        query = select(GeneratedMaterialRow).where(GeneratedMaterialRow.job_id == job_id)
        async with self._engine.connect() as connection:
            row = (await connection.execute(query)).one_or_none()
        return _material(row) if row else None

    async def get(self, material_id: int) -> GeneratedMaterial | None:
        query = select(GeneratedMaterialRow).where(GeneratedMaterialRow.id == material_id)
        async with self._engine.connect() as connection:
            row = (await connection.execute(query)).one_or_none()
        return _material(row) if row else None

    async def delete(self, material_id: int) -> bool:
        statement = delete(GeneratedMaterialRow).where(GeneratedMaterialRow.id == material_id)
        async with self._engine.begin() as connection:
            result = await connection.execute(statement)
        return result.rowcount > 0

    async def list(
        self,
        course_id: str,
        owner_id: str,
        *,
        kind: MaterialKind | str | None = None,
        visibility: Collection[Visibility] | None = None,
    ) -> builtins.list[GeneratedMaterial]:
        """This owner's sets in the course, newest first; only those of the given
        visibilities when `visibility` is given (`core.visibility.visible_to_owner`)."""
        query = select(GeneratedMaterialRow).where(
            GeneratedMaterialRow.course_id == course_id,
            GeneratedMaterialRow.owner_id == owner_id,
        )
        if visibility is not None:
            query = query.where(
                GeneratedMaterialRow.visibility.in_(sorted(Visibility(v).value for v in visibility))
            )
        if kind is not None:
            query = query.where(GeneratedMaterialRow.kind == MaterialKind(kind).value)
        query = query.order_by(
            GeneratedMaterialRow.created_at.desc(), GeneratedMaterialRow.id.desc()
        )
        async with self._engine.connect() as connection:
            rows = (await connection.execute(query)).all()
        return [_material(row) for row in rows]

    # -------------------------------------------------------------------------------

    @staticmethod
    async def _insert(connection: Any, values: dict[str, Any]) -> int:
        statement = insert(GeneratedMaterialRow).values(values).returning(GeneratedMaterialRow.id)
        return int((await connection.execute(statement)).scalar_one())

    async def _saved(self, material: NewMaterial) -> int | None:
        """The id of the set `material`'s job saved already (another run of the job was
        first), or None."""
        if material.job is None:
            return None
        saved = await self.saved_by(material.job)
        return saved.id if saved is not None else None

    async def _find(self, key: Mapping[str, Any]) -> GeneratedMaterial | None:
        query = select(GeneratedMaterialRow).where(
            *(getattr(GeneratedMaterialRow, k) == key[k] for k in _KEY_COLUMNS)
        )
        async with self._engine.connect() as connection:
            row = (await connection.execute(query)).one_or_none()
        return _material(row) if row else None


_KEY_COLUMNS = ("course_id", "owner_id", "kind", "topic", "visibility", "parameters_hash")


def _lock_id(key: Mapping[str, str]) -> int:
    """A PostgreSQL advisory lock id (signed 64 bits) for one cache key."""
    digest = hashlib.sha256("\x1f".join(key[k] for k in _KEY_COLUMNS).encode()).digest()
    return int.from_bytes(digest[:8], "big", signed=True)
