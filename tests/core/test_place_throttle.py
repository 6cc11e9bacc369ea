"""The shared-place limit through the real core: many accounts in one group are held back
together (one polite reply, then silence), while the same people in a direct message, and
other groups, are answered; a member writing while others flood is served her share."""

from __future__ import annotations

import time
import uuid
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from support.clock import FakeClock

from bot.composition import open_core
from config import Settings
from core.context import Audience, Member
from core.course_bot import CourseBot
from core.replies import Notice
from core.requests import Place, Request, Response
from core.throttle import PLACE_THROTTLED_MESSAGE


@pytest.fixture
async def bot(tmp_path: Path, bundled_model: None) -> AsyncIterator[CourseBot]:
    settings = Settings(  # type: ignore[call-arg]
        _env_file=None,
        data_dir=tmp_path / "data",
        rate_limit="5/minute",
        place_rate_limit="3/minute",
    )
    async with open_core(settings) as core:
        yield core


def group(chat: str, *, whisper: bool = False) -> Place:
    key = f"chat:{chat}"
    return Place(
        Audience.SHARED,
        chat_id=chat,
        lookup=(key,),
        bind_key=key,
        name="This group",
        whisper=whisper,
    )


async def say(bot: CourseBot, user: str, place: Place, text: str = "/help") -> Response:
    member = Member("telegram", f"telegram:{user}")
    return await bot.handle(Request(member, place, message_id=f"test:{uuid.uuid4()}", text=text))


async def test_many_accounts_in_one_group_are_held_back_together(bot: CourseBot) -> None:
    answered = [await say(bot, str(n), group("-100")) for n in range(3)]
    assert all(r.replies and "/ask" in r.replies[0].text for r in answered)  # the help

    [told] = (await say(bot, "3", group("-100"))).replies
    assert isinstance(told, Notice) and told.text == PLACE_THROTTLED_MESSAGE
    assert (await say(bot, "4", group("-100"))).replies == ()

    # The same people in a direct message, and another group, are answered.
    direct = await say(bot, "4", Place(Audience.PRIVATE, chat_id="4"))
    other = await say(bot, "4", group("-200"))
    assert all("/ask" in r.replies[0].text for r in (direct, other))


async def test_buttons_answered_in_a_whisper_do_not_spend_the_channels_limit(
    bot: CourseBot,
) -> None:
    channel = group("-100", whisper=True)  # a Discord channel: the presser alone sees the reply
    for n in range(3):
        [reply] = (await say(bot, str(n), channel, "/pick 1 1 A")).replies
        assert reply.text != PLACE_THROTTLED_MESSAGE  # no such quiz: an error, not a throttle
    helped = [await say(bot, str(n), channel) for n in range(3)]
    assert all("/ask" in r.replies[0].text for r in helped)


async def test_where_the_group_sees_every_reply_buttons_count_like_messages(
    bot: CourseBot,
) -> None:
    for n in range(3):
        await say(bot, str(n), group("-100"), "/pick 1 1 A")
    [told] = (await say(bot, "3", group("-100"))).replies
    assert told.text == PLACE_THROTTLED_MESSAGE


def answered(response: Response) -> bool:
    """Whether the message was served (a refusal is silent, or one throttle notice)."""
    return any("/ask" in reply.text for reply in response.replies)  # type: ignore[attr-defined]


async def test_a_member_is_served_while_four_accounts_flood_her_group(
    tmp_path: Path, bundled_model: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 28.8 through the core, at the default limits (5 per 10 s a person, 40 a minute a
    group): four accounts write as fast as their own limit allows while a student writes
    every 3 s. She used to be refused ten times in a row; the flooders now wait their turn."""
    clock = FakeClock(1_000_000.0)
    monkeypatch.setattr(time, "time", clock)  # the throttle's counts follow the wall clock
    settings = Settings(_env_file=None, data_dir=tmp_path / "data")  # type: ignore[call-arg]
    async with open_core(settings) as bot:
        start, hers, flooders_served = clock.now, "", 0
        for second in range(120):
            clock.now = start + second
            if second % 2 == 0:
                for n in range(4):
                    flooders_served += answered(await say(bot, f"flood{n}", group("-100")))
            if second % 3 == 1:
                hers += "x" if answered(await say(bot, "student", group("-100"))) else "-"
    assert "---" not in hers and hers.count("x") >= len(hers) // 3, hers
    assert flooders_served < 4 * 60 // 2  # most of the flood was refused
