"""The evaluation run: ingest every course of a dataset into an index of its own, ask every
question in its course, score what came back.

Dataset layout (see ../shared/datasets/README.md): `courses/<course_id>/<files>` and
`questions.jsonl`. The index lives in a throwaway data dir unless `index_dir` names one to
keep (ingestion is idempotent, so a second run skips the unchanged files)."""

from __future__ import annotations

import inspect
import json
import tempfile
import time
import uuid
from collections import Counter
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager, nullcontext
from dataclasses import dataclass, replace
from pathlib import Path

from bot.composition import Assembly, open_assembly
from bot.evaluation.run_config import RunConfig, run_config
from config import Settings
from core.answering import pack, passage_chars
from core.commands import ParsedCommand
from core.context import Audience, Context, Member
from core.course_bot import CourseBot
from core.evaluation.metrics import (
    RETRIEVE_DEPTH,
    SPAN_DEPTH,
    Metrics,
    QuestionResult,
    RetrievalScore,
    answer_holds_span,
    by_type,
    first_quote,
    key_facts_shown,
    quote_count,
    score_retrieval,
    summarise,
)
from core.material import IngestProgress, IngestReport, ProgressCallback
from core.replies import Answer, ErrorReply
from core.requests import Place, Request
from core.retrieval import DEFAULT_VARIANT, VARIANTS, Retriever
from ingestion.pipeline import discover

PLATFORM = "eval"
USER_ID = "eval"
COURSES = "courses"
QUESTIONS = "questions.jsonl"

QuestionProgress = Callable[[int, int], None]


class DatasetError(Exception):
    """The dataset folder is missing or malformed; the message is one line for the user."""


@dataclass(frozen=True, slots=True)
class EvalQuestion:
    id: str
    course: str
    question: str
    type: str
    answerable: bool
    gold_spans: tuple[str, ...] = ()
    gold_sources: tuple[str, ...] = ()
    # The reference answer a person wrote ("" where the dataset gives none).
    answer: str = ""


@dataclass(frozen=True, slots=True)
class EvalDataset:
    root: Path
    courses: dict[str, Path]
    questions: tuple[EvalQuestion, ...]


@dataclass(frozen=True, slots=True)
class EvalOptions:
    """`k` is the retrieval depth of the answer path (--answers); the retrieval metrics
    always look at the top 10. `budget` packs the passages the answerer reads (the top k)
    and those span_hit@5 judges (the top 5) into that many characters with the answer path's
    rule (`core.answering.budget.pack`); None reads them whole. `limit` is only recorded:
    the dataset was loaded with it."""

    k: int = 5
    answers: bool = False
    variant: str = DEFAULT_VARIANT
    index_dir: Path | None = None
    budget: int | None = None
    limit: int | None = None


@dataclass(frozen=True, slots=True)
class CourseIngest:
    course: str
    report: IngestReport


@dataclass(frozen=True, slots=True)
class EvalResult:
    dataset: Path
    options: EvalOptions
    config: RunConfig
    questions: tuple[QuestionResult, ...]
    overall: Metrics
    by_type: dict[str, Metrics]
    ingested: tuple[CourseIngest, ...] = ()
    warnings: tuple[str, ...] = ()
    ingest_s: float = 0.0
    ask_s: float = 0.0


def load_dataset(root: Path, limit: int | None = None) -> EvalDataset:
    """The dataset's course folders and its questions (the first `limit` in file order)."""
    if not root.is_dir():
        raise DatasetError(f"no dataset folder at {root}")
    courses_dir = root / COURSES
    if not courses_dir.is_dir():
        raise DatasetError(f"{root} has no {COURSES}/ folder (expected {COURSES}/<course_id>/)")
    questions_file = root / QUESTIONS
    if not questions_file.is_file():
        raise DatasetError(f"{root} has no {QUESTIONS}")
    courses = {
        p.name: p
        for p in sorted(courses_dir.iterdir())
        if p.is_dir() and not p.name.startswith(".")
    }
    questions: list[EvalQuestion] = []
    with questions_file.open(encoding="utf-8") as lines:
        for number, line in enumerate(lines, start=1):
            if limit is not None and len(questions) >= limit:
                break
            if line.strip():
                questions.append(_question(line, f"{questions_file}:{number}"))
    return EvalDataset(root=root, courses=courses, questions=tuple(questions))


def _question(line: str, where: str) -> EvalQuestion:
    try:
        raw = json.loads(line)
        return EvalQuestion(
            id=str(raw["id"]),
            course=str(raw["course"]),
            question=str(raw["question"]),
            type=str(raw.get("type") or "unknown"),
            answerable=bool(raw.get("answerable", True)),
            gold_spans=tuple(str(s) for s in raw.get("gold_spans") or ()),
            gold_sources=tuple(str(s) for s in raw.get("gold_sources") or ()),
            answer=str(raw.get("answer") or ""),
        )
    except json.JSONDecodeError as error:
        raise DatasetError(f"{where}: not JSON ({error.msg})") from None
    except (KeyError, TypeError, AttributeError) as error:
        raise DatasetError(f"{where}: a question needs id, course and question ({error})") from None


