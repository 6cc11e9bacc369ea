"""Guided exercises in Discord: a practice session runs in a thread of its own, the steps are
answered there with slash commands, and the mistakes it logs reach moderators privately."""

from __future__ import annotations

import csv
import io

from support.fake_discord import (
    ALICE,
    APPLICATION_COMMAND_AUTOCOMPLETE,
    BOB,
    BOT,
    COURSE,
    COURSE_CHANNEL_ID,
    EDIT_ORIGINAL,
    IN_COURSE,
    MO,
    NEW_THREAD,
    Request,
    deliver_message,
    direct,
    in_thread,
    interact,
    message_payload,
    slash,
)

from bot.discord.members import user_key
from core.commands import ParsedCommand
from core.course_bot import CourseBot
from core.practice.service import NO_SESSION
from core.requests import Request as CoreRequest
from core.requests import Response

EXERCISE = "derivative-product-rule"
TITLE = "The product rule, step by step"


async def start_in_a_thread(app, person=ALICE) -> int:
    await app.run("practice", person, IN_COURSE, topic=EXERCISE)
    return app.fake.threads[-1]


async def test_practice_opens_a_thread_and_posts_the_first_step_there(app) -> None:
    sent = await app.run("practice", ALICE, IN_COURSE, topic=EXERCISE)

    [thread_request] = [r for r in sent if r.is_(*NEW_THREAD)]
    assert thread_request.url.endswith(f"/channels/{COURSE_CHANNEL_ID}/threads")
    assert thread_request.payload["name"] == f"{TITLE} · Alice"
    assert thread_request.payload["type"] == 11  # a public thread
    [thread_id] = app.fake.threads
    [step] = app.fake.channel_messages(thread_id)
    assert f"**{TITLE} — step 1/4**" in step.content
    assert "What is u'(x)" in step.content
    # The channel keeps one short line pointing to the thread.
    announcement = sent[-1]
    assert announcement.is_(*EDIT_ORIGINAL) and not announcement.ephemeral
    assert announcement.content == f"Alice started **{TITLE}**: it continues in <#{thread_id}>."
    assert app.fake.channel_messages(COURSE_CHANNEL_ID) == []


async def test_a_whole_exercise_is_worked_through_in_its_thread(app) -> None:
    thread = in_thread(await start_in_a_thread(app))

    wrong = await app.run("answer", ALICE, thread, answer="x^2")
    assert not wrong[-1].ephemeral
    assert wrong[-1].content.startswith("✗")

    hint = await app.run("hint", ALICE, thread)
    assert hint[0].ephemeral and hint[-1].ephemeral
    assert hint[-1].content.startswith("Hint 2:")  # the wrong answer brought hint 1

    right = await app.run("answer", ALICE, thread, answer="2x")
    assert right[-1].content.startswith("✓")
    assert "step 2/4" in right[-1].content

    status = await app.run("status", ALICE, thread)
    assert status[-1].ephemeral
    assert status[-1].content.startswith(f"{EXERCISE}: step 2 of 4")

    skipped = await app.run("skip", ALICE, thread)
    assert "Solution: The derivative of sin(x) is cos(x)." in skipped[-1].content
    assert "step 3/4" in skipped[-1].content

    ended = await app.run("quit", ALICE, thread)
    assert not ended[-1].ephemeral
    assert "The exercise ended." in ended[-1].content


async def test_a_mention_in_the_channel_is_a_question_while_the_thread_runs_an_exercise(
    app,
) -> None:
    # Issue 28.10: the session is the student's, not the place's; a line she addressed to
    # the bot outside the exercise's thread was graded as its answer.
    thread = in_thread(await start_in_a_thread(app))
    question = f"<@{BOT.id}> When is the final exam and where is it held?"
    await deliver_message(app.client, message_payload(ALICE, IN_COURSE, question, mentions=(BOT,)))
    [reply] = app.fake.channel_messages(COURSE_CHANNEL_ID)
    assert "Hall A" in reply.content and "✗" not in reply.content
    refused = await app.run("answer", ALICE, IN_COURSE, answer="2x")
    assert refused[-1].ephemeral and "runs in the chat where you started it" in refused[-1].content
    right = await app.run("answer", ALICE, thread, answer="2x")
    assert right[-1].content.startswith("✓") and "step 2/4" in right[-1].content


async def test_a_replayed_answer_is_graded_once_and_answered_again(app) -> None:
    thread = in_thread(await start_in_a_thread(app))
    payload = slash("answer", ALICE, thread, answer="x^2")
    first = await app.replay(payload)
    again = await app.replay(payload)  # the same interaction id again
    # The stored reply, not silence and not a second grading.
    assert [(r.method, r.path.rsplit("/", 1)[-1]) for r in again] == [
        ("POST", "callback"),
        ("PATCH", "@original"),
    ]
    assert again[-1].content.startswith("✗")
    assert again[-1].content == first[-1].content
    status = await app.run("status", ALICE, thread)
    assert "1 wrong attempt(s)" in status[-1].content


