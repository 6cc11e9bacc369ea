"""A job that dies after saving what it made is run again, and saves nothing twice: the
retry finds the set, the lesson version or the written exercise its first run saved (the
job's id is on the row) and answers with it, once. On arq the job is retried as a dead
worker's job is (the first run ends with arq's `Retry` right after its save); in the process
nothing retries a job, so the message is delivered again, as a platform does when the
process died, and its job (the same key, so the same id) runs again. The core is the real
one (`open_assembly`) with the sample course's derivatives lecture and worked exercises."""

from __future__ import annotations

import copy
import json
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from arq.worker import Retry
from support.asking import request
from support.exercise_drafts import POWER_RULE_DRAFT
from support.fake_ollama import FakeOllama, running_fake_ollama, scripted
from support.job_engines import ENGINES, delete_keys, jobs_on
from support.paths import SAMPLE_COURSE

from bot.composition import Assembly, open_assembly
from config import Settings
from core.commands import ParsedCommand
from core.generation import MaterialKind, MaterialStore
from core.material import SourceFile
from core.replies import DocumentReply, ErrorReply, ExerciseSheet, Reply, StepPrompt
from core.requests import Request

COURSE = "sample"
FILES = ("lecture-02-derivatives.pdf", "worked-exercises.md")


class CrashOnce:
    """Wraps an async method so that, once armed, its next call matching `when` does its
    work and then fails: the worker dying after the effect, before the job is marked done."""

    def __init__(self, engine: str) -> None:
        self.engine = engine
        self.armed = False
        self.fired = 0

    def wrap(
        self,
        monkeypatch: pytest.MonkeyPatch,
        owner: type,
        name: str,
        when: Callable[..., bool] = lambda *_args: True,
        *,
        before: bool = False,
    ) -> None:
        """`before`: fail instead of the call (the worker died just before the effect)."""
        original = getattr(owner, name)

        async def crashing(this: Any, *args: Any, **kwargs: Any) -> Any:
            crashes = self.armed and when(*args)
            result = None if crashes and before else await original(this, *args, **kwargs)
            if crashes:
                self.armed = False
                self.fired += 1
                # arq runs a job again after `Retry` as after a worker that died holding it.
                raise Retry() if self.engine == "arq" else RuntimeError("the worker died")
            return result

        monkeypatch.setattr(owner, name, crashing)


@pytest.fixture(scope="module")
def fake_server() -> Iterator[FakeOllama]:
    with running_fake_ollama() as server:
        yield server


@pytest.fixture
def fake(fake_server: FakeOllama) -> FakeOllama:
    fake_server.chat_reply = scripted(json.dumps(copy.deepcopy(POWER_RULE_DRAFT)))
    fake_server.delay_s = 0.0
    fake_server.requests.clear()
    return fake_server


@pytest.fixture
async def prefix(redis_prefix: str) -> AsyncIterator[str]:
    yield redis_prefix
    await delete_keys(redis_prefix)


def settings_for(tmp_path: Path, fake: FakeOllama | None = None) -> Settings:
    model: dict[str, Any] = (
        {} if fake is None else {"ollama_host": fake.url, "ollama_models": {"generate": "m:7b"}}
    )
    return Settings(_env_file=None, data_dir=tmp_path / "data", **model)  # type: ignore[call-arg]


async def ingested(settings: Settings) -> AsyncIterator[Assembly]:
    async with open_assembly(settings) as assembly:
        sources = [SourceFile.at(SAMPLE_COURSE / name) for name in FILES]
        assert not (await assembly.bot.ingest_files(COURSE, sources)).failed
        yield assembly


def asked(name: str, argument: str) -> Request:
    return request("", "ana", COURSE, command=ParsedCommand(name, argument))


async def final_replies(assembly: Assembly, engine: str, sent: Request) -> list[Reply]:
    """What the chat is answered in the end: on arq the retried job's one result; in the
    process the redelivered message's (its first delivery died with its job)."""
    response = await assembly.bot.handle(sent)
    if engine == "inprocess":
        assert [type(r) for r in response.replies] == [ErrorReply], response
        response = await assembly.bot.handle(sent)
    return list(response.replies)


def stored(assembly: Assembly) -> MaterialStore:
    return MaterialStore(assembly.database)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("crash_after", ["saving the exercise", "starting its session"])
