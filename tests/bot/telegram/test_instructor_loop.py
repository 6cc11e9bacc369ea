"""The instructor loop through the real python-telegram-bot `Application` and a fake Bot API
server: 👍 / 👎 inline buttons under answers (a replayed press counted once, a vote never
shown to the group), declined questions grouped for the staff, `/reply` making the staff's
answer cited course material, and the students who asked told where Telegram lets the bot."""

from __future__ import annotations

import importlib.util
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
TelegramBot = _adapter.TelegramBot
bind_group, buttons, course_in_dm, dm = (
    _adapter.bind_group, _adapter.buttons, _adapter.course_in_dm, _adapter.dm
)  # fmt: skip
joined, sent_messages = _adapter.joined, _adapter.sent_messages
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
