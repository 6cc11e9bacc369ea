"""The structured-output layer's cost and, against a real Ollama, how often small models
get the schema right.

Without arguments, against the fake Ollama (tests/support/fake_ollama.py, real client over
HTTP): for each kind of reply (valid, fenced, LaTeX backslashes, trailing commas, a lone
object, one re-ask) N generations are timed, and what the layer adds beyond the model's
time (parsing, repair, validation, re-ask bookkeeping) is printed in ms per call, next to the
cost of checking one reply with no HTTP at all.

Then the cost of verifying one model-written exercise (`verify_draft`: every answer
recomputed by sympy from the exercise's data), in process and through the killable pool.

With `--ollama URL --model M`, N requests for a new exercise (the real schema, prompts and
verification of `/exercise`, on passages of the sample course's worked exercises, topics and
difficulties in turn) go to that model; printed per 100 requests: the structured outcomes of
each draft (first time / repaired / re-asked / failed / timed out), how many exercises were
verified (and after how many drafts), with the repairs needed and the latency.

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
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import structlog
from pydantic import BaseModel

from core.generation import (
    GenerationError,
    GenerationStats,
    Message,
    Writing,
    check_reply,
    generate,
)
from core.generation.ollama_model import OllamaStructuredModel
from core.llm import LlmUnavailableError

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))


class Exercise(BaseModel):
    question: str
    answer: str
    explanation: str


class ExerciseSet(BaseModel):
    exercises: list[Exercise]


COUNT = 5


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


ROOT = Path(__file__).resolve().parents[1]
TOPICS = (
    "the power rule",
    "the product rule",
    "the chain rule",
    "limits of the form 0/0",
    "limits at infinity",
)
DIFFICULTIES = ("easy", "medium", "hard")


def sample_passages(limit: int = 6) -> tuple[str, int]:
    """The sample course's worked exercises as the numbered passages `/exercise` sends."""
    text = (ROOT / "examples" / "sample-course" / "worked-exercises.md").read_text()
    sections = ["## " + part for part in text.split("\n## ")[1:]][:limit]
    numbered = "\n\n".join(
        f"[{n}] (worked-exercises.md)\n{section[:1500]}" for n, section in enumerate(sections, 1)
    )
    return numbered, len(sections)


VALID_DRAFT: dict[str, Any] = {
    "title": "The power rule with a coefficient",
    "statement": "Let f(x) = a x^n with a = 3 and n = 4. Find f'(x), then f'(2).",
    "given": [{"name": "a", "value": "3"}, {"name": "n", "value": "4"}],
    "steps": [
        {"prompt": "f'(x)?", "kind": "symbolic", "answer": "12*x^3", "check": "diff(a*x^n, x)",
         "variables": ["x"], "hints": ["Bring the exponent down."], "skill": "power rule"},
        {"prompt": "f'(2)?", "kind": "numeric", "answer": "96", "check": "a*n*2^(n-1)",
         "hints": ["Substitute x = 2."], "skill": "power rule"},
    ],
    "solution": "f'(x) = 12x^3, so f'(2) = 96.",
    "final_answer": "96",
    "skills": ["power rule"],
    "sources": [1],
}  # fmt: skip


async def verification_cost(rounds: int = 50) -> None:
    from core.exercises.process_pool import KillableProcessPool
    from core.generation.exercise_draft import ExerciseDraft, verify_draft

    draft = ExerciseDraft.model_validate(VALID_DRAFT)
    assert verify_draft(draft, 1).passed
    started = time.perf_counter()
    for _ in range(rounds):
        verify_draft(draft, 1)
    local_ms = 1000 * (time.perf_counter() - started) / rounds
    async with KillableProcessPool(1, preload=("core.generation.exercise_draft",)) as pool:
        await pool.run(30, verify_draft, draft, 1)  # the worker's start is not counted
        started = time.perf_counter()
        for _ in range(rounds):
            await pool.run(30, verify_draft, draft, 1)
        pool_ms = 1000 * (time.perf_counter() - started) / rounds
    print(
        f"exercise verification (2 steps, a diff and a product): {local_ms:.1f} ms in process, "
        f"{pool_ms:.1f} ms through the killable pool ({rounds} rounds)"
    )


async def exercises(
    url: str, model_name: str, calls: int, timeout_s: float, concurrency: int
) -> None:
    from core.exercises.fair_pool import FairPool
    from core.exercises.process_pool import KillableProcessPool
    from core.practice.exercise_writer import ExerciseDrafter

    model = OllamaStructuredModel(
        host=url, model=model_name, timeout_s=timeout_s, context_window=8192, temperature=0.7
    )
    stats = GenerationStats()
    passages, count = sample_passages()
    rounds: Counter[int] = Counter()
    failures: Counter[str] = Counter()
    latencies: list[float] = []
    gate = asyncio.Semaphore(concurrency)
    async with KillableProcessPool(2, preload=("core.generation.exercise_draft",)) as pool:
        drafter = ExerciseDrafter(Writing(model, timeout_s=timeout_s, stats=stats), FairPool(pool))

        async def one(index: int) -> None:
            topic, level = TOPICS[index % len(TOPICS)], DIFFICULTIES[index % len(DIFFICULTIES)]
            async with gate:
                started = time.perf_counter()
                try:
                    drafted = await drafter.draft(passages, count, topic, level)
                except LlmUnavailableError as error:
                    failures["unavailable" if failures else f"unavailable ({error})"] += 1
                except GenerationError:
                    failures["no well-formed draft"] += 1
                else:
                    if drafted is None:
                        failures["never verified"] += 1
                    else:
                        rounds[drafted.rounds] += 1
                latencies.append(time.perf_counter() - started)
                print(f"\r{len(latencies)}/{calls}", end="", file=sys.stderr, flush=True)

        await asyncio.gather(*(one(i) for i in range(calls)))
    print(file=sys.stderr)
    print(f"{model_name} at {url}: {calls} exercise requests ({stats.requests} drafts)")
    print("  drafts, per 100:")
    for outcome, rate in stats.per_100().items():
        print(f"    {outcome:<12} {rate:6.1f}")
    verified = sum(rounds.values())
    print(f"  exercises verified per 100 requests: {100 * verified / calls:.1f}")
    print(f"  drafts needed when verified: {dict(sorted(rounds.items())) or 'none'}")
    print(f"  not verified: {dict(failures) or 'none'}")
    print(f"  repairs: {dict(stats.repairs) or 'none'}")
    if latencies:
        ordered = sorted(latencies)
        p95 = ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]
        print(f"  latency: median {statistics.median(ordered):.1f} s, p95 {p95:.1f} s")


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
        asyncio.run(exercises(args.ollama, args.model, calls, args.timeout, args.concurrency))
    else:
        asyncio.run(overhead(args.calls or 200))
        asyncio.run(verification_cost())


if __name__ == "__main__":
    main()
