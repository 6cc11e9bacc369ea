"""How far a job has come, in one of two shapes: an ingestion's files, pages and chunks
(`IngestProgress`) or the named steps of making one thing (`StepProgress`: a lesson, a study
set, a written exercise). Adapters show either the same way (`bot/common/progress.py`); on
its way from a worker it crosses the queue as a JSON mapping (`payload`, `from_payload`)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from core.material import IngestProgress


@dataclass(frozen=True, slots=True)
class StepProgress:
    """Step `step` of `steps` (`stage` says what it does) in making a `making` ("lesson")
    on `topic`; `finished` once it is made."""

    making: str
    topic: str
    stage: str
    step: int
    steps: int
    finished: bool = False


JobProgress = IngestProgress | StepProgress
ShowProgress = Callable[[JobProgress], Awaitable[None] | None]
StepReport = Callable[[StepProgress], Awaitable[None]]

_SHAPES: dict[str, type[IngestProgress] | type[StepProgress]] = {
    "ingest": IngestProgress,
    "steps": StepProgress,
}


def payload(progress: JobProgress) -> dict[str, Any]:
    shape = "steps" if isinstance(progress, StepProgress) else "ingest"
    return {"shape": shape, **asdict(progress)}


def from_payload(data: Mapping[str, Any]) -> JobProgress:
    fields = dict(data)
    shape = _SHAPES.get(str(fields.pop("shape", "ingest")))
    if shape is None:
        raise ValueError(f"unknown progress shape in {dict(data)!r}")
    return shape(**fields)


class Steps:
    """The named steps of making one thing, reported as each begins and once when it is
    made. With nobody listening (`report` None) nothing is reported."""

    def __init__(
        self, making: str, topic: str, stages: Sequence[str], report: StepReport | None
    ) -> None:
        self._making = making
        self._topic = topic
        self._stages = tuple(stages)
        self._report = report

    async def begin(self, stage: str) -> None:
        if self._report is None:
            return
        step = self._stages.index(stage) + 1  # a stage not declared is a bug: ValueError
        await self._report(StepProgress(self._making, self._topic, stage, step, len(self._stages)))

    async def finish(self) -> None:
        if self._report is None:
            return
        total = len(self._stages)
        await self._report(StepProgress(self._making, self._topic, "", total, total, True))


# Stages of the work that reports them, named once: the wording of every adapter reads them.
READING = "reading the course material"
WRITING_SLIDES = "writing the slides"
REVISING_SLIDE = "revising the slide"
TYPESETTING = "typesetting the PDF"
CHECKING_PDF = "checking the PDF"
WRITING_SET = "writing it from the material"
WRITING_EXERCISE = "writing and checking the exercise"
