"""Quizzes and flashcards in Discord over the real client library: a quiz is one message per
question with A-D buttons, a flashcard turns and advances with buttons, every press goes
through the core (course, membership, the reply ledger) and is answered to the presser
alone, and the buttons keep working after the bot restarts."""

from __future__ import annotations

import io
import sqlite3
import tempfile
import zipfile
from pathlib import Path

import pytest
from support.fake_discord import (
    ADA,
    ALICE,
    BOB,
    COURSE,
    DEFER,
    EDIT_ORIGINAL,
    ELSEWHERE,
    EPHEMERAL,
    FOLLOW_UP,
    IN_COURSE,
    IN_RIVAL,
    MALLORY,
    FakeDiscord,
    Person,
    Place,
    Request,
    button_press,
    custom_ids,
    direct,
    press,
    rival_server,
    server,
)

from bot import composition
from bot.composition import open_assembly
from bot.discord.client import build_client
from bot.discord.members import channel_chat, server_chat, user_key
from config import Settings
from core.commands import ParsedCommand
from core.context import Audience, Member
from core.mistakes import MistakeLog
from core.replies import QuizReply
from core.requests import Place as CorePlace
from core.requests import Request as CoreRequest

# The course in these tests is its syllabus (and guided exercises): a quiz about the course.
TOPIC = "grading"
DEFERRED_CHANNEL_MESSAGE = 5
DEFERRED_UPDATE_MESSAGE = 6


async def served_quiz(bot, person: Person, argument: str) -> QuizReply:
    """The quiz the core serves `person` in the course channel (from its cache: the one
    the slash command showed), read with the correct answers the buttons do not show."""
    place = CorePlace(
        Audience.SHARED,
        chat_id=str(IN_COURSE.channel_id),
        lookup=(channel_chat(IN_COURSE.channel_id), server_chat(IN_COURSE.guild_id or 0)),
    )
    request = CoreRequest(
        member=Member(platform="discord", user_id=user_key(person.id)),
        place=place,
        message_id=f"test:quiz:{person.id}:{argument}",
        command=ParsedCommand("quiz", argument),
    )
    [quiz] = (await bot.handle(request)).replies
    assert isinstance(quiz, QuizReply), quiz
    return quiz


def question_messages(sent: list[Request]) -> list[Request]:
    return [r for r in sent if custom_ids(r)]


async def logged_mistakes(settings: Settings, outbox) -> list:
    # A background flush may hold the outbox's lock: wait for it, then flush the rest.
    await outbox.settled()
    await outbox.flush()
    log = await MistakeLog.open(settings, migrate_schema=False)
    try:
        return await log.latest(COURSE)
    finally:
        await log.close()


async def test_a_quiz_is_one_message_per_question_with_a_button_per_option(app) -> None:
    sent = await app.run("quiz", ALICE, IN_COURSE, topic=TOPIC, questions=3)
    quiz = await served_quiz(app.bot, ALICE, f"{TOPIC} 3")
    assert sent[0].is_(*DEFER) and not sent[0].ephemeral
    # The deferred response shows the job's steps, then the quiz's heading in their place.
    edits = [r for r in sent if r.is_(*EDIT_ORIGINAL)]
    assert edits[0].content.startswith(f"Making your quiz on '{TOPIC}': ")
    assert edits[-1].content.startswith(f"**Quiz: {TOPIC}")
    questions = question_messages(sent)
    assert len(questions) == len(quiz.questions) == 3
    for number, (message, question) in enumerate(zip(questions, quiz.questions, strict=True), 1):
        assert message.is_(*FOLLOW_UP) and not message.ephemeral
        assert message.content.startswith(f"{number}. ")
        assert question.options[0] in message.content
        assert custom_ids(message) == [
            f"coursebot:pick:{quiz.quiz_id}:{number}:{letter}" for letter in "ABCD"
        ]
        [row] = message.data["components"]
        assert [button["label"] for button in row["components"]] == list("ABCD")
        assert all(len(custom_id) <= 100 for custom_id in custom_ids(message))


