"""The Discord adapter on the real core (Qdrant local mode, SQLite, in-process sessions) and a
recording fake of Discord's HTTP layer.

The sample course's syllabus and guided exercises are ingested once per session into a data
folder, with the course channel bound to the course; each test works on its own copy."""

from __future__ import annotations

import os
import shutil
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from support.fake_discord import (
    COURSE,
    COURSE_CHANNEL_ID,
    COURSE_ROLES,
    FakeDiscord,
    Person,
    Place,
    Request,
    interact,
    server,
    slash,
)
from support.paths import SAMPLE_COURSE

from bot.discord.client import CourseClient, build_client
from config import Settings
from core import factory
from core.context import Context, Role
from core.course_bot import CourseBot
from core.embedding.minilm_onnx import MiniLMOnnxEmbedder
from core.factory import open_core
from ingestion.pipeline import SourceFile

COURSE_FILES = (
    SAMPLE_COURSE / "syllabus.md",
    SAMPLE_COURSE / "exercises" / "derivative-product-rule.exercise.yaml",
    SAMPLE_COURSE / "exercises" / "limits-basics.exercise.yaml",
)


def discord_settings(data_dir: Path) -> Settings:
    return Settings(_env_file=None, data_dir=data_dir, course_roles=COURSE_ROLES)  # type: ignore[call-arg]


@pytest_asyncio.fixture(scope="session", loop_scope="session")
async def course_data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    data_dir = tmp_path_factory.mktemp("discord-course") / "data"
    with pytest.MonkeyPatch.context() as env:
        # No developer's COURSEBOT_* variables decide where this goes.
        for key in [k for k in os.environ if k.startswith("COURSEBOT_")]:
            env.delenv(key)
        async with open_core(discord_settings(data_dir)) as bot:
            teacher = Context("discord", COURSE, "discord:teacher", frozenset({Role.INSTRUCTOR}))
            report = await bot.ingest(teacher, [SourceFile.at(path) for path in COURSE_FILES])
            assert report.failed == []
            await bot.bindings.bind("discord", f"channel:{COURSE_CHANNEL_ID}", COURSE, "setup")
    return data_dir


@pytest.fixture
def settings(tmp_path: Path, course_data: Path) -> Settings:
    shutil.copytree(course_data, tmp_path / "data")
    return discord_settings(tmp_path / "data")


@pytest.fixture
async def bot(
    settings: Settings, embedder: MiniLMOnnxEmbedder, monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[CourseBot]:
    # The bundled model is loaded once per session, not once per test.
    monkeypatch.setattr(factory, "MiniLMOnnxEmbedder", lambda: embedder)
    async with open_core(settings) as core:
        yield core


@dataclass
class DiscordApp:
    """The adapter's client on a fake Discord, and the core behind it."""

    client: CourseClient
    fake: FakeDiscord
    bot: CourseBot

    async def run(
        self, command: str, person: Person, place: Place, **options: Any
    ) -> list[Request]:
        """Dispatch `/command` and return what it sent to Discord."""
        start = len(self.fake.requests)
        await interact(self.client, slash(command, person, place, **options))
        return self.fake.requests[start:]


@pytest.fixture
async def app(
    bot: CourseBot, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[DiscordApp]:
    client = build_client(bot, settings)
    fake = FakeDiscord()
    await fake.attach(client, monkeypatch, guilds=[server()])
    yield DiscordApp(client, fake, bot)
    await client.close()
