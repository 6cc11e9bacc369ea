"""The schema comes from Alembic: migrate() builds it on an empty database, is safe to run
again, and leaves exactly what the models describe. URLs come from the settings."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import Connection, inspect, text

from config import Settings, SettingsError
from core.database import create_engine, database_url_for, migrate
from core.database.base import VERSION_TABLE, Base
from core.mistakes import MistakeEntry, MistakeLog


def _schema(connection: Connection) -> dict[str, object]:
    inspector = inspect(connection)
    return {
        "tables": set(inspector.get_table_names()),
        "indexes": {index["name"] for index in inspector.get_indexes("mistakes")},
        "unique": [tuple(u["column_names"]) for u in inspector.get_unique_constraints("mistakes")],
    }


def _drift(connection: Connection) -> list[object]:
    context = MigrationContext.configure(
        connection, opts={"compare_type": True, "version_table": VERSION_TABLE}
    )
    return compare_metadata(context, Base.metadata)


async def test_migrate_builds_the_schema_on_an_empty_database(empty_database_url: str) -> None:
    await migrate(empty_database_url)

    engine = create_engine(empty_database_url)
    async with engine.connect() as connection:
        schema = await connection.run_sync(_schema)
        drift = await connection.run_sync(_drift)
        version = (await connection.execute(text(f"SELECT version_num FROM {VERSION_TABLE}"))).all()
    await engine.dispose()

    assert schema["tables"] == {
        "mistakes",
        "chat_bindings",
        "user_courses",
        "courses",
        "course_staff",
        "course_members",
        "generated_material",
        "catalog_courses",
        "student_profiles",
        "catalog_outcomes",
        "catalog_rules",
        "schedules",
        "schedule_runs",
        "catalog_assessments",
        "asked_questions",
        "answer_votes",
        "question_groups",
        "quiz_answers",
        VERSION_TABLE,
    }
    assert {
        "ix_mistakes_course_id_skill_created_at",
        "ix_mistakes_course_id_exercise_id_step_index",
        "ix_mistakes_course_id_student_id_created_at",
    } <= schema["indexes"]  # type: ignore[operator]
    assert ("idempotency_key",) in schema["unique"]  # type: ignore[operator]
    assert drift == []
    assert version == [("0012",)]


async def test_migrate_twice_keeps_schema_and_rows(empty_database_url: str) -> None:
    await migrate(empty_database_url)
    engine = create_engine(empty_database_url)
    log = MistakeLog(engine)
    entry = MistakeEntry("c1", "alice", "ex1", 0, "chain rule", "2x", idempotency_key="k1")
    assert await log.record(entry)

    await migrate(empty_database_url)

    assert [e.idempotency_key for e in await log.latest("c1")] == ["k1"]
    async with engine.connect() as connection:
        versions = (await connection.execute(text(f"SELECT * FROM {VERSION_TABLE}"))).all()
    await engine.dispose()
    assert versions == [("0012",)]


async def test_migrations_started_together_take_turns(empty_database_url: str) -> None:
    await asyncio.gather(*(migrate(empty_database_url) for _ in range(3)))

    engine = create_engine(empty_database_url)
    async with engine.connect() as connection:
        versions = (await connection.execute(text(f"SELECT * FROM {VERSION_TABLE}"))).all()
    await engine.dispose()
    assert versions == [("0012",)]


async def test_open_from_settings_migrates_sqlite_under_the_data_dir(settings: Settings) -> None:
    log = await MistakeLog.open(settings)
    try:
        assert await log.record(
            MistakeEntry("c1", "bob", "ex1", 1, "limits", "0", created_at=datetime.now(UTC))
        )
    finally:
        await log.close()
    assert (settings.data_dir / "coursebot.db").is_file()


def test_sqlite_url_is_an_absolute_path_under_the_data_dir(settings: Settings) -> None:
    url = database_url_for(settings)

    assert url == f"sqlite+aiosqlite:///{settings.data_dir.resolve() / 'coursebot.db'}"
    assert settings.data_dir.is_dir()


@pytest.mark.parametrize(
    ("configured", "expected"),
    [
        ("postgresql://bot:pw@db:5432/coursebot", "postgresql+asyncpg://bot:pw@db:5432/coursebot"),
        ("postgres://bot@db/coursebot", "postgresql+asyncpg://bot@db/coursebot"),
        ("postgresql+asyncpg://bot@db/coursebot", "postgresql+asyncpg://bot@db/coursebot"),
        (
            "postgresql://bot@db/coursebot?sslmode=require",
            "postgresql+asyncpg://bot@db/coursebot?ssl=require",
        ),
    ],
)
def test_postgres_url_gets_the_asyncpg_driver(configured: str, expected: str) -> None:
    settings = Settings(_env_file=None, database_url=configured)  # type: ignore[call-arg]

    assert database_url_for(settings) == expected


def test_sync_postgres_driver_is_refused_without_echoing_the_password() -> None:
    settings = Settings(  # type: ignore[call-arg]
        _env_file=None, database_url="postgresql+psycopg2://bot:s3cret@db/coursebot"
    )

    with pytest.raises(SettingsError, match="COURSEBOT_DATABASE_URL") as caught:
        database_url_for(settings)
    assert "s3cret" not in str(caught.value)
