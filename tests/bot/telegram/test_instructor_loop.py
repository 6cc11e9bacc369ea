"""The instructor loop through the real python-telegram-bot `Application` and a fake Bot API
server: 👍 / 👎 inline buttons under answers (a replayed press counted once, a vote never
shown to the group), declined questions grouped for the staff, `/reply` making the staff's
answer cited course material, and the students who asked told where Telegram lets the bot."""

from __future__ import annotations

import csv
import importlib.util
import io
import re
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

from support.fake_telegram import BOT_USER, Call, user, visible_text


def _adapter_tests() -> ModuleType:
    """The adapter tests' module (its fixtures and helpers), loaded from its file: tests are
    imported by path here (`--import-mode=importlib`), not as a package."""
    path = Path(__file__).with_name("test_telegram_adapter.py")
    spec = importlib.util.spec_from_file_location("telegram_adapter_tests", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


_adapter = _adapter_tests()
ALICE, BOB, GROUP, MODERATOR, TEACHER = (
    _adapter.ALICE, _adapter.BOB, _adapter.GROUP, _adapter.MODERATOR, _adapter.TEACHER
)  # fmt: skip
ADMIN, OTHER_GROUP = _adapter.ADMIN, _adapter.OTHER_GROUP
TelegramBot = _adapter.TelegramBot
bind_group, buttons, course_in_dm, dm = (
    _adapter.bind_group, _adapter.buttons, _adapter.course_in_dm, _adapter.dm
)  # fmt: skip
joined, sent_messages, quiz_polls = _adapter.joined, _adapter.sent_messages, _adapter.quiz_polls
# Its fixtures, used here by name.
course_data, settings, tg = _adapter.course_data, _adapter.settings, _adapter.tg

CAROL = user(503, "Carol")
NOT_COVERED = "The course material does not cover this question."
ANSWER = "Students park in car park P3 behind the library; no permit is needed."


def vote_buttons(call: Call) -> dict[str, str]:
    return {b["text"]: b["callback_data"] for b in buttons(call) if b["text"] in ("👍", "👎")}


def to_chat(calls: list[Call], chat: dict[str, Any]) -> list[Call]:
    return [c for c in sent_messages(calls) if c.chat_id == chat["id"]]


async def test_a_question_declined_twice_is_answered_by_the_staff_cited_and_told(
    tg: TelegramBot,
) -> None:
    await bind_group(tg)
    await course_in_dm(tg, ALICE)
    assert NOT_COVERED in joined(
        await tg.say(dm(ALICE), ALICE, "Where can I park my car on campus?")
    )
    asked = f"@{BOT_USER['username']} Is there a car park on campus?"
    assert NOT_COVERED in joined(await tg.say(GROUP, BOB, asked))

    # Shown to the staff only where they alone read it: refused in the group.
    assert "direct message" in joined(await tg.say(GROUP, TEACHER, "/unanswered"))
    await course_in_dm(tg, TEACHER)
    listed = joined(await tg.say(dm(TEACHER), TEACHER, "/unanswered"))
    [(number, count)] = re.findall(r"#(\d+) — asked (\d+) times", listed)
    assert count == "2" and "“Is there a car park on campus?”" in listed

    calls = await tg.say(dm(TEACHER), TEACHER, f"/reply {number} {ANSWER}")
    # Alice has a chat with the bot and is told there; Bob never started one.
    assert "Told 1 of 2" in joined(to_chat(calls, dm(TEACHER)))
    [told] = to_chat(calls, dm(ALICE))
    assert "staff answered your question “Where can I park my car on campus?”" in visible_text(
        told.text
    )
    assert "car park P3" in told.text and "Ada" in told.text
    assert not to_chat(calls, GROUP)

    # A third student's question in other words is answered from it, cited as such.
    await course_in_dm(tg, CAROL)
    third = joined(await tg.say(dm(CAROL), CAROL, "Where do I park my car at the university?"))
    assert "car park P3 behind the library" in third
    assert re.search(r"Instructor answers\.md, .*Instructor answer, \d{4}-\d{2}-\d{2}", third)

    # Bob is told the next time he writes to the bot directly, never in the group.
    in_group = joined(await tg.say(GROUP, BOB, f"@{BOT_USER['username']} When is the final exam?"))
    assert "staff answered" not in in_group
    await course_in_dm(tg, BOB)
    later = joined(await tg.say(dm(BOB), BOB, "/sources"))
    assert "staff answered your question “Is there a car park on campus?”" in later


async def test_votes_are_private_counted_once_and_reach_the_digest(tg: TelegramBot) -> None:
    await course_in_dm(tg, ALICE)
    [answer] = sent_messages(await tg.say(dm(ALICE), ALICE, "When is the final exam?"))
    votes = vote_buttons(answer)
    assert set(votes) == {"👍", "👎"}
    down = await tg.press(answer.result, ALICE, votes["👎"])
    [ack] = [c for c in down if c.method == "answerCallbackQuery"]
    assert "not helpful" in ack.params["text"]
    [why] = sent_messages(down)
    reasons = {b["text"]: b["callback_data"] for b in buttons(why)}
    assert set(reasons) == {"wrong", "incomplete", "wrong course", "not what I asked"}
    update = tg.fake.callback_update(why.result, ALICE, reasons["incomplete"])
    first = await tg.send(update)
    assert "(incomplete)" in first[0].params["text"]
    replayed = await tg.replay(update)
    assert [c.method for c in replayed] == ["answerCallbackQuery"]

    await course_in_dm(tg, MODERATOR)
    digest = await tg.say(dm(MODERATOR), MODERATOR, "/digest week")
    text = joined(digest)
    assert "1 questions: 1 answered, 0 declined; 0 👍, 1 👎." in text
    assert "Why 👎: incomplete 1." in text and "alice" not in text.lower()
    files = [c.files for c in digest if c.method in ("sendPhoto", "sendDocument")]
    assert any(name == "digest.png" for f in files for name, _ in f.values())
    assert any(name == "digest.csv" for f in files for name, _ in f.values())


async def test_a_vote_in_the_group_is_shown_to_the_voter_alone(tg: TelegramBot) -> None:
    await bind_group(tg)
    question = f"@{BOT_USER['username']} When is the final exam?"
    [answer] = to_chat(await tg.say(GROUP, ALICE, question), GROUP)
    votes = vote_buttons(answer)
    # Bob has no chat with the bot: the reasons cannot reach him, and the group sees nothing.
    calls = await tg.press(answer.result, BOB, votes["👎"])
    assert not to_chat(calls, GROUP)
    [ack] = [c for c in calls if c.method == "answerCallbackQuery"]
    assert "start a direct chat" in ack.params["text"]
    # Alice has one: the reasons come there.
    await course_in_dm(tg, ALICE)
    calls = await tg.press(answer.result, ALICE, votes["👍"])
    assert not sent_messages(calls)
    calls = await tg.press(answer.result, ALICE, votes["👎"])
    assert not to_chat(calls, GROUP) and len(to_chat(calls, dm(ALICE))) == 1
    # A student sees no one's votes: the staff views are refused.
    refused = joined(await tg.say(dm(ALICE), ALICE, "/digest"))
    assert "👎" not in refused and "Sorry" in refused


def sent_files(calls: list[Call]) -> dict[str, bytes]:
    return {
        name: content
        for c in calls
        if c.method in ("sendPhoto", "sendDocument")
        for name, content in c.files.values()
    }


async def test_quiz_poll_answers_give_the_digest_its_accuracy_per_topic_counted_once(
    tg: TelegramBot,
) -> None:
    await course_in_dm(tg, ALICE)
    quiz, polls = await quiz_polls(tg, dm(ALICE), ALICE, "derivatives 3")
    first, second, third = (call.result["poll"] for call in polls)
    right = [q.correct for q in quiz.questions]
    await tg.vote(first, ALICE, right[0])
    wrong_vote, _ = await tg.vote(second, ALICE, (right[1] + 1) % 4)
    # Telegram delivering the same update again, and a second vote: still one answer each.
    await tg.replay(wrong_vote)
    await tg.vote(second, ALICE, right[1])
    await tg.vote(third, ALICE, right[2])
    await tg.assembly.quiz_answers.settled()
    await tg.assembly.quiz_answers.flush()

    await course_in_dm(tg, MODERATOR)
    digest = await tg.say(dm(MODERATOR), MODERATOR, "/digest week")
    text = joined(digest)
    assert "Quiz accuracy by topic (least right first):" in text
    assert "derivatives: 2 of 3 right (67%)" in text
    files = sent_files(digest)
    assert files["digest.png"].startswith(b"\x89PNG")
    rows = list(csv.reader(io.StringIO(files["quiz-accuracy.csv"].decode("utf-8-sig"))))
    assert rows == [
        ["topic", "answers", "correct", "accuracy_percent"],
        ["derivatives", "3", "2", "67"],
    ]
    # Nobody is named: not in the text, the chart's CSV of questions or the accuracy.
    for shown in (text, files["quiz-accuracy.csv"].decode(), files["digest.csv"].decode()):
        assert "alice" not in shown.lower() and str(ALICE["id"]) not in shown


async def test_a_staff_answer_telegram_refuses_to_deliver_is_shown_when_they_next_write(
    tg: TelegramBot,
) -> None:
    for student, question in (
        (ALICE, "Where can I park my car on campus?"),
        (BOB, "Is there a car park on campus?"),
    ):
        await course_in_dm(tg, student)
        assert NOT_COVERED in joined(await tg.say(dm(student), student, question))
    await course_in_dm(tg, TEACHER)
    listed = joined(await tg.say(dm(TEACHER), TEACHER, "/unanswered"))
    [number] = re.findall(r"#(\d+) — asked 2 times", listed)

    tg.fake.blocked.add(ALICE["id"])  # Alice blocked the bot: Telegram answers 403
    calls = await tg.say(dm(TEACHER), TEACHER, f"/reply {number} {ANSWER}")
    refused = [c for c in calls if c.method == "sendMessage" and c.chat_id == ALICE["id"]]
    assert refused and all(c.result is None for c in refused)
    assert "Told 1 of 2" in joined(to_chat(calls, dm(TEACHER)))
    assert len(to_chat(calls, dm(BOB))) == 1

    # Kept for her: shown once, the next time she writes (after unblocking the bot).
    tg.fake.blocked.clear()
    later = joined(await tg.say(dm(ALICE), ALICE, "/sources"))
    assert "staff answered your question “Where can I park my car on campus?”" in later
    assert "car park P3" in later
    assert "staff answered" not in joined(await tg.say(dm(ALICE), ALICE, "/sources"))
    # Bob, told directly, is not told again.
    assert "staff answered" not in joined(await tg.say(dm(BOB), BOB, "/sources"))


async def test_a_reply_to_a_listed_group_answers_it(tg: TelegramBot) -> None:
    for student, question in (
        (ALICE, "Where can I park my car on campus?"),
        (BOB, "Is there a car park on campus?"),
    ):
        await course_in_dm(tg, student)
        assert NOT_COVERED in joined(await tg.say(dm(student), student, question))
    pets = "Which pet food brand is best for a puppy?"
    assert NOT_COVERED in joined(await tg.say(dm(ALICE), ALICE, pets))
    await course_in_dm(tg, TEACHER)
    listing = to_chat(await tg.say(dm(TEACHER), TEACHER, "/unanswered"), dm(TEACHER))
    # One message per group, so that a reply names one.
    [parking] = [c for c in listing if "asked 2 times" in c.text]
    [pet] = [c for c in listing if "puppy" in c.text]
    [number] = re.findall(r"#(\d+)", visible_text(parking.text))

    calls = await tg.say(dm(TEACHER), TEACHER, ANSWER, reply_to=parking.result)
    assert f"Answered #{number}" in joined(to_chat(calls, dm(TEACHER)))
    assert "Told 2 of 2" in joined(to_chat(calls, dm(TEACHER)))
    assert "car park P3" in joined(to_chat(calls, dm(BOB)))
    # The other group is still open; a reply to any other message of the bot is a question.
    listed = joined(await tg.say(dm(TEACHER), TEACHER, "/unanswered"))
    assert "puppy" in listed and "car park" not in listed
    [answer] = sent_messages(await tg.say(dm(ALICE), ALICE, "When is the final exam?"))
    calls = await tg.say(dm(ALICE), ALICE, "And the resit?", reply_to=answer.result)
    assert "Answered #" not in joined(calls) and "Sorry" not in joined(calls)
    # The mapping is the chat's: the same message id named in another chat answers nothing.
    elsewhere = joined(await tg.say(dm(BOB), BOB, "Any brand will do.", reply_to=pet.result))
    assert "Answered #" not in elsewhere
    assert "puppy" in joined(await tg.say(dm(TEACHER), TEACHER, "/unanswered"))


async def test_another_courses_instructor_sees_nothing_of_this_courses_staff_views(
    tg: TelegramBot,
) -> None:
    await course_in_dm(tg, ALICE)
    await tg.say(dm(ALICE), ALICE, "Where can I park my car on campus?")
    [answer] = sent_messages(await tg.say(dm(ALICE), ALICE, "When is the final exam?"))
    await tg.press(answer.result, ALICE, vote_buttons(answer)["👎"])
    await course_in_dm(tg, TEACHER)
    listed = joined(await tg.say(dm(TEACHER), TEACHER, "/unanswered"))
    numbers = re.findall(r"#(\d+) — asked once", listed)
    assert len(numbers) == 2

    # Grace creates a course of her own by binding her group: she is its instructor.
    tg.fake.set_status(OTHER_GROUP, ADMIN, "creator")
    assert "you are its instructor" in joined(await tg.say(OTHER_GROUP, ADMIN, "/bind Physics-1"))
    chosen = joined(await tg.say(dm(ADMIN), ADMIN, "/course physics-1"))
    assert "now about the course 'physics-1'" in chosen
    own = joined(
        [
            *await tg.say(dm(ADMIN), ADMIN, "/unanswered"),
            *await tg.say(dm(ADMIN), ADMIN, "/digest month"),
            *await tg.say(dm(ADMIN), ADMIN, f"/reply {numbers[0]} Anywhere."),
        ]
    )
    assert "No unanswered questions in 'physics-1'" in own
    assert "0 questions: 0 answered, 0 declined; 0 👍, 0 👎." in own
    assert f"There is no question #{numbers[0]} in 'physics-1'" in own
    assert "park" not in own and "final exam" not in own
    # In this course (open: anyone may join) she is a student: the staff views are refused.
    await course_in_dm(tg, ADMIN)
    refused = joined(
        [
            *await tg.say(dm(ADMIN), ADMIN, "/unanswered"),
            *await tg.say(dm(ADMIN), ADMIN, "/digest"),
            *await tg.say(dm(ADMIN), ADMIN, "/good --answer " + str(answer_id(answer))),
        ]
    )
    assert "park" not in refused and "👎" not in refused and refused.count("Sorry") >= 2
    # The queue is as it was.
    assert (
        re.findall(
            r"#(\d+) — asked once", joined(await tg.say(dm(TEACHER), TEACHER, "/unanswered"))
        )
        == numbers
    )


def answer_id(answer: Call) -> int:
    """The answer's number, as its 👍 button carries it."""
    return int(re.findall(r"\d+", vote_buttons(answer)["👍"])[0])
