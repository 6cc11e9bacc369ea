"""Messages that mention the bot in a server channel are questions about its course."""

from __future__ import annotations

from support.fake_discord import (
    ALICE,
    BOT,
    COURSE_CHANNEL_ID,
    ELSEWHERE,
    IN_COURSE,
    OTHER_CHANNEL_ID,
    deliver_message,
    message_payload,
)

from bot.common import wording
from bot.discord.mentions import PRIVATE_ANSWER, question_text
from core.replies import Answer, Citation

QUESTION = "When is the final exam and where is it held?"


async def test_a_mention_in_a_bound_channel_is_answered_as_a_question(app) -> None:
    payload = message_payload(ALICE, IN_COURSE, f"<@{BOT.id}> {QUESTION}", mentions=(BOT,))
    await deliver_message(app.client, payload)

    [reply] = app.fake.channel_messages(COURSE_CHANNEL_ID)
    assert reply.payload["message_reference"]["message_id"] == int(payload["id"])
    assert reply.payload["allowed_mentions"] == {"parse": [], "replied_user": False}
    assert "Hall A" in reply.content
    assert reply.embeds[0]["title"] == "Sources"
    assert app.fake.sent("POST", "/typing")  # the channel saw the bot typing meanwhile


async def test_the_mention_is_not_part_of_the_question(app, monkeypatch) -> None:
    asked = []

    async def record(_ctx, question):
        asked.append(question)
        return Answer("Noted.")

    monkeypatch.setattr(app.bot, "ask", record)
    text = f"<@!{BOT.id}> what is a   limit? <@{BOT.id}>"
    await deliver_message(app.client, message_payload(ALICE, IN_COURSE, text, mentions=(BOT,)))
    assert asked == ["what is a limit?"]
    assert question_text(text, BOT.id) == "what is a limit?"


async def test_messages_without_a_mention_or_from_bots_are_ignored(app) -> None:
    await deliver_message(app.client, message_payload(ALICE, IN_COURSE, QUESTION))
    from_a_bot = message_payload(BOT, IN_COURSE, f"<@{BOT.id}> {QUESTION}", mentions=(BOT,))
    await deliver_message(app.client, from_a_bot)
    assert app.fake.requests == []


async def test_a_mention_in_an_unbound_channel_explains_binding(app) -> None:
    payload = message_payload(ALICE, ELSEWHERE, f"<@{BOT.id}> {QUESTION}", mentions=(BOT,))
    await deliver_message(app.client, payload)
    [reply] = app.fake.channel_messages(OTHER_CHANNEL_ID)
    assert reply.content == wording.UNBOUND_CHAT


async def test_an_answer_from_private_notes_is_not_posted_in_the_channel(app, monkeypatch) -> None:
    async def from_notes(_ctx, _question):
        return Answer("Low dee high.", (Citation("alice-notes.md", private=True),))

    monkeypatch.setattr(app.bot, "ask", from_notes)
    payload = message_payload(ALICE, IN_COURSE, f"<@{BOT.id}> mnemonic?", mentions=(BOT,))
    await deliver_message(app.client, payload)
    [reply] = app.fake.channel_messages(COURSE_CHANNEL_ID)
    assert reply.content == PRIVATE_ANSWER
    assert "alice-notes" not in str(reply.payload)
