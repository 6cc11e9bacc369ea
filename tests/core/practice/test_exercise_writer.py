"""Exercises written by a model (the fake Ollama over HTTP, the real client): verified before
a student sees them, refused when they do not check out, and then run as guided sessions
with grading and the mistake log. The core is the real one (`open_assembly`), with the
sample course's worked exercises and derivatives lecture ingested."""

from __future__ import annotations

import copy
import json
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
from support.asking import replies
from support.exercise_drafts import POWER_RULE_DRAFT
from support.fake_ollama import FakeOllama, running_fake_ollama, scripted

from bot.composition import Assembly, open_assembly
from config import Settings
from core.commands import ParsedCommand
from core.context import Audience, Member
from core.material import SourceFile
from core.mistakes import MistakeLog
from core.replies import ErrorReply, ExerciseSheet, Notice, StepPrompt
from core.requests import Place, Request

SAMPLE = Path(__file__).resolve().parents[3] / "examples" / "sample-course"

VALID = POWER_RULE_DRAFT  # the draft every test here starts from (copied before changes)


def draft(**changes: Any) -> dict[str, Any]:
    value = copy.deepcopy(VALID)
    for path, new in changes.items():
        target: Any = value
        *parents, last = path.split("__")
        for part in parents:
            target = target[int(part)] if part.isdigit() else target[part]
        target[int(last) if last.isdigit() else last] = new
    return value


def as_json(value: dict[str, Any]) -> str:
    return json.dumps(value)


@pytest.fixture(scope="module")
def fake_server() -> Iterator[FakeOllama]:
    with running_fake_ollama() as server:
        yield server


@pytest.fixture
def fake(fake_server: FakeOllama) -> FakeOllama:
    fake_server.chat_reply = scripted(as_json(VALID))
    fake_server.delay_s = 0.0
    fake_server.requests.clear()
    return fake_server


def llm_settings(tmp_path: Path, fake: FakeOllama, timeout_s: float = 5) -> Settings:
    return Settings(
        _env_file=None,
        data_dir=tmp_path / "data",
        ollama_host=fake.url,
        ollama_models={"generate": "qwen2.5:7b"},
        ollama_timeout_s=timeout_s,
    )  # type: ignore[call-arg]


async def _ingested(settings: Settings) -> AsyncIterator[Assembly]:
    async with open_assembly(settings) as assembly:
        files = [SAMPLE / "worked-exercises.md", SAMPLE / "lecture-02-derivatives.pdf"]
        report = await assembly.bot.ingest_files("sample", [SourceFile.at(f) for f in files])
        assert not report.failed
        yield assembly


@pytest.fixture
async def assembly(tmp_path: Path, fake: FakeOllama, embedder: object) -> AsyncIterator[Assembly]:
    async for opened in _ingested(llm_settings(tmp_path, fake)):
        yield opened


def command(name: str, argument: str = "") -> dict[str, Any]:
    return {"command": ParsedCommand(name, argument)}


def chat_requests(fake: FakeOllama) -> list[dict[str, Any]]:
    return fake.requests_to("/api/chat")