def eval_settings(settings: Settings, data_dir: Path, budget: int | None = None) -> Settings:
    """The settings with the index in `data_dir`, in embedded Qdrant, sessions in the process
    (the questions' conversations must not reach a shared Redis), the answer path's context
    budget the evaluated one, and no pictures of pages (answers are scored as text)."""
    update = {
        "data_dir": data_dir,
        "qdrant_url": None,
        "qdrant_api_key": None,
        "redis_url": None,
        "answer_context_chars": budget,
        "page_pictures_max_mb": 0,
    }
    return settings.model_copy(update=update)


class Evaluation:
    """One run over a dataset with the core open: `ingest()`, then `ask()`, then `result()`.
    Open it with `open_evaluation`; `run_eval` does all three."""

    def __init__(
        self, assembly: Assembly, dataset: EvalDataset, options: EvalOptions, config: RunConfig
    ) -> None:
        # The core's answer path retrieves with the evaluated variant at depth --k, and
        # `retriever` is that same retriever, scored directly.
        self.core = assembly.bot
        self.retriever = assembly.retriever
        self.dataset = dataset
        self.options = options
        self.config = config
        self._ingested: list[CourseIngest] = []
        self._warnings: list[str] = []
        self._results: list[QuestionResult] = []
        self._ingest_s = 0.0
        self._ask_s = 0.0

    async def ingest(self, on_progress: ProgressCallback | None = None) -> None:
        """Ingest every course folder as its own course; `on_progress` sees one run over all
        the dataset's files."""
        started = time.perf_counter()
        ingested, warnings = await _ingest(self.core, self.dataset, on_progress)
        self._ingested.extend(ingested)
        self._warnings.extend(warnings)
        self._ingest_s += time.perf_counter() - started

    async def ask(self, on_question: QuestionProgress | None = None) -> None:
        """Ask every question in its course; `on_question` is told (done, total) after each."""
        started = time.perf_counter()
        self._results = await _ask(
            self.core, self.retriever, self.dataset, self.options, on_question
        )
        self._ask_s += time.perf_counter() - started

    def result(self) -> EvalResult:
        return EvalResult(
            dataset=self.dataset.root,
            options=self.options,
            config=self.config,
            questions=tuple(self._results),
            overall=summarise(self._results),
            by_type=by_type(self._results),
            ingested=tuple(self._ingested),
            warnings=(*self._warnings, *_missing_courses(self.dataset)),
            ingest_s=self._ingest_s,
            ask_s=self._ask_s,
        )


@asynccontextmanager
async def open_evaluation(
    dataset: EvalDataset, settings: Settings, options: EvalOptions
) -> AsyncIterator[Evaluation]:
    """The core on the evaluation's own index: in `options.index_dir`, or a temporary data dir
    removed on exit. Qdrant runs embedded either way; the answer path packs its passages
    into `options.budget`."""
    if options.variant not in VARIANTS:
        raise ValueError(f"unknown retrieval variant {options.variant!r}")
    keep = options.index_dir
    folder = nullcontext(str(keep)) if keep else tempfile.TemporaryDirectory(prefix="coursebot-")
    with folder as data_dir:
        config = VARIANTS[options.variant]
        run_settings = eval_settings(settings, Path(data_dir), options.budget)
        async with open_assembly(run_settings, retrieval=config, k=options.k) as assembly:
            recorded = run_config(
                run_settings,
                assembly.retriever,
                variant=options.variant,
                k=options.k,
                budget=options.budget,
                answers=options.answers,
                limit=options.limit,
                questions=len(dataset.questions),
            )
            yield Evaluation(assembly, dataset, options, recorded)


async def run_eval(
    dataset: EvalDataset,
    settings: Settings,
    options: EvalOptions,
    *,
    on_ingest: ProgressCallback | None = None,
    on_question: QuestionProgress | None = None,
) -> EvalResult:
    """Ingest, ask and score in one call."""
    async with open_evaluation(dataset, settings, options) as evaluation:
        await evaluation.ingest(on_ingest)
        await evaluation.ask(on_question)
    return evaluation.result()


async def _ingest(
    core: CourseBot, dataset: EvalDataset, on_progress: ProgressCallback | None
) -> tuple[list[CourseIngest], list[str]]:
    planned = {course: discover([folder])[0] for course, folder in dataset.courses.items()}
    total = sum(len(sources) for sources in planned.values())
    done = pages = chunks = 0
    ingested: list[CourseIngest] = []
    warnings: list[str] = []

    async def forward(progress: IngestProgress) -> None:
        if on_progress is None:
            return
        outcome = on_progress(
            replace(
                progress,
                files_done=done + progress.files_done,
                files_total=total,
                pages=pages + progress.pages,
                chunks=chunks + progress.chunks,
            )
        )
        if inspect.isawaitable(outcome):
            await outcome

    for course, sources in planned.items():
        if not sources:
            warnings.append(f"course '{course}' has no files")
            continue
        report = await core.ingest_files(course, sources, on_progress=forward, by=USER_ID)
        ingested.append(CourseIngest(course, report))
        warnings.extend(f"{course}/{r.file_name}: {r.error}" for r in report.failed)
        done += len(sources)
        pages += report.pages
        chunks += report.chunks
    return ingested, warnings


