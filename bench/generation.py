"""The structured-output layer's cost and, against a real Ollama, how often small models
get the schema right.

Without arguments, against the fake Ollama (tests/support/fake_ollama.py, real client over
HTTP): for each kind of reply (valid, fenced, LaTeX backslashes, trailing commas, a lone
object, one re-ask) N generations are timed, and what the layer adds beyond the model's
time (parsing, repair, validation, re-ask bookkeeping) is printed in ms per call, next to the
cost of checking one reply with no HTTP at all.

With `--ollama URL --model M`, N requests for a set of exercises go to that model and the
outcomes are printed per 100 requests (first time / repaired / re-asked / failed / timed
out), with the repairs needed and the latency.

Run: python bench/generation.py [--calls 200]
     python bench/generation.py --ollama http://127.0.0.1:11434 --model llama3.1:8b [--calls 100]"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import structlog
from pydantic import BaseModel

from core.generation import (
    GenerationError,
    GenerationStats,
    Message,
    OllamaStructuredModel,
    Outcome,
    check_reply,
    generate,
)
from core.llm import LlmUnavailableError

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))


class Exercise(BaseModel):
    question: str
    answer: str
    explanation: str


class ExerciseSet(BaseModel):
    exercises: list[Exercise]


COUNT = 5


def validate_set(value: ExerciseSet) -> list[str]:
    errors = []
    if len(value.exercises) != COUNT:
        errors.append(f"exercises: expected {COUNT} items, got {len(value.exercises)}")
    questions = [e.question.strip().casefold() for e in value.exercises]
    if len(set(questions)) != len(questions):
        errors.append("exercises: every question must be different")
    for index, exercise in enumerate(value.exercises):
        for name in ("question", "answer", "explanation"):
            if not getattr(exercise, name).strip():
                errors.append(f"exercises.{index}.{name}: must not be empty")
    return errors


PROMPT = [
    Message(
        "system",
        "You write practice exercises for a university calculus course. Write mathematics in "
        "LaTeX. Reply with JSON only: an object with a list `exercises`, each with "
        "`question`, `answer` and `explanation`.",
    ),
    Message("user", f"Write {COUNT} different exercises on the chain rule."),
]


def _exercise(i: int, latex: str) -> dict[str, str]:
    return {
        "question": f"Differentiate f(x) = {latex}sin(x^{i + 2}) using the chain rule.",
        "answer": f"{latex}cos(x^{i + 2}) {latex}cdot {i + 2}x^{i + 1}",
        "explanation": f"The outer derivative is {latex}cos, the inner one {latex}frac{{d}}"
        f"{{dx}} x^{i + 2} = {i + 2}x^{i + 1}; multiply them.",
    }


def _replies() -> dict[str, list[str]]:
    valid = json.dumps({"exercises": [_exercise(i, "\\") for i in range(COUNT)]})
    latex = valid.replace("\\\\", "\\")  # single backslashes, as small models write them
    trailing = valid.replace("}", ",}").replace("]", ",]")
    one = json.dumps(_exercise(0, "\\"))
    short = json.dumps({"exercises": [_exercise(i, "\\") for i in range(COUNT - 1)]})
    return {
        "valid": [valid],
        "code fence": ["```json\n" + valid + "\n```"],
        "latex backslashes": [latex],
        "trailing commas": [trailing],
        "all three": ["```json\n" + latex.replace("}", ",}") + "\n```"],
        "one re-ask (count)": [short, valid],
        "lone object (1 item)": [one],
    }


async def overhead(calls: int) -> None:
    from support.fake_ollama import FakeOllama, running_fake_ollama

    print(f"structured layer overhead, fake Ollama, {calls} calls per reply kind")
    print(f"{'reply':<22} {'outcome':<9} {'model ms':>9} {'layer ms':>9} {'check ms':>9}")
    with running_fake_ollama(FakeOllama()) as fake:
        model = OllamaStructuredModel(
            host=fake.url, model="fake", timeout_s=10, context_window=8192
        )
        for name, script in _replies().items():
            count = COUNT if name != "lone object (1 item)" else 1
            validate = _count_validator(count)
            # warm up the client and the schema cache
            fake.chat_reply = _cycle(script)
            await generate(model, PROMPT, ExerciseSet, validate=validate, stats=GenerationStats())
            stats = GenerationStats()
            outcome = ""
            for _ in range(calls):
                result = await generate(model, PROMPT, ExerciseSet, validate=validate, stats=stats)
                outcome = result.outcome.value
            check_ms = _check_cost(script[-1], validate, max(calls, 1000))
            print(
                f"{name:<22} {outcome:<9} {1000 * stats.model_s / calls:>9.2f} "
                f"{stats.overhead_ms_per_request():>9.3f} {check_ms:>9.3f}"
            )
    print(
        "model ms: waiting for the model (here: HTTP to the fake and the client); layer ms: "
        "the rest of generate() per call; check ms: parse + repair + validate of one reply."
    )


def _count_validator(count: int) -> Callable[[ExerciseSet], list[str]]:
    def check(value: ExerciseSet) -> list[str]:
        if len(value.exercises) != count:
            return [f"exercises: expected {count} items, got {len(value.exercises)}"]
        return []

    return check


def _cycle(script: list[str]) -> Callable[[dict[str, Any]], str]:
    state = {"i": 0}

    def reply(_request: dict[str, Any]) -> str:
        text = script[state["i"] % len(script)]
        state["i"] += 1
        return text

    return reply


def _check_cost(raw: str, validate: Callable[[ExerciseSet], list[str]], rounds: int) -> float:
    schema = ExerciseSet.model_json_schema()
    started = time.perf_counter()
    for _ in range(rounds):
        check_reply(raw, ExerciseSet, validate=validate, json_schema=schema)
    return 1000 * (time.perf_counter() - started) / rounds


async def validity(
    url: str, model_name: str, calls: int, timeout_s: float, concurrency: int
) -> None:
    model = OllamaStructuredModel(
        host=url, model=model_name, timeout_s=timeout_s, context_window=8192, temperature=0.7
    )
    stats = GenerationStats()
    latencies: list[float] = []
    gate = asyncio.Semaphore(concurrency)
    done = 0

    async def one(index: int) -> None:
        nonlocal done
        prompt = [*PROMPT[:-1], Message("user", f"{PROMPT[-1].content} (set {index + 1})")]
        async with gate:
            started = time.perf_counter()
            try:
                await generate(model, prompt, ExerciseSet, validate=validate_set, stats=stats)
            except LlmUnavailableError as error:
                if stats.count(Outcome.UNAVAILABLE) == 1:
                    print(f"model unavailable: {error}", file=sys.stderr)
            except GenerationError:
                pass
            latencies.append(time.perf_counter() - started)
            done += 1
            print(f"\r{done}/{calls}", end="", file=sys.stderr, flush=True)

    await asyncio.gather(*(one(i) for i in range(calls)))
    print(file=sys.stderr)
    print(f"{model_name} at {url}: {stats.requests} requests for {COUNT} exercises each")
    for outcome, rate in stats.per_100().items():
        print(f"  {outcome:<12} {rate:6.1f} per 100")
    print(f"  replies per request: {stats.replies / max(stats.requests, 1):.2f}")
    print(f"  repairs: {dict(stats.repairs) or 'none'}")
    if latencies:
        ordered = sorted(latencies)
        p95 = ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]
        print(f"  latency: median {statistics.median(ordered):.1f} s, p95 {p95:.1f} s")
    print(f"  layer overhead: {stats.overhead_ms_per_request():.2f} ms per request")


def main() -> None:
    # The layer logs every outcome; what is timed here should not include printing them.
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING))
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=None, help="200 (fake) or 100 (Ollama)")
    parser.add_argument("--ollama", metavar="URL", help="measure validity against this Ollama")
    parser.add_argument("--model", help="the Ollama model (with --ollama)")
    parser.add_argument("--timeout", type=float, default=120, help="seconds per request")
    parser.add_argument("--concurrency", type=int, default=1)
    args = parser.parse_args()
    if args.ollama:
        if not args.model:
            parser.error("--ollama needs --model")
        calls = args.calls or 100
        asyncio.run(validity(args.ollama, args.model, calls, args.timeout, args.concurrency))
    else:
        asyncio.run(overhead(args.calls or 200))


if __name__ == "__main__":
    main()
