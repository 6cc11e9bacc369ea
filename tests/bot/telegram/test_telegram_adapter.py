"""Round trips through the Telegram adapter: the real python-telegram-bot `Application`
talking HTTP to a fake Bot API server (tests/support/fake_telegram.py), over the real core
(Qdrant local mode, SQLite, in-process sessions) holding the sample course, ingested once for
the module and copied for each test."""

from __future__ import annotations

import asyncio
import re
import socket
from collections import Counter
from collections.abc import AsyncIterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from redis.exceptions import ConnectionError as RedisConnectionError
from support.data_dirs import copy_data_dir
from support.fake_telegram import (
    BOT_USER,
    TOKEN,
    Call,
    FakeTelegram,
    group_chat,
    private_chat,
    user,
    visible_text,
)
from support.material import Passage, add_passages
from support.paths import SAMPLE_COURSE
from telegram import Update
from telegram.ext import AIORateLimiter, ContextTypes, TypeHandler

from bot import composition
from bot.composition import Assembly, open_assembly, open_core
from bot.scheduling import running_schedules
from bot.telegram import Polling, TelegramApplication, Webhook, build_application, handlers, running
from bot.telegram.app import scheduled_poster
from bot.telegram.updates import ChatOrderedUpdates
from config import Settings
from core.answering import extractive, quote_units
from core.commands import COMMANDS, ParsedCommand
from core.context import Audience, Member, Role
from core.course_bot import INTERNAL_ERROR, CourseBot
from core.embedding.minilm_onnx import MiniLMOnnxEmbedder
from core.material import SourceFile
from core.mistakes import MistakeLog
from core.mistakes.log import MistakeEntry
from core.replies import FlashcardsReply, QuizReply
from core.requests import Place, Request
from core.study.polls import PollRegistry
from ingestion import discover
from ingestion.identity import document_id

COURSE = "sample"
TEACHER = user(42, "Ada")  # an instructor of the sample course in settings
MODERATOR = user(7, "Sam")  # a moderator of the sample course in settings
ADMIN = user(900, "Grace")  # administers GROUP on Telegram, no role in settings
ALICE = user(501, "Alice")
BOB = user(502, "Bob")
GROUP = group_chat(-1001234567890)
OTHER_GROUP = group_chat(-1009876543210, "Physics")
# After every handler group: the update has been handled once this one runs.
_AFTER_ALL = 1_000


def dm(who: dict[str, Any]) -> dict[str, Any]:
    return private_chat(who)


def texts(calls: list[Call], method: str = "sendMessage") -> list[str]:
    """What the chat shows for each `method` call, markup removed."""
    return [visible_text(call.text) for call in calls if call.method == method]


def joined(calls: list[Call]) -> str:
    return "\n".join(texts(calls))


def sent_messages(calls: list[Call]) -> list[Call]:
    return [call for call in calls if call.method == "sendMessage"]


OPERATOR = Member(platform="console", user_id="console")


@dataclass
class TelegramBot:
    """Drives the bot as Telegram users would, one update at a time."""

    fake: FakeTelegram
    core: CourseBot
    application: TelegramApplication
    assembly: Assembly
    # How many times each update_id has been handled (a replay is handled again).
    handled: Counter[int] = field(default_factory=Counter)
    _changed: asyncio.Condition = field(default_factory=asyncio.Condition)

    async def mark_handled(self, update: Update, _context: ContextTypes.DEFAULT_TYPE) -> None:
        async with self._changed:
            self.handled[update.update_id] += 1
            self._changed.notify_all()

    async def send(self, update: dict[str, Any], timeout: float = 30.0) -> list[Call]:
        """Deliver `update` and return the Bot API calls the bot made while handling it
        (long polls left out)."""
        start = len(self.fake.calls)
        await self.wait_handled(await self.fake.push(update), timeout)
        return [call for call in self.fake.calls[start:] if call.method != "getUpdates"]

    async def wait_handled(self, update_id: int, timeout: float = 30.0, times: int = 1) -> None:
        async with self._changed:
            await asyncio.wait_for(
                self._changed.wait_for(lambda: self.handled[update_id] >= times), timeout
            )

    async def replay(self, update: dict[str, Any]) -> list[Call]:
        """Deliver `update` again with the same update_id, as Telegram does when its first
        delivery was not confirmed."""
        start = len(self.fake.calls)
        times = self.handled[update["update_id"]] + 1
        await self.wait_handled(await self.fake.replay(update), times=times)
        return [call for call in self.fake.calls[start:] if call.method != "getUpdates"]

    async def vote(
        self, poll: dict[str, Any], voter: dict[str, Any], *option_ids: int
    ) -> tuple[dict[str, Any], list[Call]]:
        """A vote in `poll` (no options: a retracted vote): the update and the calls."""
        update = self.fake.poll_answer_update(poll["id"], voter, list(option_ids))
        return update, await self.send(update)

    async def press(self, message: dict[str, Any], sender: dict[str, Any], data: str) -> list[Call]:
        """A press of the inline button with callback `data` under the bot's `message`."""
        return await self.send(self.fake.callback_update(message, sender, data))

    async def say(
        self,
        chat: dict[str, Any],
        sender: dict[str, Any],
        text: str,
        reply_to: dict[str, Any] | None = None,
    ) -> list[Call]:
        return await self.send(self.fake.text_update(chat, sender, text, reply_to))

    async def upload(
        self,
        chat: dict[str, Any],
        sender: dict[str, Any],
        file_name: str,
        content: bytes,
        **options: Any,
    ) -> list[Call]:
        return await self.send(
            self.fake.document_update(chat, sender, file_name, content, **options)
        )

    def last_bot_message(self, chat: dict[str, Any]) -> dict[str, Any]:
        sent = [
            message
            for (chat_id, _), message in self.fake.messages.items()
            if chat_id == chat["id"] and message["from"]["id"] == BOT_USER["id"]
        ]
        return sent[-1]