async def test_a_retried_exercise_job_writes_one_exercise_and_answers_once(
    engine: str,
    crash_after: str,
    tmp_path: Path,
    prefix: str,
    fake: FakeOllama,
    embedder: object,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    crash = CrashOnce(engine)
    async for assembly in ingested(settings_for(tmp_path, fake)):
        if crash_after == "saving the exercise":
            crash.wrap(monkeypatch, MaterialStore, "save")
        else:
            sessions = type(assembly.sessions)
            crash.wrap(monkeypatch, sessions, "compare_and_set", lambda key, *_: "exercise" in key)
        async with jobs_on(engine, assembly.bot, prefix):
            crash.armed = True
            sent = await final_replies(assembly, engine, asked("exercise", "derivatives"))
        assert crash.fired == 1
        # One answer: the sheet, then the first step, once each.
        assert [type(r) for r in sent] == [ExerciseSheet, StepPrompt], sent
        [exercise] = await stored(assembly).list(COURSE, "ana", kind=MaterialKind.EXERCISE)
        sheet = sent[0]
        assert isinstance(sheet, ExerciseSheet)
        assert sheet.exercise_id == f"gen-{exercise.id}"
        assert sheet.statement == exercise.content["statement"]
        # The retry wrote nothing: the model was asked once.
        assert len(fake.requests_to("/api/chat")) == 1


@pytest.mark.parametrize("engine", ENGINES)
async def test_a_retried_lesson_edit_job_saves_one_new_version(
    engine: str, tmp_path: Path, prefix: str, embedder: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    crash = CrashOnce(engine)
    crash.wrap(monkeypatch, MaterialStore, "save")
    async for assembly in ingested(settings_for(tmp_path)):
        async with jobs_on(engine, assembly.bot, prefix):
            made = await assembly.bot.handle(asked("lesson", "derivatives --slides 3-6"))
            assert [r for r in made.replies if isinstance(r, DocumentReply)], made
            crash.armed = True
            sent = await final_replies(assembly, engine, asked("lesson", 'edit 2 "shorten this"'))
        assert crash.fired == 1
        pdfs = [r for r in sent if isinstance(r, DocumentReply) and r.file_name.endswith(".pdf")]
        assert [pdf.file_name for pdf in pdfs] == ["lesson-derivatives-v2.pdf"], sent
        # The deck and one edit of it: the retry did not edit its own edit into a third.
        rows = await stored(assembly).list(COURSE, "ana", kind=MaterialKind.LESSON)
        assert sorted(row.parameters.get("version", 1) for row in rows) == [1, 2]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("kind", ["flashcards", "quiz", "mindmap"])
async def test_a_retried_new_study_set_job_replaces_the_set_once(
    engine: str,
    kind: str,
    tmp_path: Path,
    prefix: str,
    embedder: object,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    crash = CrashOnce(engine)
    crash.wrap(monkeypatch, MaterialStore, "replace")
    async for assembly in ingested(settings_for(tmp_path)):
        store = stored(assembly)
        async with jobs_on(engine, assembly.bot, prefix):
            await assembly.bot.handle(asked(kind, "derivatives"))
            [before] = await store.list(COURSE, "ana", kind=MaterialKind(kind))
            crash.armed = True
            sent = await final_replies(assembly, engine, asked(kind, "derivatives --new"))
        assert crash.fired == 1
        # The first run's new set, kept and answered with; the retry replaced nothing.
        [after] = await store.list(COURSE, "ana", kind=MaterialKind(kind))
        assert after.id != before.id
        assert not [r for r in sent if isinstance(r, ErrorReply)], sent
        if kind != "mindmap":  # a mind map is sent as its picture, with no id
            [shown] = [getattr(r, "set_id", None) or getattr(r, "quiz_id", None) for r in sent]
            assert shown == after.id


@pytest.mark.parametrize("engine", ENGINES)
async def test_a_new_set_job_that_died_before_saving_makes_the_new_set_when_retried(
    engine: str, tmp_path: Path, prefix: str, embedder: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    crash = CrashOnce(engine)
    crash.wrap(monkeypatch, MaterialStore, "replace", before=True)
    async for assembly in ingested(settings_for(tmp_path)):
        store = stored(assembly)
        async with jobs_on(engine, assembly.bot, prefix):
            await assembly.bot.handle(asked("flashcards", "derivatives"))
            [before] = await store.list(COURSE, "ana", kind=MaterialKind.FLASHCARDS)
            crash.armed = True
            sent = await final_replies(assembly, engine, asked("flashcards", "derivatives --new"))
        assert crash.fired == 1
        # Nothing was saved by the first run: the retry still asks for a new set, not the old.
        [after] = await store.list(COURSE, "ana", kind=MaterialKind.FLASHCARDS)
        assert after.id != before.id
        assert [getattr(r, "set_id", None) for r in sent] == [after.id], sent