async def test_a_verified_exercise_is_delivered_hidden_and_runs_as_a_guided_session(
    assembly: Assembly, fake: FakeOllama, tmp_path: Path
) -> None:
    bot = assembly.bot
    sent = await replies(bot, "", "ana", **command("exercise", "derivatives hard"))
    sheet, first = sent[0], sent[1]
    assert isinstance(sheet, ExerciseSheet), sent
    assert sheet.verified and sheet.exercise_id.startswith("gen-")
    assert sheet.statement == VALID["statement"] and sheet.solution == VALID["solution"]
    assert sheet.sources and sheet.sources[0].file_name in {
        "worked-exercises.md", "lecture-02-derivatives.pdf"
    }  # fmt: skip
    assert isinstance(first, StepPrompt) and first.step_count == 2
    # The model got the course's passages, the difficulty, and the schema as `format`.
    [request] = chat_requests(fake)
    user = request["messages"][-1]["content"]
    assert "hard (" in user and "[1] (" in user and "derivatives" in user
    assert request["format"]["properties"]["steps"]
    # A wrong answer is graded and logged with the step's skill; the right one moves on.
    wrong = await replies(bot, "4x^3", "ana")
    assert "✗" in wrong[0].text  # type: ignore[union-attr]
    right = await replies(bot, "12x^3", "ana")
    assert isinstance(right[0], StepPrompt) and right[0].step_number == 2
    done = await replies(bot, "96", "ana")
    assert "Exercise complete" in done[-1].text  # type: ignore[union-attr]
    # A background flush may hold the outbox's lock: wait for it, then flush the rest.
    await assembly.outbox.settled()
    await assembly.outbox.flush()
    log = await MistakeLog.open(llm_settings(tmp_path, fake), migrate_schema=False)
    try:
        logged = await log.latest("sample")
    finally:
        await log.close()
    assert [(m.exercise_id, m.skill, m.answer) for m in logged] == [
        (sheet.exercise_id, "power rule", "4x^3")
    ]


async def test_solution_shows_the_worked_solution_and_others_cannot_open_the_exercise(
    assembly: Assembly,
) -> None:
    bot = assembly.bot
    sheet = (await replies(bot, "", "ana", **command("exercise", "derivatives")))[0]
    assert isinstance(sheet, ExerciseSheet)
    [shown] = await replies(bot, "", "ana", **command("solution"))
    assert isinstance(shown, Notice) and shown.text == VALID["solution"]
    # Another student naming the generated id finds nothing: it is ana's.
    other = await replies(bot, "", "ben", **command("practice", sheet.exercise_id))
    assert isinstance(other[0], ErrorReply) and "no guided exercise" in other[0].text


@pytest.mark.parametrize(
    "broken",
    [
        pytest.param(f"```json\n{as_json(VALID)}\n```", id="code-fence"),
        pytest.param(as_json(VALID).replace('"sources": [1]', '"sources": [1,],'), id="commas"),
        pytest.param(
            as_json(draft(statement="Let f(x) = a x^n. Find \\frac{d}{dx} f.")).replace(
                "\\\\frac", "\\frac"
            ),
            id="latex-backslash",
        ),
    ],
)
async def test_broken_json_is_repaired_without_asking_again(
    assembly: Assembly, fake: FakeOllama, broken: str
) -> None:
    fake.chat_reply = scripted(broken)
    sent = await replies(assembly.bot, "", "ana", **command("exercise", "derivatives"))
    assert isinstance(sent[0], ExerciseSheet), sent
    assert len(chat_requests(fake)) == 1


async def test_a_stated_answer_that_disagrees_with_its_data_is_caught_and_rewritten(
    assembly: Assembly, fake: FakeOllama
) -> None:
    fake.chat_reply = scripted(as_json(draft(steps__1__answer="95")), as_json(VALID))
    sent = await replies(assembly.bot, "", "ana", **command("exercise", "derivatives"))
    assert isinstance(sent[0], ExerciseSheet) and sent[0].verified
    _first, second = chat_requests(fake)
    feedback = second["messages"][-1]["content"]
    assert "disagrees with its own data: the check gives 96" in feedback
    # The model sees its own failed reply before the feedback.
    assert second["messages"][-2]["role"] == "assistant"


async def test_a_hint_that_gives_the_answer_away_is_caught(
    assembly: Assembly, fake: FakeOllama
) -> None:
    leaky = draft(steps__1__hints=["It is 96."])
    fake.chat_reply = scripted(as_json(leaky), as_json(VALID))
    sent = await replies(assembly.bot, "", "ana", **command("exercise", "derivatives"))
    assert isinstance(sent[0], ExerciseSheet)
    feedback = chat_requests(fake)[1]["messages"][-1]["content"]
    assert "the hint contains the expected answer (96)" in feedback