@pytest.fixture(scope="module")
def course_data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A data dir with the sample course ingested, to copy for each test."""
    data_dir = tmp_path_factory.mktemp("telegram-course") / "data"
    settings = Settings(_env_file=None, data_dir=data_dir)  # type: ignore[call-arg]
    # In a thread of its own: this module-wide fixture must not touch a test's event loop.
    with ThreadPoolExecutor(1) as thread:
        thread.submit(asyncio.run, _ingest_sample(settings)).result()
    return data_dir


async def _ingest_sample(settings: Settings) -> None:
    sources, missing = discover([SAMPLE_COURSE])
    assert not missing
    async with open_core(settings) as core:
        report = await core.ingest_files(COURSE, sources)
        # Open: any student may choose it in a DM (closed courses are tested on their own).
        opened = await core.handle(
            Request(
                OPERATOR,
                Place(Audience.PRIVATE),
                message_id="setup-open",
                command=ParsedCommand("invite", "open"),
                course=COURSE,
                operator=True,
            )
        )
    assert not report.failed
    assert "is now open" in opened.replies[0].text  # type: ignore[union-attr]


@pytest.fixture
def settings(
    tmp_path: Path,
    course_data: Path,
    embedder: MiniLMOnnxEmbedder,
    monkeypatch: pytest.MonkeyPatch,
) -> Settings:
    # The bundled model, loaded once for the session (loading it takes half a second).
    async def loaded(*_args: object) -> MiniLMOnnxEmbedder:
        return embedder

    monkeypatch.setattr(composition, "embedder", loaded)
    data_dir = tmp_path / "data"
    copy_data_dir(course_data, data_dir)
    return Settings(  # type: ignore[call-arg]
        _env_file=None,
        data_dir=data_dir,
        telegram_token=TOKEN,
        # Tests walk through many messages quickly; the flood test uses the default limit.
        rate_limit="1000/minute",
        place_rate_limit="1000/minute",
        course_roles={
            COURSE: {"instructor": [f"telegram:{TEACHER['id']}"]},
            "*": {"moderator": [f"telegram:{MODERATOR['id']}"]},
        },
    )


@asynccontextmanager
async def telegram_bot(
    settings: Settings, mode: Polling | Webhook | None = None
) -> AsyncIterator[TelegramBot]:
    async with FakeTelegram() as fake, open_assembly(settings) as assembly:
        core = assembly.bot
        application = build_application(
            settings, core, base_url=fake.base_url, base_file_url=fake.base_file_url
        )
        bot = TelegramBot(fake, core, application, assembly)
        application.add_handler(TypeHandler(Update, bot.mark_handled), group=_AFTER_ALL)
        async with running(application, mode or Polling(timeout_s=1)):
            yield bot


@pytest.fixture
async def tg(settings: Settings) -> AsyncIterator[TelegramBot]:
    async with telegram_bot(settings) as bot:
        yield bot


async def course_in_dm(tg: TelegramBot, who: dict[str, Any]) -> None:
    reply = joined(await tg.say(dm(who), who, f"/course {COURSE}"))
    assert f"Your direct messages are now about the course '{COURSE}'" in reply


async def bind_group(tg: TelegramBot, chat: dict[str, Any] = GROUP) -> None:
    tg.fake.set_status(chat, TEACHER, "administrator")
    reply = joined(await tg.say(chat, TEACHER, f"/bind {COURSE}"))
    assert f"This group is now bound to the course '{COURSE}'" in reply


# Start-up and help ------------------------------------------------------------------------


async def test_help_without_a_course_lists_commands_and_how_to_choose_one(
    tg: TelegramBot,
) -> None:
    calls = await tg.say(dm(ALICE), ALICE, "/help")
    [reply] = texts(calls)
    assert "/ask QUESTION — ask a question about the course" in reply
    assert "/course COURSE" in reply and "/notes" in reply
    usable = reply.split("For the course's staff:")[0]
    assert "/mistakes" not in usable and "/ingest" not in usable
    assert "Send /course COURSE once" in reply


async def test_the_application_is_rate_limited_and_ordered_per_chat(tg: TelegramBot) -> None:
    assert isinstance(tg.application.bot.rate_limiter, AIORateLimiter)
    assert isinstance(tg.application.update_processor, ChatOrderedUpdates)
    assert tg.application.update_processor.max_concurrent_updates > 1


def _overall_rate(application: TelegramApplication) -> float:
    limiter = application.bot.rate_limiter
    assert isinstance(limiter, AIORateLimiter) and limiter._base_limiter is not None
    return limiter._base_limiter.max_rate


async def test_the_overall_send_rate_is_telegrams_unless_set(
    tg: TelegramBot, settings: Settings
) -> None:
    assert _overall_rate(tg.application) == 30  # Telegram's messages a second for a bot
    faster = settings.model_copy(update={"telegram_messages_per_s": 500.0})
    assert _overall_rate(build_application(faster, tg.core)) == 500


async def test_start_up_publishes_the_command_menus(tg: TelegramBot) -> None:
    everyone, admins = tg.fake.calls_to("setMyCommands")
    # Expected from the registry: every listed command, staff ones only for admins, in order.
    listed = [spec for spec in COMMANDS if spec.listed]
    names = [command["command"] for command in everyone.json("commands")]
    assert names == [spec.name for spec in listed if spec.role is Role.STUDENT]
    assert names[:3] == ["help", "ask", "sources"] and "card" not in names
    assert "scope" not in everyone.params
    assert admins.json("scope") == {"type": "all_chat_administrators"}
    admin_menu = {command["command"]: command["description"] for command in admins.json("commands")}
    assert admin_menu == {spec.name: spec.summary for spec in listed}
    assert {"mistakes", "bind", "ingest", "forget"} <= set(admin_menu) - set(names)


async def test_help_for_an_instructor_adds_the_instructor_commands(tg: TelegramBot) -> None:
    await course_in_dm(tg, TEACHER)
    [reply] = texts(await tg.say(dm(TEACHER), TEACHER, "/help"))
    assert reply.startswith("coursebot\n")
    assert "/mistakes" in reply and "/ingest" in reply and "/forget [DOCUMENT]" in reply


# Binding a group, choosing a DM course ------------------------------------------------------


async def test_a_group_admin_creates_a_new_course_by_binding_and_becomes_its_instructor(
    tg: TelegramBot,
) -> None:
    tg.fake.set_status(OTHER_GROUP, ADMIN, "creator")
    calls = await tg.say(OTHER_GROUP, ADMIN, "/bind Physics-1")
    [reply] = texts(calls)
    assert reply == (
        "This group is now bound to the course 'physics-1'. You created it, so you are its "
        "instructor. It has no material yet: an instructor can add some with /ingest."
    )
    [lookup] = [c for c in calls if c.method == "getChatMember"]
    assert lookup.params["user_id"] == str(ADMIN["id"])
    announced = texts(await tg.say(OTHER_GROUP, ADMIN, "/ingest"))
    assert announced[0].startswith("Send the files now and I will add them as material")


async def test_an_unrelated_group_admin_cannot_bind_an_existing_course(tg: TelegramBot) -> None:
    tg.fake.set_status(OTHER_GROUP, ADMIN, "creator")
    [reply] = texts(await tg.say(OTHER_GROUP, ADMIN, f"/bind {COURSE}"))
    assert reply.startswith("Sorry, 'sample' is an existing course: only one of its instructors")
    [unbound] = texts(await tg.say(OTHER_GROUP, ALICE, "/ask when is the final exam?"))
    assert unbound.startswith("This chat is not bound to a course yet.")
    # Administering the group grants nothing on the course either.
    await bind_group(tg)
    tg.fake.set_status(GROUP, ADMIN, "administrator")
    for command in ("/ingest", "/forget syllabus.md"):
        [refused] = texts(await tg.say(GROUP, ADMIN, command))
        assert refused.startswith("Sorry, only a course instructor can")


async def test_a_group_admin_cannot_claim_a_course_the_settings_give_someone_else(
    settings: Settings,
) -> None:
    # Issue 28.1: physics is configured for the teacher and has no record yet.
    roles = {**settings.course_roles, "physics": {"instructor": [f"telegram:{TEACHER['id']}"]}}
    async with telegram_bot(settings.model_copy(update={"course_roles": roles})) as tg:
        tg.fake.set_status(OTHER_GROUP, ADMIN, "creator")
        [refused] = texts(await tg.say(OTHER_GROUP, ADMIN, "/bind physics"))
        assert refused == (
            "Sorry, the course 'physics' is set up for its own instructors: only one of them "
            "(or the site's staff) can create it by binding a chat they administer."
        )
        [unbound] = texts(await tg.say(OTHER_GROUP, ALICE, "/ask what is a vector?"))
        assert unbound.startswith("This chat is not bound to a course yet.")
        tg.fake.set_status(OTHER_GROUP, TEACHER, "administrator")
        [bound] = texts(await tg.say(OTHER_GROUP, TEACHER, "/bind physics"))
        assert bound.startswith("This group is now bound to the course 'physics'. You created")


async def test_a_co_admin_cannot_take_the_class_group_to_another_course(tg: TelegramBot) -> None:
    # Issue 28.2: the instructor bound the group; another admin of it tries to move it.
    await bind_group(tg)
    await tg.say(GROUP, ALICE, "/ask when is the final exam?")
    tg.fake.set_status(GROUP, ADMIN, "administrator")
    [refused] = texts(await tg.say(GROUP, ADMIN, "/bind evil101"))
    assert refused == (
        "Sorry, this chat is bound to the course 'sample': only an instructor of 'sample' who "
        "administers this chat, or the site's staff, can bind it to another course or unbind it."
    )
    [refused] = texts(await tg.say(GROUP, ADMIN, "/unbind"))
    assert refused.startswith("Sorry, this chat is bound to the course 'sample'")
    [alice_dm] = texts(await tg.say(dm(ALICE), ALICE, "/course"))
    assert alice_dm.startswith("Your direct messages are about the course 'sample'.")
    asked = tg.fake.text_update(GROUP, BOB, f"@{BOT_USER['username']} when is the exam?")
    await tg.send(asked)
    [granted] = texts(await tg.say(GROUP, TEACHER, "/grant moderator", reply_to=asked["message"]))
    assert granted == f"telegram:{BOB['id']} is now a moderator of 'sample'."
    [unbound] = texts(await tg.say(GROUP, TEACHER, "/unbind"))
    assert unbound == "This group is no longer bound to the course 'sample'."


async def test_a_configured_instructor_binds_a_group_they_administer(tg: TelegramBot) -> None:
    [refused] = texts(await tg.say(GROUP, TEACHER, f"/bind {COURSE}"))
    assert refused == "Sorry, only an administrator of this chat can bind it to a course."
    await bind_group(tg)


async def test_a_student_cannot_bind_a_group(tg: TelegramBot) -> None:
    [reply] = texts(await tg.say(GROUP, ALICE, f"/bind {COURSE}"))
    assert reply == "Sorry, only an administrator of this chat can bind it to a course."
    [unbound] = texts(await tg.say(GROUP, ALICE, "/ask when is the final exam?"))
    assert unbound.startswith("This chat is not bound to a course yet.")


async def test_bind_explains_itself_in_a_dm_and_without_a_course(tg: TelegramBot) -> None:
    [in_dm] = texts(await tg.say(dm(TEACHER), TEACHER, f"/bind {COURSE}"))
    assert in_dm.startswith("/bind is for groups")
    tg.fake.set_status(GROUP, TEACHER, "administrator")
    [bare] = texts(await tg.say(GROUP, TEACHER, "/bind"))
    assert bare == "Which course? Send /bind COURSE, for example /bind calc101."
    [bad] = texts(await tg.say(GROUP, TEACHER, "/bind no way!"))
    assert "is not a course id" in bad


async def test_an_unbound_group_gets_told_how_to_bind_it(tg: TelegramBot) -> None:
    mention = f"@{BOT_USER['username']} when is the final exam?"
    [reply] = texts(await tg.say(GROUP, ALICE, mention))
    assert reply.startswith("This chat is not bound to a course yet.")
    [ask] = texts(await tg.say(GROUP, ALICE, "/ask when is the final exam?"))
    assert ask == reply


async def test_a_dm_without_a_course_asks_which_course(tg: TelegramBot) -> None:
    [reply] = texts(await tg.say(dm(ALICE), ALICE, "When is the final exam?"))
    assert reply.startswith("Which course is this about? Send /course COURSE once")


async def test_course_shows_and_changes_the_dm_course(tg: TelegramBot) -> None:
    [none_yet] = texts(await tg.say(dm(ALICE), ALICE, "/course"))
    assert none_yet.startswith("Which course is this about?")
    await course_in_dm(tg, ALICE)
    [current] = texts(await tg.say(dm(ALICE), ALICE, "/course"))
    assert current.startswith("Your direct messages are about the course 'sample'.")
    [in_group] = texts(await tg.say(GROUP, ALICE, "/course physics"))
    assert in_group.startswith("In a group, questions are about the course the group is bound")


async def test_a_group_binding_becomes_the_members_dm_course(tg: TelegramBot) -> None:
    await bind_group(tg)
    await tg.say(GROUP, BOB, f"@{BOT_USER['username']} when is the final exam?")
    reply = joined(await tg.say(dm(BOB), BOB, "When are the office hours?"))
    assert "Room B214" in reply


# Questions ----------------------------------------------------------------------------------


async def test_a_dm_question_is_answered_with_numbered_citations(tg: TelegramBot) -> None:
    await course_in_dm(tg, ALICE)
    calls = await tg.say(dm(ALICE), ALICE, "When is the final exam and where is it held?")
    [answer] = [c for c in calls if c.method == "sendMessage"]
    shown = visible_text(answer.text)
    body, sources = shown.split("\nSources:\n")
    assert body.startswith("From the course material (quoted):")
    assert "2026-12-14" in body and "Hall A" in body and "[1]" in body
    assert sources.splitlines()[0] == "[1] syllabus.md, Grading Policy"  # the final exam's row
    assert "<b>Sources:</b>" in answer.text and answer.params["parse_mode"] == "HTML"
    assert "reply_parameters" not in answer.params  # no quoting in a private chat


async def test_a_slow_answer_shows_typing_first(
    tg: TelegramBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    await course_in_dm(tg, ALICE)
    real = tg.assembly.index.count

    async def slow(*args: Any, **kwargs: Any) -> int:
        await asyncio.sleep(0.8)
        return await real(*args, **kwargs)

    monkeypatch.setattr(tg.assembly.index, "count", slow)
    calls = await tg.say(dm(ALICE), ALICE, "When is the final exam?")
    assert calls[0].method == "sendChatAction" and calls[0].params["action"] == "typing"
    assert calls[-1].method == "sendMessage"


async def test_citations_name_the_file_page_and_section(tg: TelegramBot) -> None:
    await course_in_dm(tg, ALICE)
    reply = joined(await tg.say(dm(ALICE), ALICE, "What does the squeeze theorem say?"))
    assert "Squeeze theorem: trap f between two functions with the same limit." in reply
    assert "[1] lecture-01-limits.pdf, p. 8, Summary" in reply


async def test_a_question_the_material_does_not_cover_says_so(tg: TelegramBot) -> None:
    await course_in_dm(tg, ALICE)
    [answer] = sent_messages(await tg.say(dm(ALICE), ALICE, "How do I bake sourdough bread?"))
    assert answer.text == "<i>The course material does not cover this question.</i>"


async def test_group_questions_by_mention_reply_and_ask(tg: TelegramBot) -> None:
    await bind_group(tg)
    question = f"@{BOT_USER['username']} when is the final exam?"
    calls = await tg.say(GROUP, ALICE, question)
    [by_mention] = sent_messages(calls)
    assert "getChatMember" not in [c.method for c in calls]  # questions need no role
    assert "2026-12-14" in visible_text(by_mention.text)
    asked = tg.fake.messages[(GROUP["id"], by_mention.json("reply_parameters")["message_id"])]
    assert asked["text"] == question  # the answer quotes the question in the group

    bot_answer = tg.last_bot_message(GROUP)
    reply = joined(await tg.say(GROUP, BOB, "When are the office hours?", reply_to=bot_answer))
    assert "Room B214" in reply

    reply = joined(await tg.say(GROUP, BOB, "/ask What does the squeeze theorem say?"))
    assert "lecture-01-limits.pdf, p. 8" in reply
    named = joined(
        await tg.say(GROUP, BOB, f"/ask@{BOT_USER['username']} when are the office hours?")
    )
    assert "Room B214" in named


async def test_group_chatter_not_meant_for_the_bot_is_ignored(tg: TelegramBot) -> None:
    await bind_group(tg)
    lunch = tg.fake.text_update(GROUP, ALICE, "anyone up for lunch?")
    assert await tg.send(lunch) == []
    assert await tg.say(GROUP, BOB, "me!", reply_to=lunch["message"]) == []
    assert await tg.say(GROUP, BOB, "/start@some_other_bot") == []
    assert await tg.say(GROUP, BOB, "/frobnicate@some_other_bot") == []


async def test_a_bare_mention_explains_how_to_ask(tg: TelegramBot) -> None:
    await bind_group(tg)
    [reply] = texts(await tg.say(GROUP, ALICE, f"@{BOT_USER['username']}"))
    assert reply.startswith("Ask me about the course: mention me with your question")


async def test_an_answer_longer_than_a_message_arrives_in_several(
    settings: Settings, embedder: MiniLMOnnxEmbedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Three long passages quoted whole: the answer context and the quoted answer's caps
    # (about 600 characters) are widened so the answer outgrows one message.
    monkeypatch.setattr(extractive, "MAX_ANSWER_CHARS", 20_000)
    monkeypatch.setattr(quote_units, "MAX_UNIT_CHARS", 5_000)
    wide = settings.model_copy(update={"answer_context_chars": 20_000})
    async with telegram_bot(wide) as tg:
        await _long_answer_in_several_messages(tg, embedder)


async def _long_answer_in_several_messages(tg: TelegramBot, embedder: MiniLMOnnxEmbedder) -> None:
    await add_passages(
        tg.assembly.index,
        embedder,
        [
            Passage(_safety_rule(n), file_name=f"lab-safety-{n}.md", section=f"Rule {n}")
            for n in range(3)
        ],
    )
    await course_in_dm(tg, ALICE)
    calls = await tg.say(dm(ALICE), ALICE, "What are the safety rules for the chemistry lab?")
    messages = sent_messages(calls)
    assert len(messages) >= 2
    assert all(len(m.text) <= 4096 for m in messages)
    shown = [visible_text(m.text) for m in messages]
    assert sum(len(text) for text in shown) > 4096
    citations = [line for text in shown for line in text.splitlines() if line.startswith("[")]
    assert [line[:3] for line in citations] == ["[1]", "[2]", "[3]"]
    assert all(re.fullmatch(r"\[\d\] lab-safety-(\d)\.md, Rule \1", line) for line in citations)
    assert "&lt;checked&gt;" in messages[0].text and "&amp;" in messages[0].text


def _safety_rule(number: int) -> str:
    stations = ", ".join(
        f"station {number}{i} needs goggles, gloves & a lab coat <checked> by the safety officer"
        for i in range(20)
    )
    return f"Laboratory safety rule {number}: before the chemistry lab starts, {stations}"


# Guided exercises ---------------------------------------------------------------------------


async def test_a_practice_session_runs_across_several_messages(tg: TelegramBot) -> None:
    await course_in_dm(tg, ALICE)
    chat = dm(ALICE)

    async def say(text: str) -> str:
        return joined(await tg.say(chat, ALICE, text))

    started = await say("/practice derivative-product-rule")
    assert "The product rule, step by step — step 1/4" in started
    assert "What is u'(x), the derivative of u?" in started
    wrong = await say("x^2")
    assert "✗" in wrong and "Hint 1:" in wrong
    assert "Hint 2:" in await say("/hint")
    right = await say("2x")
    assert "step 2/4" in right and "What is v'(x)" in right
    assert "step 2 of 4" in await say("/status")
    skipped = await say("/skip")
    assert "The derivative of sin(x) is cos(x)." in skipped and "step 3/4" in skipped
    assert "The exercise ended." in await say("/quit")
    # With the exercise over, a plain message is a question again.
    assert "Room B214" in await say("When are the office hours?")
    assert "You have no exercise open" in await say("/hint")


async def test_an_exercise_in_a_dm_leaves_the_students_group_messages_alone(
    tg: TelegramBot,
) -> None:
    # Issue 28.10: her question in the group got a public "✗ ... Hint 2" from the exercise
    # she was doing in a direct message, and the question was lost.
    await bind_group(tg)
    await tg.say(GROUP, ALICE, f"@{BOT_USER['username']} when is the final exam?")
    started = joined(await tg.say(dm(ALICE), ALICE, "/practice derivative-product-rule"))
    assert "step 1/4" in started
    assert "✗" in joined(await tg.say(dm(ALICE), ALICE, "x^2"))

    asked = joined(
        await tg.say(GROUP, ALICE, f"@{BOT_USER['username']} when are the office hours?")
    )
    assert "Room B214" in asked and "✗" not in asked and "Hint" not in asked
    for command in ("/answer 2x", "/hint", "/skip", "/status"):
        [refused] = texts(await tg.say(GROUP, ALICE, command))
        assert refused.startswith("Your exercise 'derivative-product-rule' runs in our direct")
    # The exercise is where she left it: one wrong attempt, still on step 1.
    assert "step 1 of 4, 1 wrong attempt(s)" in joined(await tg.say(dm(ALICE), ALICE, "/status"))
    assert "step 2/4" in joined(await tg.say(dm(ALICE), ALICE, "2x"))


async def test_a_group_exercise_is_answered_in_its_group_only(tg: TelegramBot) -> None:
    await bind_group(tg)
    started = joined(await tg.say(GROUP, ALICE, "/practice derivative-product-rule"))
    assert "step 1/4" in started
    # In her direct messages, a line is a question, and /answer says where the exercise is.
    await course_in_dm(tg, ALICE)
    assert "Room B214" in joined(await tg.say(dm(ALICE), ALICE, "When are the office hours?"))
    [refused] = texts(await tg.say(dm(ALICE), ALICE, "/answer 2x"))
    assert "runs in the chat where you started it" in refused
    assert "step 2/4" in joined(await tg.say(GROUP, ALICE, "/answer 2x"))


async def test_a_replayed_answer_is_graded_once(tg: TelegramBot) -> None:
    await course_in_dm(tg, ALICE)
    await tg.say(dm(ALICE), ALICE, "/practice derivative-product-rule")
    update = tg.fake.text_update(dm(ALICE), ALICE, "x^2")
    first = joined(await tg.send(update))
    assert "✗" in first
    # A redelivery gets the same reply again, and is not graded a second time.
    assert joined(await tg.send(tg.fake.redelivery(update))) == first
    assert "1 wrong attempt(s)" in joined(await tg.say(dm(ALICE), ALICE, "/status"))


# Private notes ------------------------------------------------------------------------------

ALICE_NOTE = (
    b"# My notes\n\nMy study group meets at the Blue Heron cafe every Thursday at 18:00 "
    b"to review derivatives.\n"
)


async def test_private_notes_are_only_for_their_owner(tg: TelegramBot) -> None:
    await course_in_dm(tg, ALICE)
    await course_in_dm(tg, BOB)
    [announced] = texts(await tg.say(dm(ALICE), ALICE, "/notes"))
    assert announced.startswith("Send the files now and I will add them as your private notes")
    calls = await tg.upload(dm(ALICE), ALICE, "alice-notes.md", ALICE_NOTE)
    assert texts(calls, "editMessageText")[-1] == (
        "✓ alice-notes.md: added, 1 chunk\n1 of 1 file ingested"
    )

    question = "Where does my study group meet?"
    mine = joined(await tg.say(dm(ALICE), ALICE, question))
    assert "Blue Heron" in mine and "[1] alice-notes.md (your notes)" in mine
    theirs = joined(await tg.say(dm(BOB), BOB, question))
    assert "Blue Heron" not in theirs and "alice-notes" not in theirs
    assert "alice-notes.md" not in joined(await tg.say(dm(BOB), BOB, "/sources"))
    assert "alice-notes.md (notes, 1 chunk, private)" in joined(
        await tg.say(dm(ALICE), ALICE, "/sources")
    )


async def test_notes_captioned_with_the_command_need_no_announcement(tg: TelegramBot) -> None:
    await course_in_dm(tg, ALICE)
    calls = await tg.upload(dm(ALICE), ALICE, "alice-notes.md", ALICE_NOTE, caption="/notes")
    assert "1 of 1 file ingested" in texts(calls, "editMessageText")[-1]
    assert "(your notes)" in joined(
        await tg.say(dm(ALICE), ALICE, "Where does my study group meet?")
    )


async def test_a_file_in_a_dm_without_a_command_is_not_ingested(tg: TelegramBot) -> None:
    await course_in_dm(tg, ALICE)
    calls = await tg.upload(dm(ALICE), ALICE, "alice-notes.md", ALICE_NOTE)
    assert texts(calls)[0].startswith("What should I do with this file? To add it to your private")
    assert not [c for c in calls if c.method in ("getFile", "download")]


async def test_a_document_in_a_group_is_never_private(tg: TelegramBot) -> None:
    await bind_group(tg)
    [refused] = texts(await tg.say(GROUP, ALICE, "/notes"))
    assert refused.startswith("Notes are private, and this chat is not")
    captioned = await tg.upload(GROUP, ALICE, "alice-notes.md", ALICE_NOTE, caption="/notes")
    assert texts(captioned) == [refused]
    # Notes announced in a DM are not taken from the group either.
    await course_in_dm(tg, ALICE)
    await tg.say(dm(ALICE), ALICE, "/notes")
    assert await tg.upload(GROUP, ALICE, "alice-notes.md", ALICE_NOTE) == []
    assert not tg.fake.calls_to("getFile")
    assert "alice-notes.md" not in joined(await tg.say(dm(ALICE), ALICE, "/sources"))


# Course material ----------------------------------------------------------------------------

WEEK_7 = (
    b"# Week 7: implicit differentiation\n\nThe week 7 quiz on implicit differentiation takes "
    b"place on Friday 30 October in Room C301.\n"
)


async def test_an_instructor_ingests_an_attached_document_with_progress(tg: TelegramBot) -> None:
    await course_in_dm(tg, TEACHER)
    calls = await tg.upload(dm(TEACHER), TEACHER, "week-7.md", WEEK_7, caption="/ingest")
    methods = [c.method for c in calls]
    [progress_text] = texts(calls)
    assert progress_text.startswith("Ingesting file 1 of 1: week-7.md")
    assert methods.index("getFile") < methods.index("download") < methods.index("sendMessage")
    edits = texts(calls, "editMessageText")
    assert edits[-1] == "✓ week-7.md: added, 1 chunk\n1 of 1 file ingested"
    progress = sent_messages(calls)[0].result["message_id"]
    edited = {c.params["message_id"] for c in calls if c.method == "editMessageText"}
    assert edited == {str(progress)}
    reply = joined(await tg.say(dm(ALICE), ALICE, f"/course {COURSE}"))
    assert "Ask away" in reply
    answer = joined(await tg.say(dm(ALICE), ALICE, "Where is the week 7 quiz held?"))
    assert "Room C301" in answer and "[1] week-7.md" in answer


async def test_ingest_then_the_document_in_the_next_message(tg: TelegramBot) -> None:
    await bind_group(tg)
    [announced] = texts(await tg.say(GROUP, TEACHER, "/ingest"))
    assert announced == (
        "Send the files now and I will add them as material for 'sample' (I'll wait 10 minutes)."
    )
    calls = await tg.upload(GROUP, TEACHER, "week-7.md", WEEK_7)
    assert "1 of 1 file ingested" in texts(calls, "editMessageText")[-1]
    # Course material, so every student sees it.
    listing = joined(await tg.say(GROUP, ALICE, "/sources"))
    [line] = [line for line in listing.splitlines() if "week-7.md" in line]
    assert line.startswith("• week-7.md (") and not line.endswith(", private)")


async def test_students_cannot_add_or_remove_material(tg: TelegramBot) -> None:
    await bind_group(tg)
    refusal = "Sorry, only a course instructor can add course material."
    assert texts(await tg.say(GROUP, ALICE, "/ingest")) == [refusal]
    uploaded = await tg.upload(GROUP, ALICE, "week-7.md", WEEK_7, caption="/ingest")
    assert texts(uploaded) == [refusal]
    assert not [c for c in uploaded if c.method in ("getFile", "download")]
    await course_in_dm(tg, ALICE)
    assert texts(await tg.say(dm(ALICE), ALICE, "/ingest")) == [refusal]
    assert texts(await tg.say(dm(ALICE), ALICE, "/forget syllabus.md")) == [
        "Sorry, only a course instructor can remove course material."
    ]
    assert "syllabus.md" in joined(await tg.say(dm(ALICE), ALICE, "/sources"))


async def test_oversize_and_unsupported_files_are_refused_before_download(
    tg: TelegramBot,
) -> None:
    await course_in_dm(tg, TEACHER)
    chat = dm(TEACHER)
    huge = await tg.upload(
        chat, TEACHER, "lecture-03.pdf", b"%PDF-", caption="/ingest", file_size=30_000_000
    )
    assert texts(huge) == ["'lecture-03.pdf': the file is 28.6 MB; the limit is 19 MB"]
    sheet = await tg.upload(chat, TEACHER, "grades.xlsx", b"PK", caption="/ingest")
    [refused] = texts(sheet)
    assert refused.startswith("'grades.xlsx': '.xlsx' is not a supported type")
    assert not tg.fake.calls_to("getFile") and not tg.fake.calls_to("download")


async def test_a_file_that_fails_to_load_leaves_the_index_unchanged(tg: TelegramBot) -> None:
    await course_in_dm(tg, TEACHER)
    before = joined(await tg.say(dm(TEACHER), TEACHER, "/sources"))
    calls = await tg.upload(dm(TEACHER), TEACHER, "broken.pdf", b"not a pdf", caption="/ingest")
    report = texts(calls, "editMessageText")[-1]
    assert report.startswith("✗ broken.pdf:")
    assert report.endswith("0 of 1 file ingested; 1 failed (the index is unchanged for them)")
    assert joined(await tg.say(dm(TEACHER), TEACHER, "/sources")) == before


async def test_a_file_telegram_cannot_serve_is_reported_not_half_ingested(
    tg: TelegramBot,
) -> None:
    await course_in_dm(tg, TEACHER)
    update = tg.fake.document_update(dm(TEACHER), TEACHER, "week-7.md", WEEK_7, caption="/ingest")
    del tg.fake.files[update["message"]["document"]["file_id"]]  # gone from Telegram's side
    calls = await tg.send(update)
    assert texts(calls) == ["I could not fetch 'week-7.md'. Please send it again."]
    assert "week-7.md" not in joined(await tg.say(dm(TEACHER), TEACHER, "/sources"))


async def test_sources_and_forget(tg: TelegramBot) -> None:
    await course_in_dm(tg, TEACHER)
    chat = dm(TEACHER)
    listing = texts(await tg.say(chat, TEACHER, "/sources"))[0]
    assert listing.startswith("Documents in 'sample':\n")
    assert "• worked-exercises.md (" in listing
    [removed] = texts(await tg.say(chat, TEACHER, "/forget worked-exercises.md"))
    assert removed == "Removed 'worked-exercises.md' from 'sample'."
    assert "worked-exercises.md" not in joined(await tg.say(chat, TEACHER, "/sources"))
    [missing] = texts(await tg.say(chat, TEACHER, "/forget worked-exercises.md"))
    assert missing.startswith("There is no document 'worked-exercises.md' in 'sample'.")
    [usage] = texts(await tg.say(chat, TEACHER, "/forget"))
    assert usage.startswith("Which document? Send /forget DOCUMENT")


# Mistakes -----------------------------------------------------------------------------------


async def test_a_moderator_gets_the_mistakes_chart_and_csv_in_a_dm(tg: TelegramBot) -> None:
    await course_in_dm(tg, ALICE)
    await tg.say(dm(ALICE), ALICE, "/practice derivative-product-rule")
    await tg.say(dm(ALICE), ALICE, "x^2")
    await course_in_dm(tg, MODERATOR)

    calls = await tg.say(dm(MODERATOR), MODERATOR, "/mistakes --csv")
    summary = joined(calls)
    assert "Mistakes by skill for sample:" in summary
    assert "power-rule: 1 (latest: “x^2”)" in summary
    [photo] = [c for c in calls if c.method == "sendPhoto"]
    name, png = photo.files["photo"]
    assert name == "mistakes-by-skill.png" and png.startswith(b"\x89PNG\r\n\x1a\n")
    assert photo.params["caption"] == "Mistakes, sample"
    [document] = [c for c in calls if c.method == "sendDocument"]
    name, csv = document.files["document"]
    assert name == "mistakes.csv"
    assert "power-rule" in csv.decode() and "x^2" in csv.decode()


async def test_mistakes_are_never_posted_in_a_group(tg: TelegramBot) -> None:
    await bind_group(tg)
    calls = await tg.say(GROUP, MODERATOR, "/mistakes --csv")
    [reply] = texts(calls)
    assert reply.startswith("/mistakes shows students' names and answers")
    assert not [c for c in calls if c.method in ("sendPhoto", "sendDocument")]


async def test_students_cannot_review_mistakes(tg: TelegramBot) -> None:
    await course_in_dm(tg, ALICE)
    calls = await tg.say(dm(ALICE), ALICE, "/mistakes")
    assert texts(calls) == ["Sorry, only a course moderator can review the class's mistakes."]
    assert not [c for c in calls if c.method in ("sendPhoto", "sendDocument")]


# Bad input and failures ---------------------------------------------------------------------


async def test_an_unknown_command_gets_a_short_reply(tg: TelegramBot) -> None:
    expected = "I don't know the command /frobnicate. Send /help to see what I can do."
    assert texts(await tg.say(dm(ALICE), ALICE, "/frobnicate now")) == [expected]
    await course_in_dm(tg, ALICE)
    assert texts(await tg.say(dm(ALICE), ALICE, "/frobnicate now")) == [expected]


async def test_a_core_failure_is_reported_politely(
    tg: TelegramBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    await course_in_dm(tg, ALICE)

    async def broken(*_args: object, **_kwargs: object) -> int:
        raise RuntimeError("qdrant exploded")

    monkeypatch.setattr(tg.assembly.index, "count", broken)
    [reply] = texts(await tg.say(dm(ALICE), ALICE, "When is the final exam?"))
    assert reply == INTERNAL_ERROR


async def test_an_adapter_failure_is_logged_and_apologised_for(
    tg: TelegramBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*_args: object, **_kwargs: object) -> list[object]:
        raise RuntimeError("rendering exploded")

    monkeypatch.setattr(handlers, "render_all", broken)
    calls = await tg.say(dm(ALICE), ALICE, "When is the final exam?")
    assert texts(calls) == [INTERNAL_ERROR]
    assert "exploded" not in joined(calls) and "Traceback" not in joined(calls)


async def test_edited_messages_are_not_answered_twice(tg: TelegramBot) -> None:
    await course_in_dm(tg, ALICE)
    update = tg.fake.text_update(dm(ALICE), ALICE, "When is the final exam?")
    edited = {"update_id": update["update_id"], "edited_message": update["message"]}
    assert await tg.send(edited) == []


# Webhook mode -------------------------------------------------------------------------------

SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


async def test_webhook_mode_handles_posted_updates_and_refuses_a_wrong_secret(
    settings: Settings,
) -> None:
    port = _free_port()
    url = f"http://127.0.0.1:{port}/telegram"
    mode = Webhook(url, secret="shared-Secret_1", listen="127.0.0.1", port=port)
    async with telegram_bot(settings, mode) as tg, aiohttp.ClientSession() as http:
        assert tg.fake.webhook == {"url": url, "secret_token": "shared-Secret_1"}
        assert not tg.fake.calls_to("getUpdates")
        update = tg.fake.text_update(dm(ALICE), ALICE, "/help")
        for headers in ({SECRET_HEADER: "a-guess"}, {}):
            async with http.post(url, json=update, headers=headers) as refused:
                assert refused.status == 403
        async with http.post(url, json=update, headers={SECRET_HEADER: "shared-Secret_1"}) as ok:
            assert ok.status == 200
        await tg.wait_handled(update["update_id"])
        [answer] = tg.fake.calls_to("sendMessage")
        assert "/ask QUESTION" in visible_text(answer.text)


# Attacks, refused by the core ---------------------------------------------------------------

MALLORY = user(666, "Mallory")


async def test_private_notes_are_never_quoted_or_listed_in_a_group(tg: TelegramBot) -> None:
    await course_in_dm(tg, ALICE)
    await tg.upload(dm(ALICE), ALICE, "alice-notes.md", ALICE_NOTE, caption="/notes")
    await bind_group(tg)
    question = "Where does my study group meet?"
    in_group = joined(await tg.say(GROUP, ALICE, f"/ask {question}"))
    assert "Blue Heron" not in in_group and "your notes" not in in_group
    mention = joined(await tg.say(GROUP, ALICE, f"@{BOT_USER['username']} {question}"))
    assert "Blue Heron" not in mention
    listing = joined(await tg.say(GROUP, ALICE, "/sources"))
    assert "alice-notes.md" not in listing and "private" not in listing
    # The same question in her DM still finds them.
    assert "Blue Heron" in joined(await tg.say(dm(ALICE), ALICE, question))


async def test_course_into_a_course_never_joined_is_refused(tg: TelegramBot) -> None:
    tg.fake.set_status(OTHER_GROUP, ADMIN, "creator")
    await tg.say(OTHER_GROUP, ADMIN, "/bind physics-1")
    [refused] = texts(await tg.say(dm(MALLORY), MALLORY, "/course physics-1"))
    assert refused.startswith("You are not in the course 'physics-1'")
    [still_none] = texts(await tg.say(dm(MALLORY), MALLORY, "When is the exam?"))
    assert still_none.startswith("Which course is this about?")
    # Writing in the course's group makes a member; so does the instructor's invite code.
    await tg.say(OTHER_GROUP, BOB, f"@{BOT_USER['username']} hello")
    assert "now about the course 'physics-1'" in joined(
        await tg.say(dm(BOB), BOB, "/course physics-1")
    )
    [invite] = texts(await tg.say(OTHER_GROUP, ADMIN, "/invite"))
    code = invite.split("/course join ", 1)[1].split()[0]
    joined_reply = joined(await tg.say(dm(MALLORY), MALLORY, f"/course join {code}"))
    assert joined_reply.startswith("Welcome to 'physics-1'.")
    [bad] = texts(await tg.say(dm(ALICE), ALICE, "/course join physics-1-guess"))
    assert bad.startswith("That invite code is not valid")


async def test_an_invite_link_joins_its_course_in_one_tap(tg: TelegramBot) -> None:
    tg.fake.set_status(OTHER_GROUP, ADMIN, "creator")
    await tg.say(OTHER_GROUP, ADMIN, "/bind phys.101")
    [invite] = texts(await tg.say(OTHER_GROUP, ADMIN, "/invite"))
    link = re.search(rf"https://t\.me/{BOT_USER['username']}\?start=([A-Za-z0-9_-]+)", invite)
    assert link is not None, invite
    # Opening the link sends `/start CODE` in a direct message with the bot.
    welcome = joined(await tg.say(dm(MALLORY), MALLORY, f"/start {link.group(1)}"))
    assert welcome.startswith("Welcome to 'phys.101'.")
    assert "are about the course 'phys.101'" in joined(
        await tg.say(dm(MALLORY), MALLORY, "/course")
    )
    [bad] = texts(await tg.say(dm(ALICE), ALICE, "/start phys_101-guessed"))
    assert bad.startswith("That invite code is not valid")
    # A bare /start (a first contact) is the help.
    assert "/ask" in joined(await tg.say(dm(ALICE), ALICE, "/start"))


async def test_an_instructor_grants_and_revokes_a_moderator_by_reply(tg: TelegramBot) -> None:
    await bind_group(tg)
    asked = tg.fake.text_update(GROUP, BOB, f"@{BOT_USER['username']} when is the exam?")
    await tg.send(asked)
    [granted] = texts(await tg.say(GROUP, TEACHER, "/grant moderator", reply_to=asked["message"]))
    assert granted == f"telegram:{BOB['id']} is now a moderator of 'sample'."
    await course_in_dm(tg, BOB)
    assert "No mistakes logged for sample." in joined(await tg.say(dm(BOB), BOB, "/mistakes"))
    assert f"moderator: telegram:{BOB['id']}" in joined(
        await tg.say(dm(TEACHER), TEACHER, "/staff")
    )
    [refused] = texts(await tg.say(GROUP, BOB, f"/grant instructor {MALLORY['id']}"))
    assert refused == "Sorry, only a course instructor can grant or revoke course roles."
    await tg.say(GROUP, TEACHER, f"/revoke moderator {BOB['id']}")
    assert "only a course moderator" in joined(await tg.say(dm(BOB), BOB, "/mistakes"))


async def test_a_replayed_question_gets_the_same_answer_again(tg: TelegramBot) -> None:
    await course_in_dm(tg, ALICE)
    update = tg.fake.text_update(dm(ALICE), ALICE, "When are the office hours?")
    first = joined(await tg.send(update))
    assert "Room B214" in first
    assert joined(await tg.send(tg.fake.redelivery(update))) == first


async def test_a_flood_from_one_user_does_not_hold_up_another(settings: Settings) -> None:
    limited = settings.model_copy(
        update={"rate_limit": Settings.model_fields["rate_limit"].default}
    )
    async with telegram_bot(limited) as tg:
        await course_in_dm(tg, MALLORY)
        await course_in_dm(tg, BOB)
        clock = asyncio.get_running_loop().time
        started = clock()
        assert "Room B214" in joined(await tg.say(dm(BOB), BOB, "When are the office hours?"))
        quiet = clock() - started
        flood = [
            asyncio.create_task(tg.say(dm(MALLORY), MALLORY, f"/ask when is the exam {n}?"))
            for n in range(200)
        ]
        await asyncio.sleep(0.2)  # the flood is in
        started = clock()
        reply = joined(await tg.say(dm(BOB), BOB, "What does the squeeze theorem say?"))
        delay = clock() - started - quiet
        assert "Squeeze theorem" in reply
        assert delay < 1.0, f"Bob waited {delay:.2f} s more behind Mallory's flood"
        await asyncio.gather(*flood)
        to_mallory = [
            visible_text(c.text)
            for c in tg.fake.calls_to("sendMessage")
            if c.params["chat_id"] == str(MALLORY["id"])
        ]
        told = [t for t in to_mallory if t.startswith("You're sending messages faster")]
        assert len(told) == 1  # one polite reply, the rest dropped
        assert len(to_mallory) <= 10


async def test_a_long_ingestion_does_not_delay_questions_in_the_same_group(
    tg: TelegramBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    await bind_group(tg)
    from ingestion.pipeline import Ingestor

    real = Ingestor.ingest

    async def slow(self: Ingestor, *args: Any, **kwargs: Any) -> Any:
        await asyncio.sleep(5)
        return await real(self, *args, **kwargs)

    clock = asyncio.get_running_loop().time
    started = clock()
    assert "Room B214" in joined(await tg.say(GROUP, BOB, "/ask When are the office hours?"))
    quiet = clock() - started

    monkeypatch.setattr(Ingestor, "ingest", slow)
    upload = asyncio.create_task(tg.upload(GROUP, TEACHER, "week-7.md", WEEK_7, caption="/ingest"))
    await asyncio.sleep(0.5)  # the ingestion is under way
    started = clock()
    reply = joined(await tg.say(GROUP, ALICE, "/ask When are the office hours?"))
    delay = clock() - started - quiet
    assert "Room B214" in reply
    assert delay < 0.5, f"the question waited {delay:.2f} s more behind the ingestion"
    assert "1 of 1 file ingested" in texts(await upload, "editMessageText")[-1]


async def test_an_exercise_arrives_with_its_solution_in_a_spoiler_and_runs_guided(
    tg: TelegramBot,
) -> None:
    await course_in_dm(tg, ALICE)
    sent = sent_messages(await tg.say(dm(ALICE), ALICE, "/exercise power rule easy"))
    html = "\n".join(call.text for call in sent)
    assert "<b>New exercise: The power rule with drawn coefficients</b>" in html
    # The worked solution is there, but only inside spoilers (shown when tapped).
    hidden = re.findall(r"<tg-spoiler>(.*?)</tg-spoiler>", html, re.S)
    assert hidden and "f'(x) =" in hidden[0]
    assert "f'(x) =" not in re.sub(r"<tg-spoiler>.*?</tg-spoiler>", "", html, flags=re.S)
    assert "step 1/2" in joined(sent)
    # The guided session runs on this very instance: its own solution's answer is right.
    expected = re.search(r"= (\d+ x\^\d+)\.", hidden[0])
    assert expected is not None
    right = joined(await tg.say(dm(ALICE), ALICE, expected.group(1)))
    assert "✓" in right and "step 2/2" in right
    assert "f'(x) =" in joined(await tg.say(dm(ALICE), ALICE, "/solution"))


# Lessons ------------------------------------------------------------------------------------


async def test_a_lesson_arrives_as_a_document_with_a_preview_photo(tg: TelegramBot) -> None:
    await course_in_dm(tg, ALICE)
    calls = await tg.say(dm(ALICE), ALICE, "/lesson derivatives --slides 3-4 --profile adhd")
    [photo] = [c for c in calls if c.method == "sendPhoto"]
    name, png = photo.files["photo"]
    assert name == "lesson-derivatives-v1-preview.png" and png.startswith(b"\x89PNG")
    [document] = [c for c in calls if c.method == "sendDocument"]
    name, pdf = document.files["document"]
    assert name == "lesson-derivatives-v1.pdf" and pdf.startswith(b"%PDF")
    assert document.params["caption"].startswith("derivatives: adhd profile, ")
    assert "version 1." in document.params["caption"]


async def test_flashcards_come_one_at_a_time_and_pick_still_answers_a_quiz(
    tg: TelegramBot,
) -> None:
    await course_in_dm(tg, ALICE)
    calls = await tg.say(dm(ALICE), ALICE, "/flashcards exam")
    progress, card = sent_messages(calls)
    # The job's progress message becomes the set's heading; the first card follows it.
    assert visible_text(progress.text).startswith("Making your flashcards on 'exam': ")
    [*_steps, heading] = edits(calls)
    assert heading.text.startswith("<b>Flashcards: exam")
    # The first card alone, its back hidden until "Show answer" is pressed.
    assert visible_text(card.text).startswith("Card 1 of ") and "→" not in card.text
    assert [b["text"] for b in buttons(card)] == ["Show answer", "Next"]
    quiz = await tg.say(dm(ALICE), ALICE, "/quiz exam 2")
    assert "Quiz: exam (2 questions)" in visible_text(edits(quiz)[-1].text)
    assert len([c for c in quiz if c.method == "sendPoll"]) == 2
    # Typed answers still work beside the polls (the core's /pick).
    answered = joined(await tg.say(dm(ALICE), ALICE, "/pick 1 A"))
    assert answered.startswith(("✓ Question 1", "✗ Question 1"))


# Quiz polls and flashcard buttons ---------------------------------------------------------


def buttons(call: Call) -> list[dict[str, Any]]:
    """The inline keyboard buttons a sendMessage or editMessageText call carried."""
    if "reply_markup" not in call.params:
        return []
    return [b for row in call.json("reply_markup")["inline_keyboard"] for b in row]


def edits(calls: list[Call]) -> list[Call]:
    return [call for call in calls if call.method == "editMessageText"]


async def quiz_polls(
    tg: TelegramBot, chat: dict[str, Any], asker: dict[str, Any], argument: str
) -> tuple[QuizReply, list[Call]]:
    """`/quiz ARGUMENT` sent in `chat`: the quiz the core holds for the asker (the same one,
    from its cache) and the sendPoll calls that delivered it."""
    calls = await tg.say(chat, asker, f"/quiz {argument}")
    group = chat["type"] != "private"
    place = (
        Place(Audience.SHARED, str(chat["id"]), (f"chat:{chat['id']}",))
        if group
        else Place(Audience.PRIVATE, str(chat["id"]))
    )
    served = await tg.core.handle(
        Request(
            Member("telegram", f"telegram:{asker['id']}"),
            place,
            message_id=f"test:quiz:{len(tg.fake.calls)}",
            command=ParsedCommand("quiz", argument),
        )
    )
    [quiz] = served.replies
    assert isinstance(quiz, QuizReply)
    return quiz, [call for call in calls if call.method == "sendPoll"]


async def logged_mistakes(tg: TelegramBot, settings: Settings) -> list[MistakeEntry]:
    # A background flush may hold the outbox's lock: wait for it, then flush the rest.
    await tg.assembly.outbox.settled()
    await tg.assembly.outbox.flush()
    log = await MistakeLog.open(settings, migrate_schema=False)
    try:
        return list(await log.latest(COURSE))
    finally:
        await log.close()


async def test_a_quiz_arrives_as_native_quiz_polls_and_votes_are_recorded_once(
    tg: TelegramBot, settings: Settings
) -> None:
    await course_in_dm(tg, ALICE)
    quiz, polls = await quiz_polls(tg, dm(ALICE), ALICE, "derivatives 3")
    assert len(polls) == len(quiz.questions) == 3
    for call, question in zip(polls, quiz.questions, strict=True):
        assert call.params["type"] == "quiz" and call.params["is_anonymous"] == "false"
        assert call.json("correct_option_ids") == [question.correct]
        assert call.params["question"] == f"{question.number}. {question.question}"
        assert [o["text"] for o in call.json("options")] == list(question.options)
        assert question.source is not None
        explanation = call.params["explanation"]
        assert explanation.splitlines()[-1] == f"Source: {question.source.label()}"
        assert len(explanation) <= 200 and explanation.count(question.source.file_name) == 1
    first, second, third = (call.result["poll"] for call in polls)
    right = [q.correct for q in quiz.questions]
    wrong = (right[1] + 1) % 4
    # A right vote and a wrong one: Telegram shows the verdict, the bot says nothing.
    _, calls = await tg.vote(first, ALICE, right[0])
    assert not sent_messages(calls)
    wrong_vote, calls = await tg.vote(second, ALICE, wrong)
    assert not sent_messages(calls)
    # The same update delivered again, a retracted vote and a second vote change nothing.
    assert not sent_messages(await tg.replay(wrong_vote))
    await tg.vote(second, ALICE)
    await tg.vote(second, ALICE, right[1])
    # The last answer brings the score, in the chat the polls are in.
    _, calls = await tg.vote(third, ALICE, right[2])
    [score] = sent_messages(calls)
    assert score.chat_id == ALICE["id"]
    assert "Quiz done: 2 of 3 right." in visible_text(score.text)
    [mistake] = await logged_mistakes(tg, settings)
    assert (mistake.exercise_id, mistake.step_index) == (f"quiz-{quiz.quiz_id}", 1)
    assert mistake.student_id == f"telegram:{ALICE['id']}" and mistake.skill
    assert mistake.answer == quiz.questions[1].options[wrong]


async def test_anyone_in_a_bound_group_answers_its_quiz_polls_and_gets_a_score_there(
    tg: TelegramBot, settings: Settings
) -> None:
    await bind_group(tg)
    quiz, polls = await quiz_polls(tg, GROUP, ALICE, "derivatives 2")
    # Bob never wrote in the group: being in it (he can vote there) is enough.
    for call, question in zip(polls, quiz.questions, strict=True):
        _, calls = await tg.vote(call.result["poll"], BOB, (question.correct + 1) % 4)
    [score] = sent_messages(calls)
    assert score.chat_id == GROUP["id"] and "Quiz done: 0 of 2 right." in score.text
    logged = await logged_mistakes(tg, settings)
    assert [(m.student_id, m.step_index) for m in logged] == [
        (f"telegram:{BOB['id']}", 1),
        (f"telegram:{BOB['id']}", 0),
    ]


async def test_a_vote_from_outside_the_course_or_on_an_unknown_poll_is_ignored(
    tg: TelegramBot, settings: Settings
) -> None:
    await course_in_dm(tg, ALICE)
    await course_in_dm(tg, TEACHER)
    assert "is now closed" in joined(await tg.say(dm(TEACHER), TEACHER, "/invite closed"))
    quiz, polls = await quiz_polls(tg, dm(ALICE), ALICE, "derivatives 2")
    # Mallory is in no way in the (now closed) course: her vote counts for nothing.
    for call, question in zip(polls, quiz.questions, strict=True):
        _, calls = await tg.vote(call.result["poll"], MALLORY, (question.correct + 1) % 4)
        assert not sent_messages(calls)
    _, calls = await tg.vote({"id": "poll-never-sent"}, ALICE, 0)
    assert not sent_messages(calls)
    assert await logged_mistakes(tg, settings) == []


async def test_a_vote_on_a_group_poll_never_makes_the_voter_a_member_of_a_closed_course(
    tg: TelegramBot,
) -> None:
    """A forwarded poll is voted on as the same poll: the vote says nothing of the group."""
    await bind_group(tg)
    await course_in_dm(tg, TEACHER)
    assert "is now closed" in joined(await tg.say(dm(TEACHER), TEACHER, "/invite closed"))
    _quiz, polls = await quiz_polls(tg, GROUP, ALICE, "derivatives 2")
    await tg.vote(polls[0].result["poll"], MALLORY, 0)
    refused = joined(await tg.say(dm(MALLORY), MALLORY, f"/course {COURSE}"))
    assert refused.startswith(f"You are not in the course '{COURSE}'")


async def test_flashcard_buttons_show_the_answer_and_go_on_to_the_last_card(
    tg: TelegramBot,
) -> None:
    await course_in_dm(tg, ALICE)
    _heading, card = sent_messages(await tg.say(dm(ALICE), ALICE, "/flashcards derivatives"))
    show, following = buttons(card)
    set_id, count = show["callback_data"].split(":")[1], int(card.text.split()[3])
    assert show["callback_data"] == f"card:{set_id}:1:back"
    assert following == {"text": "Next", "callback_data": f"card:{set_id}:2"}
    message = card.result
    calls = await tg.press(message, ALICE, show["callback_data"])
    assert [c.method for c in calls] == ["answerCallbackQuery", "editMessageText"]
    [turned] = edits(calls)
    assert int(turned.params["message_id"]) == message["message_id"]
    assert "Card 1 of" in turned.text and "→ " in turned.text
    assert [b["text"] for b in buttons(turned)] == ["Next"]
    # A double tap shows the same card: Telegram's "not modified" is no error.
    again = await tg.press(message, ALICE, show["callback_data"])
    assert "sendMessage" not in [c.method for c in again]
    [next_card] = edits(await tg.press(message, ALICE, f"card:{set_id}:2"))
    assert visible_text(next_card.text).startswith("Card 2 of") and "→" not in next_card.text
    [last] = edits(await tg.press(message, ALICE, f"card:{set_id}:{count}"))
    assert [b["text"] for b in buttons(last)] == ["Show answer"]
    # A set that is not there: a notice on the button, nothing posted or edited.
    calls = await tg.press(message, ALICE, "card:999999:1")
    [notice] = [c for c in calls if c.method == "answerCallbackQuery"]
    assert notice.params["show_alert"] == "true" and "not available" in notice.params["text"]
    assert [c.method for c in calls] == ["answerCallbackQuery"]


# Anonymous administrators ---------------------------------------------------------------

# What Telegram puts in `from` of every anonymous administrator's message, in every group.
GROUP_ANONYMOUS_BOT = {
    "id": 1087968824,
    "is_bot": True,
    "first_name": "Group",
    "username": "GroupAnonymousBot",
}


def anonymous(tg: TelegramBot, chat: dict[str, Any], text: str) -> dict[str, Any]:
    """A message an anonymous administrator of `chat` sends: as the group itself."""
    update = tg.fake.text_update(chat, GROUP_ANONYMOUS_BOT, text)
    update["message"]["sender_chat"] = chat
    return update


async def test_an_anonymous_admin_of_another_group_cannot_take_a_course_bound_anonymously(
    tg: TelegramBot,
) -> None:
    victims = group_chat(-1001111111111, "Algebra")
    mallorys = group_chat(-1002222222222, "Mallory's group")
    created = joined(await tg.send(anonymous(tg, victims, "/bind algebra-2")))
    assert "You created it, so you are its instructor." in created
    # The course's instructor is the group posting anonymously, not Telegram's shared user.
    staff = await tg.core.handle(
        Request(
            OPERATOR,
            Place(Audience.PRIVATE),
            message_id="staff",
            command=ParsedCommand("staff", ""),
            course="algebra-2",
            operator=True,
        )
    )
    shown = staff.replies[0].text  # type: ignore[union-attr]
    assert f"telegram:chat:{victims['id']}" in shown and "1087968824" not in shown
    # An anonymous admin of another group is that group, and nobody on the course.
    taken = joined(await tg.send(anonymous(tg, mallorys, "/bind algebra-2")))
    assert "This group is now bound" not in taken
    granted = joined(await tg.send(anonymous(tg, mallorys, "/grant instructor 666")))
    assert "is now an instructor" not in granted


async def test_a_group_lesson_edited_in_a_direct_message_stays_there(tg: TelegramBot) -> None:
    """The edit may quote her notes: the group keeps getting the version made there."""
    import pypdfium2 as pdfium

    def pdf_text(pdf: bytes) -> str:
        document = pdfium.PdfDocument(pdf)
        try:
            return "\n".join(page.get_textpage().get_text_range() for page in document)
        finally:
            document.close()

    await bind_group(tg)
    await course_in_dm(tg, ALICE)
    await tg.upload(dm(ALICE), ALICE, "alice-notes.md", ALICE_NOTE, caption="/notes")
    first = await tg.say(GROUP, ALICE, "/lesson derivatives --slides 3-4")
    assert [c for c in first if c.method == "sendDocument"]
    edit = '/lesson edit 1 "add a warning about where the study group meets"'
    await tg.say(dm(ALICE), ALICE, edit)
    again = await tg.say(GROUP, ALICE, "/lesson derivatives --slides 3-4")
    [document] = [c for c in again if c.method == "sendDocument" and c.chat_id == GROUP["id"]]
    [(_name, pdf)] = list(document.files.values())
    assert "Blue Heron" not in pdf_text(pdf)
    assert "your notes" not in visible_text(document.params.get("caption", ""))


# Hand-made button data, edited and forwarded messages ---------------------------------------


def card_message(tg: TelegramBot, calls: list[Call]) -> tuple[dict[str, Any], str]:
    """The first flashcard's message among `calls`, and its set id."""
    card = next(c for c in sent_messages(calls) if buttons(c))
    return card.result, buttons(card)[0]["callback_data"].split(":")[1]


