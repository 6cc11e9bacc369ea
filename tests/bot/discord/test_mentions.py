"""Messages that mention the bot in a server channel are questions about its course."""

from __future__ import annotations

from support.fake_discord import (
    ALICE,
    BOT,
    COURSE_CHANNEL_ID,
    ELSEWHERE,
    IN_COURSE,
    MO,
    OTHER_CHANNEL_ID,
    File,
    deliver_message,
    direct,
    message_payload,
)

from bot.discord.mentions import question_text
from core.answering import QuestionAnswering
from core.courses.access import UNBOUND_CHAT
from core.replies import Answer

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

    async def record(_answers, _ctx, question):
        asked.append(question)
        return Answer("Noted.")

    monkeypatch.setattr(QuestionAnswering, "ask", record)
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
    assert reply.content == UNBOUND_CHAT


async def test_a_mention_in_a_channel_never_draws_on_private_notes(app) -> None:
    """Nothing posted in a channel can be whispered, and in a channel nobody's notes are
    searched: the answer is the same as anyone else's would be."""
    notes = File("alice-notes.md", b"# My notes\n\nMy mnemonic for the quotient rule is zebra.\n")
    app.fake.serve(notes)
    await deliver_message(app.client, message_payload(ALICE, IN_COURSE, "hello", mentions=(BOT,)))
    added = await app.run("notes", ALICE, direct(ALICE), file=notes)  # her DM course: calc101
    assert added[-1].content.startswith("✓ alice-notes.md: added,")
    in_dm = await app.run("ask", ALICE, direct(ALICE), question="What is my mnemonic?")
    assert "zebra" in in_dm[-1].content  # the notes are there, for her

    app.fake.forget()
    text = f"<@{BOT.id}> What is my mnemonic for the quotient rule?"
    payload = message_payload(ALICE, IN_COURSE, text, mentions=(BOT,))
    await deliver_message(app.client, payload)
    [reply] = app.fake.channel_messages(COURSE_CHANNEL_ID)
    assert "zebra" not in str(reply.payload)
    assert "alice-notes" not in str(reply.payload)


async def test_a_confidential_command_in_a_mention_is_not_posted_in_the_channel(app) -> None:
    """A reply to a mention cannot be ephemeral, so the class's mistakes stay unsaid."""
    payload = message_payload(MO, IN_COURSE, f"<@{BOT.id}> /mistakes --csv", mentions=(BOT,))
    await deliver_message(app.client, payload)
    [reply] = app.fake.channel_messages(COURSE_CHANNEL_ID)
    assert reply.content.startswith("/mistakes shows students' names and answers")
    assert reply.files == []
