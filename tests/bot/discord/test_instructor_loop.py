"""The instructor loop through discord.py on a fake Discord: 👍 / 👎 buttons under answers
(answered to the presser alone, handled after a restart), declined questions grouped for the
staff (ephemeral), `/reply` making the staff's answer cited course material."""

from __future__ import annotations

import re

import pytest
from support.fake_discord import (
    ALICE,
    BOB,
    COURSE,
    COURSE_ROLES,
    IN_COURSE,
    IN_RIVAL,
    MALLORY,
    MO,
    TESS,
    FakeDiscord,
    Request,
    button_press,
    custom_ids,
    deliver_message,
    direct,
    interact,
    message_payload,
    press,
    rival_server,
    server,
    slash,
)

from bot import composition
from bot.composition import open_assembly
from bot.discord.client import build_client
from bot.discord.members import channel_chat, server_chat, user_key
from config import Settings
from core.commands import ParsedCommand
from core.context import Audience, Member
from core.replies import QuizReply
from core.requests import Place as CorePlace
from core.requests import Request as CoreRequest

NOT_COVERED = "The course material does not cover this question."
ANSWER = "Students park in car park P3 behind the library; no permit is needed."


@pytest.fixture
def settings(settings: Settings) -> Settings:
    """Mo also moderates by his own id: in a direct message he has no server roles."""
    roles = {
        **COURSE_ROLES[COURSE],
        "moderator": [*COURSE_ROLES[COURSE]["moderator"], f"discord:{MO.id}"],
    }
    return settings.model_copy(update={"course_roles": {COURSE: roles}})


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
    app.fake.closed_dms.add(BOB.id)  # Bob does not take direct messages from the bot
    done = shown(await app.run("reply", TESS, IN_COURSE, id=int(number), answer=ANSWER))
    assert f"Answered #{number}" in done and "Told 1 of 2" in done
    # Alice is told in a direct message of her own; the channel never sees it.
    told = shown(app.fake.channel_messages(direct(ALICE).channel_id))
    assert "staff answered your question “Where can I park my car on campus?”" in told
    assert "car park P3" in told
    assert "staff answered" not in shown(app.fake.channel_messages(IN_COURSE.channel_id))
    third = shown(
        await app.run("ask", ALICE, IN_COURSE, question="Where do I park my car at the university?")
    )
    assert "car park P3 behind the library" in third
    assert re.search(r"Instructor answers\.md, .*Instructor answer, \d{4}-\d{2}-\d{2}", third)
    # Bob sees it the next time he writes where he alone reads, once.
    assert "staff answered" not in shown(await app.run("sources", BOB, IN_COURSE))
    await app.run("course", BOB, direct(BOB), course=COURSE)
    later = shown(await app.run("sources", BOB, direct(BOB)))
    assert "staff answered your question “Is there a car park on campus?”" in later
    assert "staff answered" not in shown(await app.run("sources", BOB, direct(BOB)))


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


async def served_quiz(bot, person, argument: str) -> QuizReply:
    """The quiz the slash command showed `person` in the course channel (from the core's
    cache), read with the correct answers the buttons do not show."""
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


async def test_quiz_button_answers_give_the_digest_its_accuracy_per_topic_counted_once(
    app, assembly
) -> None:
    sent = await app.run("quiz", ALICE, IN_COURSE, topic="grading", questions=2)
    quiz = await served_quiz(app.bot, ALICE, "grading 2")
    messages = [app.fake.message_of(r, IN_COURSE.channel_id) for r in sent if custom_ids(r)]
    right = ["ABCD"[q.correct] for q in quiz.questions]
    wrong = ["ABCD"[(q.correct + 1) % 4] for q in quiz.questions]

    def pressed(number: int, letter: str, person) -> dict:
        custom_id = f"coursebot:pick:{quiz.quiz_id}:{number}:{letter}"
        return button_press(custom_id, person, IN_COURSE, messages[number - 1])

    await press(app.client, pressed(1, right[0], ALICE))
    second = pressed(2, wrong[1], ALICE)
    await press(app.client, second)
    await press(app.client, second)  # Discord delivering the same press again
    await press(app.client, pressed(2, right[1], ALICE))  # a second answer: not counted
    await press(app.client, pressed(1, wrong[0], BOB))
    await assembly.quiz_answers.settled()
    await assembly.quiz_answers.flush()

    sent = await app.run("digest", MO, IN_COURSE)
    text = shown(sent)
    assert "grading: 1 of 3 right (33%)" in text
    files = dict(f for r in sent for f in r.files)
    content = files["quiz-accuracy.csv"]
    assert content.decode("utf-8-sig").splitlines()[1] == "grading,3,1,33"
    assert "alice" not in text.lower() and "bob" not in text.lower()