async def test_hand_made_card_data_naming_another_students_set_or_course_shows_nothing(
    tg: TelegramBot, settings: Settings
) -> None:
    """Callback data is whatever a client sends: a set id that is not the presser's to
    open (a classmate's own set, one of another course) shows no card, only a refusal."""
    await course_in_dm(tg, ALICE)
    await course_in_dm(tg, BOB)
    alices, alices_set = card_message(tg, await tg.say(dm(ALICE), ALICE, "/flashcards grading"))
    bobs_card, _bobs_set = card_message(tg, await tg.say(dm(BOB), BOB, "/flashcards exam"))
    # A set of another course: the operator makes one there.
    other = await tg.core.ingest_files("physics-2", [SourceFile.at(SAMPLE_COURSE / "syllabus.md")])
    assert not other.failed
    made = await tg.core.handle(
        Request(
            OPERATOR,
            Place(Audience.PRIVATE),
            message_id="physics-cards",
            command=ParsedCommand("flashcards", "grading"),
            course="physics-2",
            operator=True,
        )
    )
    [physics] = made.replies
    assert isinstance(physics, FlashcardsReply)
    for data in (f"card:{alices_set}:1:back", f"card:{physics.set_id}:1:back"):
        [notice] = await tg.press(bobs_card, BOB, data)
        assert notice.method == "answerCallbackQuery" and "not available" in notice.params["text"]
    # The same data pressed by Alice, under her own card, turns it: the set is there.
    [turned] = edits(await tg.press(alices, ALICE, f"card:{alices_set}:1:back"))
    assert "Card 1 of" in turned.text and "→ " in turned.text


