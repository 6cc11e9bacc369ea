"""The instructor loop through discord.py on a fake Discord: 👍 / 👎 buttons under answers
(answered to the presser alone, handled after a restart), declined questions grouped for the
staff (ephemeral), `/reply` making the staff's answer cited course material."""

from __future__ import annotations

import re

import pytest
from support.fake_discord import (
    ALICE,
    BOB,
    IN_COURSE,
    MO,
    TESS,
    FakeDiscord,
    Request,
    button_press,
    custom_ids,
    interact,
    press,
    rival_server,
    server,
    slash,
)

from bot import composition
from bot.composition import open_assembly
from bot.discord.client import build_client
from config import Settings

NOT_COVERED = "The course material does not cover this question."


def shown(sent: list[Request]) -> str:
    return "\n".join([r.content for r in sent] + [str(e) for r in sent for e in r.embeds])


def answered(sent: list[Request]) -> Request:
    return next(r for r in sent if any(":vote:" in c for c in custom_ids(r)))


async def test_a_declined_question_reaches_the_staff_and_their_answer_is_cited(app) -> None:
    assert NOT_COVERED in shown(
        await app.run("ask", ALICE, IN_COURSE, question="Where can I park my car on campus?")
    )
    assert NOT_COVERED in shown(
        await app.run("ask", BOB, IN_COURSE, question="Is there a car park on campus?")
    )
    assert "Sorry" in shown(await app.run("unanswered", BOB, IN_COURSE))
    sent = await app.run("unanswered", MO, IN_COURSE)
    assert all(r.ephemeral for r in sent if r.content)
    [(number, count)] = re.findall(r"#(\d+) — asked (\d+) times", shown(sent))
    assert count == "2"
    reply = "Students park in car park P3 behind the library; no permit is needed."
    done = shown(await app.run("reply", TESS, IN_COURSE, id=int(number), answer=reply))
    assert f"Answered #{number}" in done
    third = shown(
        await app.run("ask", ALICE, IN_COURSE, question="Where do I park my car at the university?")
    )
    assert "car park P3 behind the library" in third
    assert re.search(r"Instructor answers\.md, .*Instructor answer, \d{4}-\d{2}-\d{2}", third)


async def test_a_vote_is_for_the_presser_alone_and_a_reason_is_one_tap(app) -> None:
    sent = await app.run("ask", ALICE, IN_COURSE, question="When is the final exam?")
    answer = answered(sent)
    message = app.fake.message_of(answer, IN_COURSE.channel_id)
    _up, down = [c for c in custom_ids(answer) if ":vote:" in c]
    start = len(app.fake.requests)
    await press(app.client, button_press(down, BOB, IN_COURSE, message))
    why = app.fake.requests[start:][-1]
    assert why.ephemeral and "Why?" in why.content
    reasons = custom_ids(why)
    assert reasons[-1].endswith(":down:asked")
    on_why = app.fake.message_of(why, IN_COURSE.channel_id)
    await press(app.client, button_press(reasons[0], BOB, IN_COURSE, on_why))
    assert app.fake.requests[-1].ephemeral
    assert "not helpful (wrong)" in app.fake.requests[-1].content
    digest = shown(await app.run("digest", MO, IN_COURSE))
    assert "0 👍, 1 👎" in digest and "Why 👎: wrong 1." in digest
    assert "bob" not in digest.lower()


async def test_a_vote_button_pressed_after_a_restart_is_still_handled(
    settings: Settings, embedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(composition, "bundled_embedder", lambda _choice: embedder)
    async with open_assembly(settings) as assembly:
        client = build_client(assembly.bot, settings)
        fake = FakeDiscord()
        await fake.attach(client, monkeypatch, guilds=[server(), rival_server()])
        start = len(fake.requests)
        await interact(client, slash("ask", ALICE, IN_COURSE, question="When is the final exam?"))
        answer = answered(fake.requests[start:])
        message = fake.message_of(answer, IN_COURSE.channel_id)
        await client.close()

    down = next(c for c in custom_ids(answer) if c.endswith(":down"))
    async with open_assembly(settings) as assembly:  # a new process over the same data
        client = build_client(assembly.bot, settings)
        fake = FakeDiscord()
        await fake.attach(client, monkeypatch, guilds=[server(), rival_server()])
        await press(client, button_press(down, ALICE, IN_COURSE, message))
        assert fake.requests[-1].ephemeral and "Why?" in fake.requests[-1].content
        start = len(fake.requests)
        await interact(client, slash("digest", MO, IN_COURSE))
        assert "0 👍, 1 👎" in shown(fake.requests[start:])
        await client.close()