async def test_a_wrong_option_is_answered_privately_and_logged_once(
    app, assembly, settings
) -> None:
    sent = await app.run("quiz", ALICE, IN_COURSE, topic=TOPIC, questions=3)
    quiz = await served_quiz(app.bot, ALICE, f"{TOPIC} 3")
    first = quiz.questions[0]
    wrong = "ABCD"[(first.correct + 1) % 4]
    message = app.fake.message_of(question_messages(sent)[0], IN_COURSE.channel_id)
    payload = button_press(f"coursebot:pick:{quiz.quiz_id}:1:{wrong}", ALICE, IN_COURSE, message)

    await press(app.client, payload)
    defer, feedback = app.fake.requests[len(sent) :]
    assert defer.is_(*DEFER) and defer.payload["type"] == DEFERRED_CHANNEL_MESSAGE
    assert defer.ephemeral and feedback.is_(*EDIT_ORIGINAL) and feedback.ephemeral
    right_one = f"{'ABCD'[first.correct]}) {first.options[first.correct]}"
    assert feedback.content.startswith(f"✗ Question 1: {wrong} is not it; the answer is ")
    assert right_one in feedback.content.replace("\\", "")
    assert "Source:" in feedback.content

    # Discord delivering the same press again: the stored reply, no second grading.
    before = len(app.fake.requests)
    await press(app.client, payload)
    assert app.fake.requests[-1].content == feedback.content
    assert len(app.fake.requests) == before + 2

    mistakes = await logged_mistakes(settings, assembly.outbox)
    assert [(m.exercise_id, m.step_index, m.student_id) for m in mistakes] == [
        (f"quiz-{quiz.quiz_id}", 0, user_key(ALICE.id))
    ]
    assert mistakes[0].skill and mistakes[0].answer == first.options["ABCD".index(wrong)]


async def test_each_student_answers_the_channels_quiz_for_themselves(app) -> None:
    sent = await app.run("quiz", ALICE, IN_COURSE, topic=TOPIC, questions=3)
    quiz = await served_quiz(app.bot, ALICE, f"{TOPIC} 3")
    right = "ABCD"[quiz.questions[0].correct]
    message = app.fake.message_of(question_messages(sent)[0], IN_COURSE.channel_id)
    custom_id = f"coursebot:pick:{quiz.quiz_id}:1:{right}"
    await press(app.client, button_press(custom_id, ALICE, IN_COURSE, message))
    await press(app.client, button_press(custom_id, BOB, IN_COURSE, message))
    alice_says, bob_says = [r for r in app.fake.requests if r.is_(*EDIT_ORIGINAL)][-2:]
    # Bob's answer is his own, not "already answered" because of Alice's.
    assert alice_says.content == bob_says.content
    assert bob_says.content.startswith(f"✓ Question 1: {right} is right.")
    assert alice_says.ephemeral and bob_says.ephemeral


async def test_the_last_answer_brings_the_score(app) -> None:
    sent = await app.run("quiz", ALICE, IN_COURSE, topic=TOPIC, questions=2)
    quiz = await served_quiz(app.bot, ALICE, f"{TOPIC} 2")
    messages = question_messages(sent)
    for question, sent_message in zip(quiz.questions, messages, strict=True):
        letter = "ABCD"[question.correct]
        message = app.fake.message_of(sent_message, IN_COURSE.channel_id)
        custom_id = f"coursebot:pick:{quiz.quiz_id}:{question.number}:{letter}"
        await press(app.client, button_press(custom_id, ALICE, IN_COURSE, message))
    assert "Quiz done: 2 of 2 right." in app.fake.requests[-1].content


async def test_a_press_in_another_course_is_refused_by_the_core(app) -> None:
    sent = await app.run("quiz", ALICE, IN_COURSE, topic=TOPIC, questions=3)
    quiz = await served_quiz(app.bot, ALICE, f"{TOPIC} 3")
    await app.run("bind", ADA, ELSEWHERE, course="physics1")  # Ada's own course
    message = app.fake.message_of(question_messages(sent)[0], ELSEWHERE.channel_id)
    custom_id = f"coursebot:pick:{quiz.quiz_id}:1:A"
    start = len(app.fake.requests)
    await press(app.client, button_press(custom_id, ADA, ELSEWHERE, message))
    refusal = app.fake.requests[start:][-1]
    assert refusal.ephemeral
    assert refusal.content.startswith("That quiz is not available to you any more")