async def _ask(
    core: CourseBot,
    retriever: Retriever,
    dataset: EvalDataset,
    options: EvalOptions,
    on_question: QuestionProgress | None,
) -> list[QuestionResult]:
    results: list[QuestionResult] = []
    total = len(dataset.questions)
    for number, question in enumerate(dataset.questions, start=1):
        if question.course in dataset.courses:
            result = await _ask_one(core, retriever, question, options)
        else:
            result = _missed(question, options.answers)
        results.append(result)
        if on_question is not None:
            on_question(number, total)
    return results


async def _ask_one(
    core: CourseBot, retriever: Retriever, question: EvalQuestion, options: EvalOptions
) -> QuestionResult:
    ctx = Context(platform=PLATFORM, course_id=question.course, user_id=USER_ID)
    started = time.perf_counter()
    hits = await retriever.retrieve(ctx, question.question, k=RETRIEVE_DEPTH)
    latency_ms = (time.perf_counter() - started) * 1000
    files = tuple(hit.chunk.file_name for hit in hits)
    # Sources and ranks are judged on the whole ranking; spans on what a budget lets through.
    texts = [hit.chunk.text for hit in pack(hits[:SPAN_DEPTH], options.budget)]
    score = score_retrieval(
        files,
        texts,
        answerable=question.answerable,
        gold_sources=question.gold_sources,
        gold_spans=question.gold_spans,
    )
    context = pack(hits[: options.k], options.budget)
    result = replace(_result(question, files, score, latency_ms), ctx_chars=passage_chars(context))
    if not options.answers:
        return result
    # Each question is a conversation of its own, so none reads as a follow-up of another.
    asker = Member(platform=PLATFORM, user_id=f"{USER_ID}:{question.id}")
    request = Request(
        asker,
        Place(Audience.PRIVATE),
        message_id=f"eval:{uuid.uuid4()}",
        command=ParsedCommand("ask", question.question),
        course=question.course,
        operator=True,
    )
    [reply] = (await core.handle(request)).replies
    if not isinstance(reply, Answer):  # an empty course or question: the bot did not answer
        error = reply.text if isinstance(reply, ErrorReply) else type(reply).__name__
        return _unanswered(result, question, error)
    # A decline states nothing, whatever related passages it shows beside its one line.
    shown = reply.text if reply.grounded else ""
    return replace(
        result,
        grounded=reply.grounded,
        support=reply.support,
        evidence=dict(reply.evidence),
        answer=reply.text,
        answer_chars=len(reply.text),
        answer_span_hit=answer_holds_span(shown, question.gold_spans),
        first_quote_hit=answer_holds_span(first_quote(shown), question.gold_spans),
        answer_quotes=quote_count(reply.text),
        key_facts=_key_facts(question, shown),
    )


def _missed(question: EvalQuestion, answers: bool) -> QuestionResult:
    """A question whose course has no folder: nothing retrieved, nothing answered."""
    score = score_retrieval(
        (),
        (),
        answerable=question.answerable,
        gold_sources=question.gold_sources,
        gold_spans=question.gold_spans,
    )
    result = _result(question, (), score, None)
    return _unanswered(result, question, "the course has no folder") if answers else result


def _unanswered(result: QuestionResult, question: EvalQuestion, error: str) -> QuestionResult:
    """No answer was shown: a decline, and no gold span in it."""
    return replace(
        result,
        grounded=False,
        error=error,
        answer_span_hit=answer_holds_span("", question.gold_spans),
        first_quote_hit=answer_holds_span("", question.gold_spans),
        key_facts=_key_facts(question, ""),
    )


def _key_facts(question: EvalQuestion, shown: str) -> float | None:
    """The share of the reference's key facts shown; an unanswerable question's reference
    says what the material lacks, so it has none to show."""
    return key_facts_shown(question.answer, shown) if question.answerable else None


def _result(
    question: EvalQuestion, files: tuple[str, ...], score: RetrievalScore, latency: float | None
) -> QuestionResult:
    return QuestionResult(
        id=question.id,
        course=question.course,
        type=question.type,
        answerable=question.answerable,
        retrieved=files,
        score=score,
        latency_ms=latency,
    )


def _missing_courses(dataset: EvalDataset) -> list[str]:
    missing = Counter(q.course for q in dataset.questions if q.course not in dataset.courses)
    return [
        f"course '{course}' has no folder under {COURSES}/: its {count} question(s) count as "
        "retrieval misses"
        for course, count in sorted(missing.items())
    ]
