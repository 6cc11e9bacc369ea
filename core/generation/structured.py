"""Structured output from small models: one layer every generator (exercises, flashcards,
quizzes, lessons) goes through.

The pydantic model's JSON schema goes to the model as Ollama's `format`, and the reply is
checked in code anyway: parsed, repaired where only its syntax is broken (fixed order, see
`core.generation.repair`), validated against the model, then by the caller's `validate`
(counts, lengths, uniqueness: a schema's `minItems` is not trusted). What still fails is sent
back to the model with the errors, a bounded number of times. Every outcome is logged and
counted in a `GenerationStats` the caller can read."""

from __future__ import annotations

import asyncio
import functools
import json
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Generic, Literal, Protocol, TypeVar

import structlog
from pydantic import BaseModel, ValidationError

from core.generation.repair import LONE_OBJECT, repair_text, wrap_lone_objects
from core.llm import LlmTimeoutError, LlmUnavailableError

log = structlog.get_logger(__name__)

M = TypeVar("M", bound=BaseModel)

Validator = Callable[[M], list[str]]

MAX_ERRORS_SHOWN = 12
MAX_ECHOED_REPLY_CHARS = 6000


@dataclass(frozen=True, slots=True)
class Message:
    role: Literal["system", "user", "assistant"]
    content: str


class StructuredModel(Protocol):
    """A chat model that can be held to a JSON schema (Ollama's `format`)."""

    name: str

    async def chat_json(self, messages: Sequence[Message], schema: dict[str, Any]) -> str:
        """The model's raw reply to `messages`, asked to follow `schema`. Raises
        `GenerationTimeoutError` when it does not answer in time, `LlmUnavailableError`
        when it cannot be reached."""


class Outcome(StrEnum):
    VALID = "valid"  # valid as the model first wrote it
    REPAIRED = "repaired"  # valid on the first reply after a syntax repair
    REASKED = "reasked"  # valid after the model was sent its errors
    FAILED = "failed"  # still invalid after every re-ask
    TIMED_OUT = "timed_out"
    UNAVAILABLE = "unavailable"  # the model could not be reached


class GenerationError(RuntimeError):
    """Structured generation did not produce a usable result."""


class GenerationTimeoutError(GenerationError, LlmTimeoutError):
    """The model did not answer in time (a request, or the whole generation's deadline)."""


class GenerationFailedError(GenerationError):
    """Every reply, re-asks included, failed validation; `errors` are the last reply's."""

    def __init__(self, schema: str, errors: Sequence[str], attempts: int, raw: str) -> None:
        self.errors = list(errors)
        self.attempts = attempts
        self.raw = raw
        shown = "; ".join(self.errors[:3]) + (" ..." if len(self.errors) > 3 else "")
        super().__init__(f"no valid {schema} after {attempts} replies: {shown}")


@dataclass(frozen=True, slots=True)
class StructuredResult(Generic[M]):
    value: M
    outcome: Outcome
    attempts: int  # replies asked for, re-asks included
    repairs: tuple[str, ...]  # syntax repairs the accepted reply needed
    raw: str  # the accepted reply as the model wrote it
    model_s: float  # time spent waiting for the model
    total_s: float

    @property
    def overhead_s(self) -> float:
        """Time spent in this layer beyond the model: parsing, repair, validation, re-asks."""
        return max(self.total_s - self.model_s, 0.0)


@dataclass
class GenerationStats:
    """Counts of outcomes, repairs and replies; one per generator or one shared."""

    outcomes: Counter[str] = field(default_factory=Counter)
    repairs: Counter[str] = field(default_factory=Counter)
    replies: int = 0
    model_s: float = 0.0
    total_s: float = 0.0

    def record(
        self, outcome: Outcome, *, replies: int, repairs: Sequence[str], model_s: float,
        total_s: float,
    ) -> None:  # fmt: skip
        self.outcomes[outcome.value] += 1
        self.repairs.update(repairs)
        self.replies += replies
        self.model_s += model_s
        self.total_s += total_s

    def count(self, outcome: Outcome) -> int:
        return self.outcomes[outcome.value]

    @property
    def requests(self) -> int:
        return sum(self.outcomes.values())

    def per_100(self) -> dict[str, float]:
        """Every outcome per 100 requests."""
        total = self.requests
        return {o.value: (100 * self.count(o) / total if total else 0.0) for o in Outcome}

    def overhead_ms_per_request(self) -> float:
        total = self.requests
        return 1000 * max(self.total_s - self.model_s, 0.0) / total if total else 0.0


@functools.cache
def json_schema_of(schema: type[BaseModel]) -> dict[str, Any]:
    """The JSON schema sent as `format` (built once per model class: it is not cheap).
    Treat it as read-only."""
    return schema.model_json_schema()


@dataclass(frozen=True, slots=True)
class Checked(Generic[M]):
    """One reply, checked: the value when it is usable, otherwise the errors."""

    value: M | None
    errors: list[str]
    repairs: list[str]


def check_reply(
    raw: str,
    schema: type[M],
    *,
    validate: Validator[M] | None = None,
    json_schema: dict[str, Any] | None = None,
) -> Checked[M]:
    """Parse, repair (syntax only), validate against `schema`, then by `validate`."""
    json_schema = json_schema if json_schema is not None else json_schema_of(schema)
    text, repairs = repair_text(raw.strip())
    try:
        data = json.loads(text, strict=False)  # raw line breaks inside strings are tolerated
    except json.JSONDecodeError as error:
        problem = f"not valid JSON: {error.msg} (line {error.lineno}, column {error.colno})"
        return Checked(None, [problem], repairs)
    try:
        value = schema.model_validate(data)
    except ValidationError as error:
        wrapped, changed = wrap_lone_objects(data, json_schema)
        if not changed:
            return Checked(None, _describe(error), repairs)
        try:
            value = schema.model_validate(wrapped)
        except ValidationError:
            return Checked(None, _describe(error), repairs)
        repairs.append(LONE_OBJECT)
    problems = list(validate(value)) if validate is not None else []
    return Checked(None if problems else value, problems, repairs)