async def test_an_edited_message_never_runs_the_command_it_now_says(tg: TelegramBot) -> None:
    """Only new messages are handled: an edit that turns a line into /forget or /grant
    (a teacher's own, or anyone's) does nothing."""
    await course_in_dm(tg, TEACHER)
    await bind_group(tg)
    for chat, who, text in (
        (dm(TEACHER), TEACHER, "/forget syllabus.md"),
        (GROUP, MALLORY, f"/grant instructor {MALLORY['id']}"),
        (GROUP, TEACHER, f"/grant instructor {MALLORY['id']}"),
    ):
        update = tg.fake.text_update(chat, who, text)
        edited = {"update_id": update["update_id"], "edited_message": update["message"]}
        assert await tg.send(edited) == []
    assert "syllabus.md" in joined(await tg.say(dm(TEACHER), TEACHER, "/sources"))
    assert str(MALLORY["id"]) not in joined(await tg.say(dm(TEACHER), TEACHER, "/staff"))


async def test_a_forwarded_command_is_the_forwarders_not_its_authors(tg: TelegramBot) -> None:
    """A forwarded message is sent by whoever forwards it: the teacher's /grant, forwarded
    into the group by a student, is that student's, and refused."""
    await bind_group(tg)
    original = tg.fake.text_update(GROUP, TEACHER, f"/grant instructor {MALLORY['id']}")
    forwarded = tg.fake.text_update(GROUP, MALLORY, f"/grant instructor {MALLORY['id']}")
    forwarded["message"]["forward_origin"] = {
        "type": "user",
        "sender_user": TEACHER,
        "date": original["message"]["date"],
    }
    [refused] = texts(await tg.send(forwarded))
    assert refused == "Sorry, only a course instructor can grant or revoke course roles."
    await course_in_dm(tg, TEACHER)
    assert str(MALLORY["id"]) not in joined(await tg.say(dm(TEACHER), TEACHER, "/staff"))


