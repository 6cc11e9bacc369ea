"""The evaluation run (`coursebot eval`): ingest a dataset's courses into an index of their
own, ask every question, score what came back with the metrics in `core.evaluation`."""

from bot.evaluation.run_config import RunConfig
from bot.evaluation.runner import (
    CourseIngest,
    DatasetError,
    EvalDataset,
    EvalOptions,
    EvalQuestion,
    EvalResult,
    Evaluation,
    load_dataset,
    open_evaluation,
    run_eval,
)

__all__ = [
    "CourseIngest",
    "DatasetError",
    "EvalDataset",
    "EvalOptions",
    "EvalQuestion",
    "EvalResult",
    "Evaluation",
    "RunConfig",
    "load_dataset",
    "open_evaluation",
    "run_eval",
]
