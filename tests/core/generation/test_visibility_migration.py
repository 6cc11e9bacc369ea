"""Migration 0006 on SQLite and PostgreSQL: rows written the old way (where a set was made
kept in its JSON: a lesson's `scope` parameter and `private_chunks`, a study set's
`audience` parameter, a source's `private` flag) get the visibility the services used to
guess from it, leave the cache key's parameters, and are found again under the new key."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from alembic import command
from sqlalchemy import JSON, Connection, DateTime, bindparam, text
from support.databases import BACKENDS, PostgresDatabases

from core.database import create_engine, migrate
from core.database.engine import alembic_config
from core.generation import MaterialKey, MaterialKind, MaterialStore, parameters_hash
from core.visibility import Visibility

COURSE, OWNER = "calc1", "telegram:42"


@pytest.fixture(params=BACKENDS)
def empty_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'material.db'}"
    databases: PostgresDatabases = request.getfixturevalue("postgres_databases")
    return asyncio.run(databases.emptied())


def _alembic(connection: Connection, revision: str, *, down: bool = False) -> None:
    config = alembic_config()
    config.attributes["connection"] = connection
    (command.downgrade if down else command.upgrade)(config, revision)


async def _to_revision(url: str, revision: str, *, down: bool = False) -> None:
    engine = create_engine(url)
    async with engine.begin() as connection:
        await connection.run_sync(_alembic, revision, down=down)
    await engine.dispose()


def _old_row(kind: str, topic: str, parameters: dict[str, Any], content: Any) -> dict[str, Any]:
    """A row as the store wrote it before revision 0006."""
    return {
        "course_id": COURSE,
        "owner_id": OWNER,
        "kind": kind,
        "topic": topic,
        "parameters": parameters,
        "parameters_hash": parameters_hash(parameters),
        "seed": None,
        "content": content,
        "source_chunks": [],
        "model": "extractive",
        "grounded": True,
        "created_at": datetime.now(UTC),
    }


PUBLIC_SOURCE = {"file_name": "lecture.pdf", "private": False}
NOTE_SOURCE = {"file_name": "my-notes.md", "private": True}
STUDY = {"maker": "extractive", "format": 1}
OLD_ROWS = {
    "group lesson": _old_row(
        "lesson", "limits", {"profile": "standard", "slides": "3-5", "scope": "shared"},
        {"format": 1, "private_chunks": []},
    ),
    "dm lesson": _old_row(
        "lesson", "limits", {"profile": "standard", "slides": "3-5", "scope": "private"},
        {"format": 1, "private_chunks": []},
    ),
    # An edit made in a DM before the fix: 'shared' kept, but it cites a note.
    "leaky edit": _old_row(
        "lesson", "limits",
        {"profile": "standard", "slides": "3-5", "scope": "shared", "base": 1, "version": 2},
        {"format": 1, "private_chunks": ["note-1"]},
    ),
    "group quiz": _old_row(
        "quiz", "limits", {"count": None, "audience": "shared", **STUDY},
        {"items": [{"source": PUBLIC_SOURCE}]},
    ),
    "dm quiz": _old_row(
        "quiz", "limits", {"count": None, "audience": "private", **STUDY},
        {"items": [{"source": PUBLIC_SOURCE}]},
    ),
    "note mind map": _old_row(
        "mindmap", "limits", {"audience": "shared", **STUDY},
        {"root": {"source": None, "children": [{"source": NOTE_SOURCE, "children": []}]}},
    ),
    "public exercise": _old_row(
        "exercise", "limits", {"difficulty": "easy", "request": "m1"},
        {"sources": [PUBLIC_SOURCE]},
    ),
    "note exercise": _old_row(
        "exercise", "limits", {"difficulty": "easy", "request": "m2"},
        {"sources": [NOTE_SOURCE]},
    ),
}  # fmt: skip
EXPECTED = {
    "group lesson": Visibility.PUBLIC,
    "dm lesson": Visibility.PRIVATE,
    "leaky edit": Visibility.PRIVATE,
    "group quiz": Visibility.PUBLIC,
    "dm quiz": Visibility.PRIVATE,
    "note mind map": Visibility.PRIVATE,
    "public exercise": Visibility.PUBLIC,
    "note exercise": Visibility.PRIVATE,
}


async def _insert_old_rows(url: str) -> dict[str, int]:
    engine = create_engine(url)
    ids = {}
    async with engine.begin() as connection:
        for name, row in OLD_ROWS.items():
            columns = ", ".join(row)
            values = ", ".join(f":{c}" for c in row)
            statement = text(
                f"INSERT INTO generated_material ({columns}) VALUES ({values}) RETURNING id"
            ).bindparams(*_json_params())
            ids[name] = (await connection.execute(statement, row)).scalar_one()
    await engine.dispose()
    return ids


def _json_params() -> list[Any]:
    return [
        bindparam("parameters", type_=JSON),
        bindparam("content", type_=JSON),
        bindparam("source_chunks", type_=JSON),
        bindparam("created_at", type_=DateTime(timezone=True)),
    ]


async def test_old_rows_get_the_visibility_their_json_meant(empty_url: str) -> None:
    await _to_revision(empty_url, "0005")
    ids = await _insert_old_rows(empty_url)

    await migrate(empty_url)

    engine = create_engine(empty_url)
    store = MaterialStore(engine)
    try:
        for name, material_id in ids.items():
            stored = await store.get(material_id)
            assert stored is not None, name
            assert stored.visibility is EXPECTED[name], name
            assert "scope" not in stored.parameters and "audience" not in stored.parameters
            if stored.kind is MaterialKind.LESSON:
                assert "private_chunks" not in stored.content and "cited_notes" in stored.content
        assert (await store.get(ids["leaky edit"])).content["cited_notes"] == ["note-1"]  # type: ignore[union-attr]
        # The cache survives: each set is found under its new key.
        lesson = {"profile": "standard", "slides": "3-5"}
        for name, visibility in (("group lesson", "public"), ("dm lesson", "private")):
            key = MaterialKey(
                COURSE, OWNER, MaterialKind.LESSON, "limits", Visibility(visibility), lesson
            )
            found = await store.latest(key)
            assert found is not None and found.id == ids[name]
        key = MaterialKey(COURSE, OWNER, MaterialKind.QUIZ, "limits", Visibility.PRIVATE,
                          {"count": None, **STUDY})  # fmt: skip
        found = await store.latest(key)
        assert found is not None and found.id == ids["dm quiz"]
        # A replaced set's id is still never handed out again (SQLite's AUTOINCREMENT kept).
        newest = max(ids.values())
        assert await store.delete(newest)
        async with engine.begin() as connection:
            row = _old_row("quiz", "series", {"count": 3}, {})
            columns = ", ".join([*row, "visibility"])
            values = ", ".join(f":{c}" for c in [*row, "visibility"])
            statement = text(
                f"INSERT INTO generated_material ({columns}) VALUES ({values}) RETURNING id"
            ).bindparams(*_json_params())
            again = (
                await connection.execute(statement, row | {"visibility": "public"})
            ).scalar_one()
        assert again > newest
    finally:
        await engine.dispose()


async def test_rows_that_meet_under_the_new_key_are_both_kept(empty_url: str) -> None:
    # A DM quiz whose note made it private, and a DM quiz of the same parameters.
    await _to_revision(empty_url, "0005")
    engine = create_engine(empty_url)
    with_note = {"items": [{"source": NOTE_SOURCE}]}
    rows = [
        _old_row("quiz", "limits", {"audience": "shared", **STUDY}, with_note),
        _old_row("quiz", "limits", {"audience": "private", **STUDY}, {"items": []}),
    ]
    async with engine.begin() as connection:
        for row in rows:
            columns = ", ".join(row)
            values = ", ".join(f":{c}" for c in row)
            await connection.execute(
                text(f"INSERT INTO generated_material ({columns}) VALUES ({values})").bindparams(
                    *_json_params()
                ),
                row,
            )
    await engine.dispose()

    await migrate(empty_url)

    engine = create_engine(empty_url)
    try:
        listed = await MaterialStore(engine).list(COURSE, OWNER)
        assert [m.visibility for m in listed] == [Visibility.PRIVATE, Visibility.PRIVATE]
        key = MaterialKey(COURSE, OWNER, MaterialKind.QUIZ, "limits", Visibility.PRIVATE, STUDY)
        found = await MaterialStore(engine).latest(key)
        assert found is not None and found.id == min(m.id for m in listed)
    finally:
        await engine.dispose()


async def test_downgrade_puts_the_json_back(empty_url: str) -> None:
    await _to_revision(empty_url, "0005")
    ids = await _insert_old_rows(empty_url)
    await migrate(empty_url)

    await _to_revision(empty_url, "0005", down=True)

    engine = create_engine(empty_url)
    async with engine.connect() as connection:
        rows = (
            await connection.execute(
                text("SELECT id, parameters, parameters_hash FROM generated_material")
            )
        ).all()
    await engine.dispose()
    by_id = {row.id: row for row in rows}
    dm_lesson = by_id[ids["dm lesson"]]
    parameters = dm_lesson.parameters
    if isinstance(parameters, str):  # JSON comes back as text through text()
        parameters = json.loads(parameters)
    assert parameters["scope"] == "private"
    assert dm_lesson.parameters_hash == OLD_ROWS["dm lesson"]["parameters_hash"]
