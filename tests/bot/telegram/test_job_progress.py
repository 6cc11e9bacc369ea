"""Lessons and study sets as background jobs in Telegram: the real python-telegram-bot against
the fake Bot API, the jobs run in the process or through arq on the real Redis. The chat sees
one progress message, sent at the job's first step and edited (`editMessageText`) as it
advances, then the outcome: a lesson's PDF after it, a quiz's heading in its place and the
polls after it. With a model configured (the fake Ollama) the lesson is the model's."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from support.data_dirs import copy_data_dir
from support.fake_ollama import FakeOllama, running_fake_ollama, scripted
from support.fake_telegram import TOKEN, Call, FakeTelegram, private_chat, user, visible_text
from support.job_engines import ENGINES, delete_keys, jobs_on
from support.paths import SAMPLE_COURSE
from telegram import Update
from telegram.ext import ContextTypes, TypeHandler

from bot import composition
from bot.composition import open_assembly, open_core
from bot.telegram import Polling, build_application, running
from config import Settings
from core.commands import ParsedCommand
from core.context import Audience, Member
from core.embedding.minilm_onnx import MiniLMOnnxEmbedder
from core.requests import Place, Request
from ingestion import discover

COURSE = "sample"
ALICE = user(601, "Alice")
CHAT = private_chat(ALICE)
READY = "Ready: your lesson on 'derivatives'."
# A model's deck on the sample course's derivatives (what the fake Ollama answers).
MODEL_DECK = {
    "slides": [
        {
            "title": title,
            "content": [line],
            "math": [],
            "widget_html": None,
            "accessibility_notes": "",
            "sources": sources,
            "recap": recap,
        }
        for title, line, sources, recap in (
            ("What a derivative is", "The derivative is the slope of the tangent.", [1], False),
            ("The power rule", "Bring the exponent down, lower it by one.", [2], False),
            ("The product rule", "Each factor is differentiated in turn.", [1], False),
            ("Recap", "A derivative is a slope.", [], True),
        )
    ]
}


@pytest.fixture(scope="module")
def course_data(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sample course ingested and open to any student, once for the module."""
    data_dir = tmp_path_factory.mktemp("telegram-jobs") / "data"
    settings = Settings(_env_file=None, data_dir=data_dir)  # type: ignore[call-arg]
    with ThreadPoolExecutor(1) as thread:  # not this module's tests' event loop
        thread.submit(asyncio.run, _ingest_sample(settings)).result()
    return data_dir


async def _ingest_sample(settings: Settings) -> None:
    sources, missing = discover([SAMPLE_COURSE])
    assert not missing
    async with open_core(settings) as core:
        assert not (await core.ingest_files(COURSE, sources)).failed
        operator = Member(platform="console", user_id="console")
        opening = Request(
            operator, Place(Audience.PRIVATE), "setup-open",
            command=ParsedCommand("invite", "open"), course=COURSE, operator=True,
        )  # fmt: skip
        await core.handle(opening)


@pytest.fixture
def settings(
    tmp_path: Path,
    course_data: Path,
    embedder: MiniLMOnnxEmbedder,
    monkeypatch: pytest.MonkeyPatch,
) -> Settings:
    async def loaded(*_args: object) -> MiniLMOnnxEmbedder:
        return embedder

    monkeypatch.setattr(composition, "embedder", loaded)
    copy_data_dir(course_data, tmp_path / "data")
    return Settings(  # type: ignore[call-arg]
        _env_file=None,
        data_dir=tmp_path / "data",
        telegram_token=TOKEN,
        rate_limit="1000/minute",
        place_rate_limit="1000/minute",
    )


@pytest.fixture
async def prefix(redis_prefix: str) -> AsyncIterator[str]:
    yield redis_prefix
    await delete_keys(redis_prefix)


class Chat:
    """Alice's direct chat with the bot, one update at a time."""

    def __init__(self, fake: FakeTelegram) -> None:
        self.fake = fake
        self.handled: set[int] = set()
        self._changed = asyncio.Condition()

    async def mark(self, update: Update, _context: ContextTypes.DEFAULT_TYPE) -> None:
        async with self._changed:
            self.handled.add(update.update_id)
            self._changed.notify_all()

    async def say(self, text: str, timeout: float = 120) -> list[Call]:
        start = len(self.fake.calls)
        update_id = await self.fake.push(self.fake.text_update(CHAT, ALICE, text))
        async with self._changed:
            handled = self._changed.wait_for(lambda: update_id in self.handled)
            await asyncio.wait_for(handled, timeout)
        return [call for call in self.fake.calls[start:] if call.method != "getUpdates"]