def reask_message(errors: Sequence[str]) -> Message:
    listed = "\n".join(f"- {e}" for e in errors[:MAX_ERRORS_SHOWN])
    hidden = len(errors) - MAX_ERRORS_SHOWN
    more = f"\n- ... and {hidden} more" if hidden > 0 else ""
    return Message(
        "user",
        "Your reply could not be used:\n"
        f"{listed}{more}\n"
        "Reply again with the complete corrected JSON only, following the same schema.",
    )


async def generate(
    model: StructuredModel,
    prompt_messages: Sequence[Message],
    schema: type[M],
    *,
    max_reasks: int = 2,
    validate: Validator[M] | None = None,
    timeout_s: float | None = None,
    stats: GenerationStats | None = None,
    purpose: str = "",
) -> StructuredResult[M]:
    """A `schema` instance from `model`, checked as the module doc says.

    `timeout_s` bounds the whole generation, re-asks included (each request is also bounded
    by the model's own timeout). Raises `GenerationTimeoutError`, `GenerationFailedError`
    (with the last reply's errors), or `LlmUnavailableError` when the model is unreachable."""
    # Counted for the caller when it keeps the counts (each generator owns one).
    stats = stats if stats is not None else GenerationStats()
    started = time.perf_counter()
    run = _Run(model, list(prompt_messages), schema, validate, max_reasks)
    context = {"model": model.name, "schema": schema.__name__, "purpose": purpose}
    try:
        async with asyncio.timeout(timeout_s):
            result = await run.attempts(started)
    except (TimeoutError, LlmTimeoutError) as error:
        _record(stats, Outcome.TIMED_OUT, run, started)
        log.warning("structured output timed out", replies=run.replies, **context)
        if isinstance(error, GenerationTimeoutError):
            raise
        raise GenerationTimeoutError(f"{model.name} did not answer in time") from error
    except GenerationFailedError as error:
        _record(stats, Outcome.FAILED, run, started)
        log.warning(
            "structured output failed", replies=run.replies, errors=error.errors[:5], **context
        )
        raise
    except LlmUnavailableError:
        _record(stats, Outcome.UNAVAILABLE, run, started)
        log.warning("structured output: model unavailable", replies=run.replies, **context)
        raise
    stats.record(
        result.outcome,
        replies=result.attempts,
        repairs=result.repairs,
        model_s=result.model_s,
        total_s=result.total_s,
    )
    log.info(
        "structured output",
        outcome=result.outcome.value,
        replies=result.attempts,
        repairs=list(result.repairs),
        model_ms=round(result.model_s * 1000),
        overhead_ms=round(result.overhead_s * 1000, 2),
        **context,
    )
    return result


def _record(stats: GenerationStats, outcome: Outcome, run: _Run[Any], started: float) -> None:
    stats.record(
        outcome,
        replies=run.replies,
        repairs=(),
        model_s=run.model_s,
        total_s=time.perf_counter() - started,
    )


class _Run(Generic[M]):
    """One generation's conversation and bookkeeping."""

    def __init__(
        self,
        model: StructuredModel,
        messages: list[Message],
        schema: type[M],
        validate: Validator[M] | None,
        max_reasks: int,
    ) -> None:
        self.model = model
        self.messages = messages
        self.schema = schema
        self.json_schema = json_schema_of(schema)
        self.validate = validate
        self.max_reasks = max(max_reasks, 0)
        self.replies = 0
        self.model_s = 0.0

    async def attempts(self, started: float) -> StructuredResult[M]:
        while True:
            asked = time.perf_counter()
            try:
                raw = await self.model.chat_json(self.messages, self.json_schema)
            finally:
                self.model_s += time.perf_counter() - asked
                self.replies += 1
            checked = check_reply(
                raw, self.schema, validate=self.validate, json_schema=self.json_schema
            )
            if checked.value is not None:
                if self.replies > 1:
                    outcome = Outcome.REASKED
                elif checked.repairs:
                    outcome = Outcome.REPAIRED
                else:
                    outcome = Outcome.VALID
                return StructuredResult(
                    value=checked.value,
                    outcome=outcome,
                    attempts=self.replies,
                    repairs=tuple(checked.repairs),
                    raw=raw,
                    model_s=self.model_s,
                    total_s=time.perf_counter() - started,
                )
            if self.replies > self.max_reasks:
                raise GenerationFailedError(self.schema.__name__, checked.errors, self.replies, raw)
            log.info(
                "structured output re-asked",
                model=self.model.name,
                schema=self.schema.__name__,
                reply=self.replies,
                errors=checked.errors[:5],
            )
            self.messages = [
                *self.messages,
                Message("assistant", raw[:MAX_ECHOED_REPLY_CHARS]),
                reask_message(checked.errors),
            ]


def _describe(error: ValidationError) -> list[str]:
    described = []
    for detail in error.errors(include_url=False):
        where = ".".join(str(part) for part in detail["loc"]) or "(the whole reply)"
        described.append(f"{where}: {detail['msg']}")
    return described