async def test_a_vote_held_by_an_outage_is_counted_after_it_and_its_score_sent(
    tg: TelegramBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Telegram never delivers a vote again: the last question's vote, cast while the
    session store is unreachable, is counted once it is back, and the score reaches the
    poll's chat then."""
    await course_in_dm(tg, ALICE)
    quiz, polls = await quiz_polls(tg, dm(ALICE), ALICE, "derivatives 2")
    first, second = (call.result["poll"] for call in polls)
    right = [q.correct for q in quiz.questions]
    await tg.vote(first, ALICE, right[0])

    async def unreachable(*_args: object) -> None:
        raise RedisConnectionError("Error 111 connecting to 127.0.0.1:6379. Connection refused.")

    with monkeypatch.context() as outage:
        outage.setattr(PollRegistry, "find", unreachable)
        _, calls = await tg.vote(second, ALICE, right[1])
    assert not sent_messages(calls)  # nothing to say yet, and no apology for a bug
    start = len(tg.fake.calls)
    assert await tg.core.count_held_votes()
    [score] = sent_messages(tg.fake.calls[start:])
    assert score.chat_id == ALICE["id"]
    assert "Quiz done: 2 of 2 right." in visible_text(score.text)
    # Counted once: nothing waits, and counting again sends nothing more.
    start = len(tg.fake.calls)
    assert await tg.core.count_held_votes()
    assert not sent_messages(tg.fake.calls[start:])


# Pictures of cited pages -----------------------------------------------------------------


def notes_pdf(text: str) -> bytes:
    """A one-page PDF of a student's notes."""
    from fpdf import FPDF

    pdf = FPDF()
    pdf.add_page()
    pdf.set_font("helvetica", size=12)
    pdf.set_xy(10, 120)
    pdf.multi_cell(w=180, text=text)
    return bytes(pdf.output())


async def test_a_citations_show_page_button_sends_the_page_as_a_photo(tg: TelegramBot) -> None:
    await course_in_dm(tg, ALICE)
    [answer] = sent_messages(await tg.say(dm(ALICE), ALICE, "What does the squeeze theorem say?"))
    assert "[1] lecture-01-limits.pdf, p. 8, Summary" in visible_text(answer.text)
    lecture = document_id(COURSE, "lecture-01-limits.pdf")
    show, *_more = buttons(answer)
    assert show == {"text": "Show p. 8 [1]", "callback_data": f"page:{lecture}:8"}
    *_pages, up, down = _more
    assert all(b["callback_data"].startswith("page:") for b in _pages)
    assert (up["text"], down["text"]) == ("👍", "👎")
    calls = await tg.press(answer.result, ALICE, show["callback_data"])
    assert [c.method for c in calls] == ["answerCallbackQuery", "sendPhoto"]
    photo = calls[-1]
    name, png = photo.files["photo"]
    assert name == "lecture-01-limits-p8.png" and png.startswith(b"\x89PNG\r\n\x1a\n")
    assert photo.params["caption"] == "lecture-01-limits.pdf, p. 8"
    # In a group the page answers the message whose button was pressed, for all to see.
    await bind_group(tg)
    [group_answer] = sent_messages(
        await tg.say(GROUP, BOB, f"/ask@{BOT_USER['username']} What does the squeeze theorem say?")
    )
    calls = await tg.press(group_answer.result, BOB, show["callback_data"])
    [photo] = [c for c in calls if c.method == "sendPhoto"]
    assert photo.json("reply_parameters")["message_id"] == group_answer.result["message_id"]


async def test_hand_made_page_data_naming_a_private_or_another_courses_page_shows_nothing(
    tg: TelegramBot,
) -> None:
    """Callback data is whatever a client sends: a page of a classmate's notes, or of
    another course, is refused by the core; her own notes' page only in her DM."""
    await course_in_dm(tg, ALICE)
    await course_in_dm(tg, BOB)
    await bind_group(tg)
    await tg.say(dm(ALICE), ALICE, "/notes")
    uploaded = await tg.upload(
        dm(ALICE), ALICE, "alice-notes.pdf", notes_pdf("Peel the chain rule like an onion.")
    )
    assert "alice-notes.pdf: added" in texts(uploaded, "editMessageText")[-1]
    alices = document_id(COURSE, "alice-notes.pdf", f"telegram:{ALICE['id']}")
    other = await tg.core.ingest_files(
        "physics-2", [SourceFile.at(SAMPLE_COURSE / "lecture-02-derivatives.pdf")]
    )
    assert not other.failed
    physics = document_id("physics-2", "lecture-02-derivatives.pdf")
    [bobs] = sent_messages(await tg.say(dm(BOB), BOB, "What does the squeeze theorem say?"))
    for chat, data in (
        (dm(BOB), f"page:{alices}:1"),
        (GROUP, f"page:{alices}:1"),
        (dm(BOB), f"page:{physics}:1"),
    ):
        calls = await tg.press({**bobs.result, "chat": chat}, BOB, data)
        assert [c.method for c in calls] == ["answerCallbackQuery"]
        assert calls[0].params["text"].startswith("There is no picture of page 1")
    # Alice's own page: in the group she is told to ask in a DM; in her DM it comes.
    [in_group] = await tg.press({**bobs.result, "chat": GROUP}, ALICE, f"page:{alices}:1")
    assert "private notes" in in_group.params["text"]
    calls = await tg.press({**bobs.result, "chat": dm(ALICE)}, ALICE, f"page:{alices}:1")
    assert [c.method for c in calls] == ["answerCallbackQuery", "sendPhoto"]
    # Data that is not a page's at all never reaches the core.
    assert await tg.press(bobs.result, BOB, "page:../../etc:1") == []


# Schedules --------------------------------------------------------------------------------


async def test_a_scheduled_quiz_and_exam_reminders_are_posted_in_the_group_once(
    tg: TelegramBot, settings: Settings
) -> None:
    await bind_group(tg)
    [made] = texts(await tg.say(GROUP, TEACHER, "/schedule quiz derivatives mon 09:00"))
    assert made == "Schedule #1: quiz on derivatives, mon 09:00."
    [reminders] = texts(await tg.say(GROUP, TEACHER, "/schedule reminders on"))
    assert reminders.startswith("Schedule #2: exam reminders here")
    [refused] = texts(await tg.say(GROUP, ALICE, "/schedule quiz limits mon 09:00"))
    assert refused.startswith("Sorry, only a course instructor can schedule")
    poster = {"telegram": scheduled_poster(tg.application, tg.core)}
    async with running_schedules(settings, tg.core, posters=poster, poll_s=60) as runner:
        start = len(tg.fake.calls)
        monday = datetime(2026, 12, 7, 9, 0, tzinfo=UTC)
        # Two replicas would both call this at 9:00: the second finds the run claimed.
        await asyncio.gather(runner.fire(1, monday), runner.fire(1, monday))
        polls = [call for call in tg.fake.calls[start:] if call.method == "sendPoll"]
        assert polls and {call.chat_id for call in polls} == {GROUP["id"]}
        assert len({call.params["question"] for call in polls}) == len(polls)
        # A vote on a scheduled poll counts like any other (the poll was remembered).
        first = polls[0].result["poll"]
        await tg.vote(first, BOB, 0)
        # A week before the syllabus's final exam (2026-12-14), the reminder is posted.
        start = len(tg.fake.calls)
        await runner.fire(2, datetime(2026, 12, 7, 8, 0, tzinfo=UTC))
        [reminder] = sent_messages(tg.fake.calls[start:])
        assert reminder.chat_id == GROUP["id"]
        assert "Final exam in 7 days: Monday 14 December 2026" in visible_text(reminder.text)
    await course_in_dm(tg, TEACHER)
    listing = joined(await tg.say(dm(TEACHER), TEACHER, "/schedules"))
    assert "#1 quiz on derivatives, mon 09:00" in listing
    assert "2026-12-07 09:00 UTC done: quiz on derivatives posted" in listing
    assert "2026-12-07 08:00 UTC done: Final exam in 7 days" in listing