@asynccontextmanager
async def chat_with_bot(settings: Settings, engine: str, prefix: str) -> AsyncIterator[Chat]:
    async with FakeTelegram() as fake, open_assembly(settings) as assembly:
        application = build_application(
            settings, assembly.bot, base_url=fake.base_url, base_file_url=fake.base_file_url
        )
        chat = Chat(fake)
        application.add_handler(TypeHandler(Update, chat.mark), group=1_000)
        polling = Polling(timeout_s=1)
        async with jobs_on(engine, assembly.bot, prefix), running(application, polling):
            reply = await chat.say(f"/course {COURSE}")
            assert "now about the course 'sample'" in visible_text(reply[-1].text)
            yield chat


def progress_of(calls: list[Call]) -> tuple[Call, list[Call]]:
    """The progress message (the first message sent) and the edits made to it."""
    first = next(call for call in calls if call.method == "sendMessage")
    message_id = first.result["message_id"]
    edited = [c for c in calls if c.method == "editMessageText"]
    assert {int(c.params["message_id"]) for c in edited} == {message_id}, edited
    return first, edited


@pytest.mark.parametrize("engine", ENGINES)
async def test_a_lesson_job_edits_its_progress_message_then_sends_the_pdf(
    settings: Settings, engine: str, prefix: str
) -> None:
    async with chat_with_bot(settings, engine, prefix) as chat:
        calls = await chat.say("/lesson derivatives --slides 3-4")
        first, edits = progress_of(calls)
        assert visible_text(first.text) == (
            "Making your lesson on 'derivatives': reading the course material (step 1 of 4)…"
        )
        assert edits and visible_text(edits[-1].text) == READY
        [document] = [c for c in calls if c.method == "sendDocument"]
        assert document.files["document"][1].startswith(b"%PDF")
        # The progress message comes first, the deck after its last edit.
        assert calls.index(first) < calls.index(edits[-1]) < calls.index(document)

        # Asked again, the stored deck is sent at once: no job steps, no progress message.
        again = await chat.say("/lesson derivatives --slides 3-4")
        assert not [c for c in again if c.method in ("sendMessage", "editMessageText")]
        assert [c for c in again if c.method == "sendDocument"]


@pytest.mark.parametrize("engine", ENGINES)
async def test_a_quiz_job_turns_its_progress_message_into_the_heading_then_polls(
    settings: Settings, engine: str, prefix: str
) -> None:
    async with chat_with_bot(settings, engine, prefix) as chat:
        calls = await chat.say("/quiz exam 2")
        first, edits = progress_of(calls)
        assert visible_text(first.text).startswith("Making your quiz on 'exam': ")
        # The heading takes the progress message's place; the polls follow it.
        assert visible_text(edits[-1].text).startswith("Quiz: exam (2 questions)")
        polls = [c for c in calls if c.method == "sendPoll"]
        assert len(polls) == 2 and calls.index(edits[-1]) < calls.index(polls[0])
        # The polls were remembered as they went out: a vote is counted.
        voted = await chat.say("/pick 1 A")
        assert visible_text(voted[-1].text).startswith(("✓ Question 1", "✗ Question 1"))


@pytest.fixture(scope="module")
def fake_model() -> Any:
    with running_fake_ollama() as server:
        yield server


@pytest.mark.parametrize("engine", ENGINES)
async def test_a_model_written_lesson_runs_as_a_job_with_its_steps(
    settings: Settings, engine: str, prefix: str, fake_model: FakeOllama
) -> None:
    fake_model.chat_reply = scripted(json.dumps(MODEL_DECK))
    fake_model.requests.clear()
    with_model = settings.model_copy(
        update={"ollama_host": fake_model.url, "ollama_models": {"generate": "qwen2.5:7b"}}
    )
    async with chat_with_bot(with_model, engine, prefix) as chat:
        calls = await chat.say("/lesson derivatives --slides 3-6")
        first, edits = progress_of(calls)
        assert "(step 1 of 4)" in visible_text(first.text)
        assert visible_text(edits[-1].text) == READY
        [document] = [c for c in calls if c.method == "sendDocument"]
        assert document.files["document"][1].startswith(b"%PDF")
        # The model wrote it, once.
        assert len(fake_model.requests_to("/api/chat")) == 1