async def test_a_button_pressed_after_a_restart_is_still_handled(
    settings: Settings, embedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(composition, "bundled_embedder", lambda _choice: embedder)
    async with open_assembly(settings) as assembly:
        client = build_client(assembly.bot, settings)
        fake = FakeDiscord()
        await fake.attach(client, monkeypatch, guilds=[server(), rival_server()])
        sent = await _slash(client, fake, "quiz", ALICE, IN_COURSE, topic=TOPIC, questions=3)
        quiz = await served_quiz(assembly.bot, ALICE, f"{TOPIC} 3")
        message = fake.message_of(question_messages(sent)[0], IN_COURSE.channel_id)
        await client.close()

    wrong = "ABCD"[(quiz.questions[0].correct + 1) % 4]
    custom_id = f"coursebot:pick:{quiz.quiz_id}:1:{wrong}"
    async with open_assembly(settings) as assembly:  # a new process over the same data
        client = build_client(assembly.bot, settings)
        fake = FakeDiscord()
        await fake.attach(client, monkeypatch, guilds=[server(), rival_server()])
        await press(client, button_press(custom_id, ALICE, IN_COURSE, message))
        await client.close()
        assert fake.requests[-1].ephemeral
        assert fake.requests[-1].content.startswith(f"✗ Question 1: {wrong} is not it")
        [mistake] = await logged_mistakes(settings, assembly.outbox)
        assert mistake.exercise_id == f"quiz-{quiz.quiz_id}"


async def test_flashcards_turn_and_advance_with_buttons(app) -> None:
    sent = await app.run("flashcards", ALICE, IN_COURSE, topic=TOPIC)
    [first] = question_messages(sent)
    assert not first.ephemeral and first.content.startswith("Card 1 of ")
    count = int(first.content.split("\n", 1)[0].rsplit(" ", 1)[-1])
    set_id = custom_ids(first)[0].split(":")[2]
    assert custom_ids(first) == [f"coursebot:card:{set_id}:1:back", f"coursebot:card:{set_id}:2"]
    assert "→" not in first.content  # the back stays hidden

    # Show answer on the channel's card: the presser gets their own copy, turned.
    channel_card = app.fake.message_of(first, IN_COURSE.channel_id)
    start = len(app.fake.requests)
    await press(app.client, button_press(custom_ids(first)[0], ALICE, IN_COURSE, channel_card))
    defer, turned = app.fake.requests[start:]
    assert defer.ephemeral and turned.ephemeral and turned.is_(*EDIT_ORIGINAL)
    assert turned.content.startswith(f"Card 1 of {count}") and "→ " in turned.content
    assert custom_ids(turned) == [f"coursebot:card:{set_id}:2"]  # only Next is left

    # Next on that private copy changes it in place.
    own_copy = app.fake.message_of(turned, IN_COURSE.channel_id)
    start = len(app.fake.requests)
    await press(app.client, button_press(custom_ids(turned)[0], ALICE, IN_COURSE, own_copy))
    defer, second = app.fake.requests[start:]
    assert defer.is_(*DEFER) and defer.payload["type"] == DEFERRED_UPDATE_MESSAGE
    assert second.is_(*EDIT_ORIGINAL) and second.content.startswith(f"Card 2 of {count}")
    assert custom_ids(second) == [f"coursebot:card:{set_id}:2:back", f"coursebot:card:{set_id}:3"]

    # The last card, turned: no buttons left at all.
    last = app.fake.message_of(second, IN_COURSE.channel_id)
    last["flags"] |= EPHEMERAL  # an edited ephemeral message stays one
    start = len(app.fake.requests)
    custom_id = f"coursebot:card:{set_id}:{count}:back"
    await press(
        app.client, button_press(custom_id, ALICE, IN_COURSE, _with_button(last, custom_id))
    )
    [_, end] = app.fake.requests[start:]
    assert end.content.startswith(f"Card {count} of {count}") and "→ " in end.content
    assert end.data["components"] == []


async def test_a_card_of_a_set_not_there_is_refused_privately(app) -> None:
    sent = await app.run("flashcards", ALICE, IN_COURSE, topic=TOPIC)
    [first] = question_messages(sent)
    set_id = custom_ids(first)[0].split(":")[2]
    own_copy = app.fake.message_of(first, IN_COURSE.channel_id)
    own_copy["flags"] |= EPHEMERAL
    custom_id = f"coursebot:card:{set_id}:99"
    start = len(app.fake.requests)
    await press(
        app.client, button_press(custom_id, ALICE, IN_COURSE, _with_button(own_copy, custom_id))
    )
    [_, refusal] = app.fake.requests[start:]
    # The card stays as it was; the refusal comes on its own, to the presser alone.
    assert refusal.is_(*FOLLOW_UP) and refusal.ephemeral
    assert refusal.content.startswith("That set has cards 1 to")


async def test_flashcards_come_as_an_anki_deck(app) -> None:
    sent = await app.run("flashcards", ALICE, IN_COURSE, topic=TOPIC, anki=True)
    files = {name: content for r in sent for name, content in r.files}
    deck = files[f"flashcards-{TOPIC}.apkg"]
    with zipfile.ZipFile(io.BytesIO(deck)) as package:
        collection = package.read("collection.anki2")
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "collection.anki2"
        path.write_bytes(collection)
        with sqlite3.connect(path) as db:
            fronts = [row[0].split("\x1f")[0] for row in db.execute("select flds from notes")]
    [first] = question_messages(sent)
    assert len(fronts) >= 8
    assert fronts[0].split()[0] in first.content


def _with_button(message: dict, custom_id: str) -> dict:
    """`message` carrying the button `custom_id` (what Discord shows on a later card)."""
    button = {"type": 2, "style": 2, "label": "x", "custom_id": custom_id}
    return {**message, "components": [{"type": 1, "components": [button]}]}


async def _slash(client, fake: FakeDiscord, command: str, person: Person, place: Place, **options):
    from support.fake_discord import interact, slash

    start = len(fake.requests)
    await interact(client, slash(command, person, place, **options))
    return fake.requests[start:]


async def test_a_hand_made_card_button_naming_a_classmates_own_set_shows_nothing(app) -> None:
    """A custom id is whatever a client sends: Alice's own set (made in her direct messages)
    named on a button Bob presses shows him no card, in the course channel or his DMs."""
    # Both write in the course channel first: that makes them its members.
    [bobs] = question_messages(await app.run("flashcards", BOB, IN_COURSE, topic="exam"))
    await app.run("flashcards", ALICE, IN_COURSE, topic="exam")
    await app.run("course", ALICE, direct(ALICE), course=COURSE)
    [alices] = question_messages(await app.run("flashcards", ALICE, direct(ALICE), topic=TOPIC))
    set_id = custom_ids(alices)[0].split(":")[2]
    custom_id = f"coursebot:card:{set_id}:1:back"
    for place in (IN_COURSE, direct(BOB)):
        message = _with_button(app.fake.message_of(bobs, place.channel_id), custom_id)
        start = len(app.fake.requests)
        await press(app.client, button_press(custom_id, BOB, place, message))
        shown = app.fake.requests[start:]
        assert all(r.ephemeral for r in shown if r.content)
        assert not any(r.content.startswith("Card 1 of") for r in shown), shown
        assert shown[-1].content.startswith("Those flashcards are not available"), shown
    # Alice herself turns it: the set is there.
    message = _with_button(app.fake.message_of(alices, direct(ALICE).channel_id), custom_id)
    start = len(app.fake.requests)
    await press(app.client, button_press(custom_id, ALICE, direct(ALICE), message))
    assert app.fake.requests[start:][-1].content.startswith("Card 1 of")


async def test_buttons_pressed_in_a_server_not_bound_to_the_course_are_refused(app) -> None:
    """Mallory's own server has no course: the course's quiz and card buttons, pressed
    there (a message copied over, or ids made by hand), answer nothing and record nothing."""
    sent = await app.run("quiz", ALICE, IN_COURSE, topic=TOPIC, questions=3)
    quiz = await served_quiz(app.bot, ALICE, f"{TOPIC} 3")
    [cards] = question_messages(await app.run("flashcards", ALICE, IN_COURSE, topic=TOPIC))
    set_id = custom_ids(cards)[0].split(":")[2]
    right = "ABCD"[quiz.questions[0].correct]
    for custom_id, message in (
        (f"coursebot:pick:{quiz.quiz_id}:1:{right}", question_messages(sent)[0]),
        (f"coursebot:card:{set_id}:1:back", cards),
    ):
        copied = _with_button(app.fake.message_of(message, IN_RIVAL.channel_id), custom_id)
        start = len(app.fake.requests)
        await press(app.client, button_press(custom_id, MALLORY, IN_RIVAL, copied))
        shown = app.fake.requests[start:]
        assert all(r.ephemeral for r in shown if r.content), shown
        assert not any(r.content.startswith(("Card 1 of", "✓", "✗")) for r in shown if r.content), (
            shown
        )
    # Nothing was recorded for her: in the course's own channel her answer is a first one.
    message = app.fake.message_of(question_messages(sent)[0], IN_COURSE.channel_id)
    custom_id = f"coursebot:pick:{quiz.quiz_id}:1:{right}"
    await press(app.client, button_press(custom_id, MALLORY, IN_COURSE, message))
    assert app.fake.requests[-1].content.startswith("✓ Question 1")
