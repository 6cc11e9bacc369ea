"""A student's record (passed and failed courses) is never shown where a group reads along:
`/profile` and `/cantake` are answered in a direct message or a whisper only, by the core,
whatever the adapter."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from support.asking import replies

from bot.composition import open_core
from config import Settings
from core.course_bot import CourseBot
from core.replies import ErrorReply


@pytest.fixture
async def bot(tmp_path: Path, bundled_model: None) -> AsyncIterator[CourseBot]:
    settings = Settings(_env_file=None, data_dir=tmp_path / "data")  # type: ignore[call-arg]
    async with open_core(settings) as core:
        yield core


@pytest.mark.parametrize(
    ("command", "shows"),
    [
        ("/profile", "your passed and failed courses"),
        ("/profile semester 3 failed MAS291", "your passed and failed courses"),
        ("/cantake CPV301", "what your record lets you take"),
    ],
)
async def test_a_record_is_not_shown_in_a_group(bot: CourseBot, command: str, shows: str) -> None:
    [reply] = await replies(bot, command, shared=True)
    assert isinstance(reply, ErrorReply)
    assert reply.text.startswith(f"{command.split()[0]} shows {shows}, so I only send it")
    assert "MAS291" not in reply.text


async def test_in_a_direct_message_the_profile_is_shown(bot: CourseBot) -> None:
    [reply] = await replies(bot, "/profile semester 3")
    assert not isinstance(reply, ErrorReply) and "semester 3" in reply.text
