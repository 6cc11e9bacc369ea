"""Generated material in the SQL database (SQLite or PostgreSQL), cached per course, owner,
kind, topic and parameters: asking again for the same set finds it, `--new` replaces it.
Every replica and every restart sees the same sets."""

from __future__ import annotations

import builtins
import hashlib
import json
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from enum import StrEnum
from typing import Any

from sqlalchemy import delete, insert, select, text
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncEngine

from core.generation.models import GeneratedMaterialRow

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
        parameters=dict(row.parameters),
        seed=row.seed,
        content=row.content,
        source_chunks=list(row.source_chunks),
        model=row.model,
        grounded=bool(row.grounded),
        created_at=row.created_at,
    )


def _key(
    course_id: str, owner_id: str, kind: MaterialKind | str, topic: str,
    parameters: Mapping[str, Any],
) -> dict[str, str]:  # fmt: skip
    return {
        "course_id": course_id,
        "owner_id": owner_id,
        "kind": MaterialKind(kind).value,
        "topic": normalise_topic(topic),
        "parameters_hash": parameters_hash(parameters),
    }


class MaterialStore:
    def __init__(self, engine: AsyncEngine) -> None:
        self._engine = engine

    async def save(
        self,
        *,
        course_id: str,
        owner_id: str,
        kind: MaterialKind | str,
        topic: str,
        parameters: Mapping[str, Any],
        content: Any,
        source_chunks: Sequence[Any] = (),
        model: str,
        grounded: bool,
        seed: int | None = None,
    ) -> int:
        """Store a new set and return its id. When a set with the same key exists already
        (another request generated it meanwhile) that set is kept and its id returned: the
        first writer wins. `replace` overwrites."""
        values = self._values(
            course_id, owner_id, kind, topic, parameters, content, source_chunks, model,
            grounded, seed,
        )  # fmt: skip
        try:
            async with self._engine.begin() as connection:
                return await self._insert(connection, values)
        except IntegrityError:
            existing = await self._find(values)
            if existing is None:  # deleted again in between: store ours after all
                return await self.replace(
                    course_id=course_id, owner_id=owner_id, kind=kind, topic=topic,
                    parameters=parameters, content=content, source_chunks=source_chunks,
                    model=model, grounded=grounded, seed=seed,
                )  # fmt: skip
            return existing.id

    async def replace(
        self,
        *,
        course_id: str,
        owner_id: str,
        kind: MaterialKind | str,
        topic: str,
        parameters: Mapping[str, Any],
        content: Any,
        source_chunks: Sequence[Any] = (),
        model: str,
        grounded: bool,
        seed: int | None = None,
    ) -> int:
        """Store a set in place of the one with the same key (if any), in one transaction,
        and return the new set's id (a new id: whatever held the old id still finds it
        gone, not changed under it)."""
        values = self._values(
            course_id, owner_id, kind, topic, parameters, content, source_chunks, model,
            grounded, seed,
        )  # fmt: skip
        key = _key(course_id, owner_id, kind, topic, parameters)
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
                # A save() inserted the key between our delete and insert: replace that.
                if attempt == _REPLACE_TRIES - 1:
                    raise
        raise AssertionError("unreachable")

    async def latest(
        self,
        course_id: str,
        owner_id: str,
        kind: MaterialKind | str,
        topic: str,
        parameters: Mapping[str, Any],
    ) -> GeneratedMaterial | None:
        """The cached set for this key, or None."""
        return await self._find(_key(course_id, owner_id, kind, topic, parameters))

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
        self, course_id: str, owner_id: str, *, kind: MaterialKind | str | None = None
    ) -> builtins.list[GeneratedMaterial]:
        """This owner's sets in the course, newest first."""
        query = select(GeneratedMaterialRow).where(
            GeneratedMaterialRow.course_id == course_id,
            GeneratedMaterialRow.owner_id == owner_id,
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
    def _values(
        course_id: str, owner_id: str, kind: MaterialKind | str, topic: str,
        parameters: Mapping[str, Any], content: Any, source_chunks: Sequence[Any], model: str,
        grounded: bool, seed: int | None,
    ) -> dict[str, Any]:  # fmt: skip
        key = _key(course_id, owner_id, kind, topic, parameters)
        return key | {
            "parameters": dict(parameters),
            "seed": seed,
            "content": content,
            "source_chunks": builtins.list(source_chunks),
            "model": model,
            "grounded": grounded,
            "created_at": datetime.now(UTC),
        }

    @staticmethod
    async def _insert(connection: Any, values: dict[str, Any]) -> int:
        statement = insert(GeneratedMaterialRow).values(values).returning(GeneratedMaterialRow.id)
        return int((await connection.execute(statement)).scalar_one())

    async def _find(self, key: Mapping[str, Any]) -> GeneratedMaterial | None:
        query = select(GeneratedMaterialRow).where(
            *(getattr(GeneratedMaterialRow, k) == key[k] for k in _KEY_COLUMNS)
        )
        async with self._engine.connect() as connection:
            row = (await connection.execute(query)).one_or_none()
        return _material(row) if row else None


_KEY_COLUMNS = ("course_id", "owner_id", "kind", "topic", "parameters_hash")


def _lock_id(key: Mapping[str, str]) -> int:
    """A PostgreSQL advisory lock id (signed 64 bits) for one cache key."""
    digest = hashlib.sha256("\x1f".join(key[k] for k in _KEY_COLUMNS).encode()).digest()
    return int.from_bytes(digest[:8], "big", signed=True)
