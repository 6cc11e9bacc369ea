"""The Discord adapter on the real core (Qdrant local mode, SQLite, in-process sessions) and a
recording fake of Discord's HTTP layer.

The sample course's syllabus and guided exercises are ingested once per session into a data
folder, with the course channel bound to the course; each test works on its own copy."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from support.data_dirs import copy_data_dir
from support.fake_discord import (
    COURSE,
    COURSE_CHANNEL_ID,
    COURSE_ROLES,
    GUILD_ID,
    FakeDiscord,
    Person,
    Place,
    Request,
    interact,
    rival_server,
    server,
    slash,
)
from support.paths import SAMPLE_COURSE

from bot import composition
from bot.composition import Assembly, open_assembly
from bot.discord.client import CourseClient, build_client
from bot.discord.members import channel_chat, server_chat
from config import Settings
from core.commands import ParsedCommand
from core.context import Audience, Member
from core.course_bot import CourseBot
from core.embedding.minilm_onnx import MiniLMOnnxEmbedder
from core.index import ChunkIndex
from core.material import SourceFile
from core.requests import Place as CorePlace
from core.requests import Request as CoreRequest

COURSE_FILES = (
    SAMPLE_COURSE / "syllabus.md",
    SAMPLE_COURSE / "exercises" / "derivative-product-rule.exercise.yaml",
    SAMPLE_COURSE / "exercises" / "limits-basics.exercise.yaml",
    SAMPLE_COURSE / "exercises" / "power-rule-drill.exercise.yaml",
)
OPERATOR = Member(platform="discord", user_id="discord:setup")


def discord_settings(data_dir: Path) -> Settings:
    # A whole exercise is worked through in a second here: no throttle gets in the way.
    return Settings(  # type: ignore[call-arg]
        _env_file=None,
        data_dir=data_dir,
        course_roles=COURSE_ROLES,
        rate_limit="1000/minute",
        place_rate_limit="1000/minute",
    )


async def bind_as_operator(bot: CourseBot, channel_id: int, course: str) -> None:
    """Bind a channel the way the operator's console does, through the one entry."""
    channel = channel_chat(channel_id)
    place = CorePlace(
        Audience.SHARED,
        chat_id=str(channel_id),
        lookup=(channel, server_chat(GUILD_ID)),
        bind_key=channel,
    )
    request = CoreRequest(
        member=OPERATOR,
        place=place,
        message_id=f"setup:bind:{channel_id}",
        command=ParsedCommand("bind", course),
        operator=True,
    )
    response = await bot.handle(request)
    [notice] = response.replies
    assert "is now bound" in notice.text, notice


@pytest_asyncio.fixture(scope="session", loop_scope="session")
async def course_data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    data_dir = tmp_path_factory.mktemp("discord-course") / "data"
    with pytest.MonkeyPatch.context() as env:
        # No developer's COURSEBOT_* variables decide where this goes.
        for key in [k for k in os.environ if k.startswith("COURSEBOT_")]:
            env.delenv(key)
        async with open_assembly(discord_settings(data_dir)) as assembly:
            bot = assembly.bot
            report = await bot.ingest_files(COURSE, [SourceFile.at(path) for path in COURSE_FILES])
            assert report.failed == []
            await bind_as_operator(bot, COURSE_CHANNEL_ID, COURSE)
    return data_dir


@pytest.fixture
def settings(tmp_path: Path, course_data: Path) -> Settings:
    copy_data_dir(course_data, tmp_path / "data")
    return discord_settings(tmp_path / "data")


@pytest.fixture
async def assembly(
    settings: Settings, embedder: MiniLMOnnxEmbedder, monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[Assembly]:
    # The bundled model is loaded once per session, not once per test.
    monkeypatch.setattr(composition, "bundled_embedder", lambda _choice: embedder)
    async with open_assembly(settings) as opened:
        yield opened


@pytest.fixture
def bot(assembly: Assembly) -> CourseBot:
    return assembly.bot


@dataclass
class DiscordApp:
    """The adapter's client on a fake Discord, and the core behind it."""

    client: CourseClient
    fake: FakeDiscord
    bot: CourseBot
    index: ChunkIndex

    async def run(
        self, command: str, person: Person, place: Place, **options: Any
    ) -> list[Request]:
        """Dispatch `/command` and return what it sent to Discord."""
        return await self.replay(slash(command, person, place, **options))

    async def replay(self, payload: dict[str, Any]) -> list[Request]:
        """Dispatch an interaction payload (again, if it was sent before)."""
        start = len(self.fake.requests)
        await interact(self.client, payload)
        return self.fake.requests[start:]


@pytest.fixture
async def app(
    assembly: Assembly, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[DiscordApp]:
    client = build_client(assembly.bot, settings)
    fake = FakeDiscord()
    await fake.attach(client, monkeypatch, guilds=[server(), rival_server()])
    yield DiscordApp(client, fake, assembly.bot, assembly.index)
    await client.close()
