"""The structured-output layer against the fake Ollama over HTTP (the real client): valid
replies pass, broken syntax is repaired, invalid content is re-asked and then refused, the
caller's counts are enforced, and a slow model is a typed timeout."""

from __future__ import annotations

import json
import socket
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import pytest
from pydantic import BaseModel, RootModel
from support.fake_ollama import FakeOllama, running_fake_ollama, scripted

from core.generation import (
    GenerationFailedError,
    GenerationStats,
    GenerationTimeoutError,
    Message,
    Outcome,
    generate,
)
from core.generation.ollama_model import OllamaStructuredModel
from core.llm import LlmUnavailableError


class Exercise(BaseModel):
    question: str
    answer: str


class ExerciseSet(BaseModel):
    exercises: list[Exercise]


PROMPT = [
    Message("system", "You write practice exercises. Reply in JSON."),
    Message("user", "Three exercises on derivatives."),
]
ONE = {"question": "d/dx x^2?", "answer": "2x"}


@contextmanager
def closed_port() -> Iterator[str]:
    """The URL of a port nothing listens on."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    yield f"http://127.0.0.1:{port}"


def _exactly(count: int) -> Callable[[ExerciseSet], list[str]]:
    def check(value: ExerciseSet) -> list[str]:
        found = len(value.exercises)
        return [] if found == count else [f"exercises: expected {count} items, got {found}"]

    return check


async def test_a_valid_reply_is_taken_first_time(
    model: OllamaStructuredModel, fake_ollama: FakeOllama, stats: GenerationStats
) -> None:
    result = await generate(model, PROMPT, ExerciseSet, stats=stats)

    assert result.outcome is Outcome.VALID
    assert result.attempts == 1 and result.repairs == ()
    assert len(result.value.exercises) == 1
    [request] = fake_ollama.requests_to("/api/chat")
    assert request["format"] == ExerciseSet.model_json_schema()
    assert [m["role"] for m in request["messages"]] == ["system", "user"]
    assert stats.count(Outcome.VALID) == 1 and stats.requests == 1


@pytest.mark.parametrize(
    ("reply", "repair"),
    [
        ('```json\n{"exercises": [{"question": "q", "answer": "a"}]}\n```', "code_fence"),
        ('{"exercises": [{"question": "q", "answer": "a",},],}', "trailing_comma"),
        ('{"question": "q", "answer": "a"}', "lone_object"),
        ('{"exercises": {"question": "q", "answer": "a"}}', "lone_object"),
    ],
)
async def test_each_syntax_breakage_is_repaired(
    model: OllamaStructuredModel,
    fake_ollama: FakeOllama,
    stats: GenerationStats,
    reply: str,
    repair: str,
) -> None:
    fake_ollama.chat_reply = scripted(reply)

    result = await generate(model, PROMPT, ExerciseSet, stats=stats)

    assert result.outcome is Outcome.REPAIRED
    assert result.repairs == (repair,)
    assert result.value == ExerciseSet(exercises=[Exercise(question="q", answer="a")])
    assert len(fake_ollama.requests_to("/api/chat")) == 1
    assert stats.count(Outcome.REPAIRED) == 1 and stats.repairs[repair] == 1


async def test_latex_backslashes_come_through_as_latex(
    model: OllamaStructuredModel, fake_ollama: FakeOllama
) -> None:
    # What a small model writes: LaTeX with single backslashes inside JSON strings.
    fake_ollama.chat_reply = scripted(
        r'{"exercises": [{"question": "Simplify \frac{1}{2} + \beta\theta", '
        r'"answer": "\nabla f = \left( x \right) \alpha"}]}'
    )

    result = await generate(model, PROMPT, ExerciseSet, stats=GenerationStats())

    assert result.outcome is Outcome.REPAIRED and result.repairs == ("latex_backslash",)
    [exercise] = result.value.exercises
    assert exercise.question == r"Simplify \frac{1}{2} + \beta\theta"
    assert exercise.answer == r"\nabla f = \left( x \right) \alpha"


async def test_a_lone_object_is_wrapped_when_a_list_is_asked(
    model: OllamaStructuredModel, fake_ollama: FakeOllama
) -> None:
    fake_ollama.chat_reply = scripted(json.dumps(ONE))

    result = await generate(model, PROMPT, RootModel[list[Exercise]], stats=GenerationStats())

    assert result.outcome is Outcome.REPAIRED and result.repairs == ("lone_object",)
    assert result.value.root == [Exercise(**ONE)]


async def test_all_repairs_together_in_their_order(
    model: OllamaStructuredModel, fake_ollama: FakeOllama
) -> None:
    fake_ollama.chat_reply = scripted('```json\n{"question": "\\frac{a}{b}", "answer": "1",}\n```')

    result = await generate(model, PROMPT, ExerciseSet, stats=GenerationStats())

    assert result.repairs == ("code_fence", "latex_backslash", "trailing_comma", "lone_object")
    assert result.value.exercises[0].question == r"\frac{a}{b}"


async def test_a_schema_failure_is_re_asked_with_its_errors(
    model: OllamaStructuredModel, fake_ollama: FakeOllama, stats: GenerationStats
) -> None:
    good = json.dumps({"exercises": [ONE]})
    fake_ollama.chat_reply = scripted('{"exercises": [{"question": "q"}]}', good)

    result = await generate(model, PROMPT, ExerciseSet, stats=stats)

    assert result.outcome is Outcome.REASKED and result.attempts == 2
    assert result.value.exercises == [Exercise(**ONE)]
    first, second = fake_ollama.requests_to("/api/chat")
    assert len(first["messages"]) == 2
    echoed, reask = second["messages"][2:]
    assert echoed == {"role": "assistant", "content": '{"exercises": [{"question": "q"}]}'}
    assert reask["role"] == "user" and "exercises.0.answer: Field required" in reask["content"]
    assert second["format"] == first["format"]
    assert stats.count(Outcome.REASKED) == 1 and stats.replies == 2


async def test_a_reply_that_stays_invalid_is_refused_after_the_re_asks(
    model: OllamaStructuredModel, fake_ollama: FakeOllama, stats: GenerationStats
) -> None:
    fake_ollama.chat_reply = scripted('{"exercises": [{"question": 7}]}')

    with pytest.raises(GenerationFailedError) as caught:
        await generate(model, PROMPT, ExerciseSet, max_reasks=2, stats=stats)

    assert caught.value.attempts == 3
    assert any("answer" in error for error in caught.value.errors)
    assert any("question" in error for error in caught.value.errors)
    assert len(fake_ollama.requests_to("/api/chat")) == 3
    assert stats.count(Outcome.FAILED) == 1 and stats.replies == 3


async def test_json_that_cannot_be_parsed_is_re_asked(
    model: OllamaStructuredModel, fake_ollama: FakeOllama
) -> None:
    fake_ollama.chat_reply = scripted("Sure! Here are your exercises: 1. ...")

    with pytest.raises(GenerationFailedError, match="not valid JSON"):
        await generate(model, PROMPT, ExerciseSet, max_reasks=1, stats=GenerationStats())

    assert len(fake_ollama.requests_to("/api/chat")) == 2


async def test_a_count_is_enforced_by_validate_and_re_asked(
    model: OllamaStructuredModel, fake_ollama: FakeOllama, stats: GenerationStats
) -> None:
    fake_ollama.chat_reply = scripted(
        json.dumps({"exercises": [ONE]}), json.dumps({"exercises": [ONE, ONE, ONE]})
    )

    result = await generate(model, PROMPT, ExerciseSet, validate=_exactly(3), stats=stats)

    assert result.outcome is Outcome.REASKED
    assert len(result.value.exercises) == 3
    reask = fake_ollama.requests_to("/api/chat")[1]["messages"][-1]["content"]
    assert "exercises: expected 3 items, got 1" in reask


async def test_a_count_never_met_is_refused(
    model: OllamaStructuredModel, fake_ollama: FakeOllama
) -> None:
    fake_ollama.chat_reply = scripted(json.dumps({"exercises": [ONE]}))

    with pytest.raises(GenerationFailedError) as caught:
        await generate(model, PROMPT, ExerciseSet, validate=_exactly(3), max_reasks=1)

    assert caught.value.errors == ["exercises: expected 3 items, got 1"]
    assert caught.value.attempts == 2


async def test_a_slow_model_is_a_typed_timeout(stats: GenerationStats) -> None:
    # A server of its own: the late reply must not reach another test's fake.
    with running_fake_ollama(FakeOllama(delay_s=1.0)) as fake:
        slow = OllamaStructuredModel(
            host=fake.url, model="llama3.1:8b", timeout_s=0.2, context_window=8192
        )

        with pytest.raises(GenerationTimeoutError):
            await generate(slow, PROMPT, ExerciseSet, stats=stats)

        assert stats.count(Outcome.TIMED_OUT) == 1
        assert len(fake.requests_to("/api/chat")) == 1  # a timeout is not retried


async def test_the_whole_generation_has_a_deadline(stats: GenerationStats) -> None:
    fake = FakeOllama(chat_reply=scripted('{"exercises": []}'), delay_s=0.15)
    with running_fake_ollama(fake):
        model = OllamaStructuredModel(
            host=fake.url, model="llama3.1:8b", timeout_s=5, context_window=8192
        )

        with pytest.raises(GenerationTimeoutError):
            await generate(
                model, PROMPT, ExerciseSet, validate=_exactly(3), max_reasks=10, timeout_s=0.4,
                stats=stats,
            )  # fmt: skip

        assert stats.count(Outcome.TIMED_OUT) == 1
        assert 1 <= len(fake.requests_to("/api/chat")) <= 3


async def test_a_timeout_is_an_llm_outage_to_callers_that_fall_back() -> None:
    assert issubclass(GenerationTimeoutError, LlmUnavailableError)


async def test_an_unreachable_model_is_unavailable(stats: GenerationStats) -> None:
    with closed_port() as url:
        gone = OllamaStructuredModel(
            host=url, model="llama3.1:8b", timeout_s=2, context_window=8192, attempts=1
        )
        with pytest.raises(LlmUnavailableError) as caught:
            await generate(gone, PROMPT, ExerciseSet, stats=stats)

    assert not isinstance(caught.value, GenerationTimeoutError)
    assert stats.count(Outcome.UNAVAILABLE) == 1


async def test_stats_give_rates_per_100_requests(
    model: OllamaStructuredModel, fake_ollama: FakeOllama, stats: GenerationStats
) -> None:
    good = json.dumps({"exercises": [ONE]})
    fake_ollama.chat_reply = scripted(good, "```json\n" + good + "\n```", "nope", good)
    for _ in range(3):
        await generate(model, PROMPT, ExerciseSet, stats=stats)

    rates = stats.per_100()
    assert rates["valid"] == rates["repaired"] == rates["reasked"] == pytest.approx(100 / 3)
    assert rates["failed"] == 0
    assert stats.overhead_ms_per_request() >= 0