async def test_a_reply_to_a_listed_group_in_a_direct_message_answers_it(app) -> None:
    for person, question in (
        (ALICE, "Where can I park my car on campus?"),
        (BOB, "Is there a car park on campus?"),
    ):
        assert NOT_COVERED in shown(await app.run("ask", person, IN_COURSE, question=question))
    await app.run("ask", MO, IN_COURSE, question="When is the final exam?")  # a member now
    await app.run("course", MO, direct(MO), course=COURSE)
    listing = await app.run("unanswered", MO, direct(MO))
    [group] = [r for r in listing if "asked 2 times" in r.content]
    # A message one can reply to: not ephemeral (nobody else reads a direct message).
    assert not group.ephemeral
    [number] = re.findall(r"#(\d+)", group.content)
    listed = app.fake.message_of(group, direct(MO).channel_id)

    reply = message_payload(MO, direct(MO), ANSWER)
    reply["message_reference"] = {"message_id": listed["id"], "channel_id": listed["channel_id"]}
    start = len(app.fake.requests)
    await deliver_message(app.client, reply)
    said = shown(app.fake.channel_messages(direct(MO).channel_id)[-1:])
    assert f"Answered #{number}" in said and len(app.fake.requests) > start
    third = shown(
        await app.run("ask", ALICE, IN_COURSE, question="Where do I park my car at the university?")
    )
    assert "car park P3 behind the library" in third
    assert re.search(r"Instructor answers\.md, .*Instructor answer, \d{4}-\d{2}-\d{2}", third)
    # A direct reply to any other message of the bot is a question like any other.
    other = message_payload(MO, direct(MO), "And the resit?")
    other["message_reference"] = {"message_id": "1", "channel_id": listed["channel_id"]}
    await deliver_message(app.client, other)
    assert "Answered #" not in shown(app.fake.channel_messages(direct(MO).channel_id)[-1:])


async def test_another_courses_instructor_and_students_see_nothing_of_the_staff_views(app) -> None:
    await app.run("ask", ALICE, IN_COURSE, question="Where can I park my car on campus?")
    [answer] = [
        r
        for r in await app.run("ask", ALICE, IN_COURSE, question="When is the final exam?")
        if any(":vote:" in c for c in custom_ids(r))
    ]
    message = app.fake.message_of(answer, IN_COURSE.channel_id)
    down = next(c for c in custom_ids(answer) if c.endswith(":down"))
    await press(app.client, button_press(down, ALICE, IN_COURSE, message))
    listed = shown(await app.run("unanswered", MO, IN_COURSE))
    [number] = re.findall(r"#(\d+) — asked once \(1 declined\)", listed)
    assert "0 👍, 1 👎" in shown(await app.run("digest", MO, IN_COURSE))

    # Mallory binds her own server's channel to a course of her own: its instructor.
    assert "is now bound" in shown(await app.run("bind", MALLORY, IN_RIVAL, course="physics"))
    other = shown(
        await app.run("unanswered", MALLORY, IN_RIVAL)
        + await app.run("digest", MALLORY, IN_RIVAL)
        + await app.run("reply", MALLORY, IN_RIVAL, id=int(number), answer="Anywhere.")
    )
    assert "No unanswered questions in 'physics'" in other
    assert "0 questions: 0 answered, 0 declined; 0 👍, 0 👎." in other
    assert f"There is no question #{number} in 'physics'" in other
    assert "park" not in other and "final exam" not in other
    # A classmate of this course: the staff views are refused, and no vote shows.
    student = shown(
        await app.run("unanswered", BOB, IN_COURSE) + await app.run("digest", BOB, IN_COURSE)
    )
    assert "park" not in student and "👎" not in student and student.count("Sorry") == 2
    # Mallory's attempt changed nothing here: the group is still open.
    assert f"#{number} — asked once" in shown(await app.run("unanswered", MO, IN_COURSE))