async def test_exercises_are_per_student(app) -> None:
    thread = in_thread(await start_in_a_thread(app, ALICE))
    sent = await app.run("answer", BOB, thread, answer="2x")
    assert sent[-1].ephemeral
    assert sent[-1].content == NO_SESSION


async def test_an_unknown_exercise_is_refused_privately_without_a_thread(app) -> None:
    sent = await app.run("practice", ALICE, IN_COURSE, topic="quantum chromodynamics")
    assert app.fake.threads == []
    assert not sent[0].ephemeral
    assert sent[-1].ephemeral
    assert "I found no guided exercise about 'quantum chromodynamics'" in sent[-1].content


async def test_practice_in_a_direct_message_stays_there(app) -> None:
    await app.run("status", ALICE, IN_COURSE)  # she is in the course's channel
    await app.run("course", ALICE, direct(ALICE), course=COURSE)
    sent = await app.run("practice", ALICE, direct(ALICE), topic=EXERCISE)
    assert app.fake.threads == []
    assert f"**{TITLE} — step 1/4**" in sent[-1].content


async def test_exercise_topics_are_autocompleted(app) -> None:
    payload = slash(
        "practice",
        ALICE,
        IN_COURSE,
        kind=APPLICATION_COMMAND_AUTOCOMPLETE,
        focused="topic",
        topic="product",
    )
    await interact(app.client, payload)
    [result] = app.fake.requests
    assert result.payload["data"]["choices"] == [{"name": TITLE, "value": EXERCISE}]


async def test_students_cannot_review_mistakes(app) -> None:
    sent = await app.run("mistakes", ALICE, IN_COURSE)
    assert sent[0].ephemeral and sent[-1].ephemeral
    assert sent[-1].content == "Sorry, only a course moderator can review the class's mistakes."


async def test_a_moderator_gets_the_chart_and_the_csv_privately(app) -> None:
    thread = in_thread(await start_in_a_thread(app, ALICE))
    await app.run("answer", ALICE, thread, answer="x^2")

    sent = await app.run("mistakes", MO, IN_COURSE, csv=True, student=ALICE)
    replies: list[Request] = sent[1:]
    assert sent[0].ephemeral and all(r.ephemeral for r in replies)
    assert f"Mistakes by skill for {COURSE}, student {user_key(ALICE.id)}:" in replies[0].content
    assert "power-rule: 1" in replies[0].content
    files = {name: content for r in replies for name, content in r.files}
    assert set(files) == {"mistakes-by-skill.png", "mistakes.csv"}
    assert files["mistakes-by-skill.png"].startswith(b"\x89PNG")
    rows = list(csv.DictReader(io.StringIO(files["mistakes.csv"].decode())))
    assert [(row["skill"], row["answer"]) for row in rows] == [("power-rule", "x^2")]


async def test_slash_options_reach_the_core_typed_not_as_a_line(app, monkeypatch) -> None:
    seen: list[ParsedCommand | None] = []
    handle = CourseBot.handle

    async def spy(core: CourseBot, request: CoreRequest) -> Response:
        seen.append(request.command)
        return await handle(core, request)

    monkeypatch.setattr(CourseBot, "handle", spy)
    await app.run("mistakes", MO, IN_COURSE, skill="power rule", csv=True, student=ALICE)
    await app.run("quiz", ALICE, IN_COURSE, topic="exam", questions=2)
    student = user_key(ALICE.id)
    assert seen == [
        ParsedCommand("mistakes", options={"skill": "power rule", "student": student, "csv": True}),
        ParsedCommand("quiz", options={"topic": "exam", "questions": 2}),
    ]


async def test_an_exercise_hides_its_solution_in_spoilers_and_runs_in_a_thread(app) -> None:
    import re

    sent = await app.run("exercise", ALICE, IN_COURSE, topic="power rule", difficulty="easy")
    [thread_id] = app.fake.threads
    posted = "\n".join(m.content for m in app.fake.channel_messages(thread_id))
    assert "**New exercise: The power rule with drawn coefficients**" in posted
    # The solution is in the thread, every piece of it inside a spoiler.
    hidden = re.findall(r"\|\|(.+?)\|\|", posted, re.S)
    assert hidden and "f'(x) =" in hidden[0]
    assert "f'(x) =" not in re.sub(r"\|\|.+?\|\|", "", posted, flags=re.S)
    assert "step 1/2" in posted
    assert "continues in" in sent[-1].content
    # The guided session runs on this instance: its own solution's answer is graded right.
    expected = re.search(r"= (\d+) x\^(\d+)\.", hidden[0])
    assert expected is not None, hidden[0]
    answer = f"{expected.group(1)} x^{expected.group(2)}"
    right = await app.run("answer", ALICE, in_thread(thread_id), answer=answer)
    assert right[-1].content.startswith("✓") and "step 2/2" in right[-1].content