async def test_an_exercise_that_never_checks_out_is_refused_with_one_line(
    assembly: Assembly, fake: FakeOllama
) -> None:
    fake.chat_reply = scripted(as_json(draft(final_answer="97")))
    [refused] = await replies(assembly.bot, "", "ana", **command("exercise", "derivatives"))
    assert isinstance(refused, ErrorReply)
    assert "could not write an exercise on 'derivatives' whose answers check out" in refused.text
    assert len(chat_requests(fake)) == 3  # the first draft and two rewrites
    # Nothing was started.
    [status] = await replies(assembly.bot, "", "ana", **command("status"))
    assert "no exercise open" in status.text  # type: ignore[union-attr]


async def test_a_reply_that_never_fits_the_schema_is_reasked_then_refused(
    assembly: Assembly, fake: FakeOllama
) -> None:
    fake.chat_reply = scripted('{"title": "only a title"}')
    [refused] = await replies(assembly.bot, "", "ana", **command("exercise", "derivatives"))
    assert isinstance(refused, ErrorReply) and "well-formed exercise" in refused.text
    requests = chat_requests(fake)
    assert len(requests) == 3  # asked, then re-asked twice with the validation errors
    assert "statement" in requests[1]["messages"][-1]["content"]


async def test_hostile_checks_are_refused_not_evaluated(
    assembly: Assembly, fake: FakeOllama
) -> None:
    hostile = draft(steps__0__check="__import__('os').system('touch /tmp/pwned')")
    fake.chat_reply = scripted(as_json(hostile), as_json(VALID))
    sent = await replies(assembly.bot, "", "ana", **command("exercise", "derivatives"))
    assert isinstance(sent[0], ExerciseSheet)
    assert "is unreadable" in chat_requests(fake)[1]["messages"][-1]["content"]


async def test_a_slow_model_gets_a_clear_line(
    tmp_path: Path, fake: FakeOllama, embedder: object
) -> None:
    async for assembly in _ingested(llm_settings(tmp_path, fake, timeout_s=0.5)):
        fake.delay_s = 2.0
        [refused] = await replies(assembly.bot, "", "ana", **command("exercise", "derivatives"))
        fake.delay_s = 0.0
        assert isinstance(refused, ErrorReply) and "took too long" in refused.text


async def test_a_topic_the_course_does_not_cover_gets_one_line_and_no_model_call(
    assembly: Assembly, fake: FakeOllama
) -> None:
    [refused] = await replies(
        assembly.bot, "", "ana", **command("exercise", "medieval tapestry weaving")
    )
    assert isinstance(refused, ErrorReply)
    assert refused.text == (
        "The course material has nothing on 'medieval tapestry weaving' to model an exercise on."
    )
    assert chat_requests(fake) == []


def in_group(user: str, name: str, argument: str = "") -> Request:
    return Request(
        Member(platform="test", user_id=user),
        Place(Audience.SHARED, chat_id="test:group-1"),
        message_id=f"test:{uuid.uuid4()}",
        text="",
        command=ParsedCommand(name, argument),
        course="sample",
    )


async def test_an_exercise_written_in_a_direct_message_is_never_opened_in_a_group(
    assembly: Assembly,
) -> None:
    bot = assembly.bot
    # Written in a direct message, where the model read her notes: hers alone.
    sheet = (await replies(bot, "", "ana", **command("exercise", "derivatives")))[0]
    assert isinstance(sheet, ExerciseSheet)
    await replies(bot, "", "ana", **command("quit"))
    # Named in a group, it is refused with one line and none of it is shown there.
    response = await bot.handle(in_group("ana", "practice", sheet.exercise_id))
    [refused] = response.replies
    assert isinstance(refused, ErrorReply), refused
    assert "direct message" in refused.text
    shown = " ".join(str(reply) for reply in response.replies)
    assert VALID["statement"] not in shown and VALID["steps"][0]["prompt"] not in shown
    # Nothing started there: a line in the group is not an answer, and /status knows none.
    [status] = (await bot.handle(in_group("ana", "status"))).replies
    assert isinstance(status, Notice) and "no exercise open" in status.text
    # In her direct message it opens and runs as before.
    again = await replies(bot, "", "ana", **command("practice", sheet.exercise_id))
    assert isinstance(again[0], ExerciseSheet) and isinstance(again[1], StepPrompt), again
