"""The composition root: builds the core from settings, the only place that knows which
engines are configured (and the one that wires the ingestion pipeline into the core)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence
from contextlib import AsyncExitStack, asynccontextmanager, suppress
from dataclasses import dataclass
from datetime import timedelta
from typing import TYPE_CHECKING, Any

import ollama
import structlog
from qdrant_client import AsyncQdrantClient
from sqlalchemy.ext.asyncio import AsyncEngine

from config import ModelRole, Settings
from core.answering import ExtractiveAnswerer, FactAnswerer, LlmAnswerer, QuestionAnswering
from core.bindings import CourseBindings
from core.catalog import CatalogDesk, CatalogStore
from core.conversation import ConversationMemory, QuestionRewriter
from core.course_bot import CourseBot
from core.courses import CourseRegistry
from core.courses.access import CourseAccess
from core.database import open_database
from core.embedding.embedder import Embedder, writes_units
from core.embedding.minilm_onnx import bundled_embedder
from core.embedding.ollama_embedder import OllamaEmbedder
from core.exercises import Fairness, Grader, SymbolicChecker
from core.feedback import Digest, FeedbackStore, InstructorLoop
from core.feedback.listings import ListingMessages
from core.feedback.quiz_answers import QuizAnswerLog, QuizAnswerOutbox
from core.generation import MaterialStore, StructuredModel, Writing
from core.generation.materials import MaterialsDesk
from core.generation.structured import Message
from core.index import ChunkIndex, EdgeQdrantClient, SparseEncoder
from core.jobs import InProcessJobs, JobQueue
from core.ledger import ReplyLedger
from core.lessons import Engine, LessonService, pdflatex_available
from core.llm import ChatModel
from core.metrics import Metrics
from core.mistakes import MistakeLog
from core.mistakes.outbox import MistakeOutbox
from core.notes_quota import NotesQuota
from core.outages import Outages
from core.outbox import Outbox
from core.page_pictures import PagePictures
from core.permissions import Authority, CourseCreation, RoleGrants
from core.practice import ExerciseCatalog, PracticeService
from core.practice.exercise_writer import ExerciseDrafter, ExerciseWriter
from core.practice.fit import FamilyFit
from core.practice.review import MistakeReview
from core.reranking import CrossEncoderReranker, EmbeddingReranker, Reranker
from core.retrieval import RetrievalConfig, Retriever
from core.schedules import ScheduleDesk, ScheduleRules, ScheduleStore
from core.sessions import MemorySessionStore, RedisSessionStore, SessionStore
from core.study import StudySets
from core.study.desk import StudyDesk
from core.study.polls import PollRegistry
from core.throttle import RequestThrottle
from core.uploads import ExpectedUploads, UploadDesk
from ingestion.captioning import OllamaCaptioner
from ingestion.file_limits import FileLimits
from ingestion.loaders.ocr import TesseractOcr
from ingestion.pipeline import Ingestor
from ingestion.slide_pictures import SlideConverter

if TYPE_CHECKING:  # llama-index loads only where a model is configured
    from core.llm.ollama_chat import OllamaOptions

log = structlog.get_logger(__name__)


def qdrant_client(settings: Settings) -> AsyncQdrantClient | EdgeQdrantClient:
    if settings.qdrant_url is not None:
        api_key = settings.qdrant_api_key.get_secret_value() if settings.qdrant_api_key else None
        return AsyncQdrantClient(url=str(settings.qdrant_url), api_key=api_key)
    if settings.qdrant_embedded == "edge":
        return EdgeQdrantClient(settings.data_dir / "qdrant-edge")
    path = settings.data_dir / "qdrant"
    path.mkdir(parents=True, exist_ok=True)
    return AsyncQdrantClient(path=str(path))


def session_store(settings: Settings) -> SessionStore:
    if settings.redis_url is not None:
        return RedisSessionStore.from_url(str(settings.redis_url), settings.service_timeout_s)
    return MemorySessionStore()


def ollama_client(settings: Settings) -> ollama.AsyncClient | None:
    if settings.ollama_host is None:
        return None
    return ollama.AsyncClient(host=str(settings.ollama_host), timeout=settings.ollama_timeout_s)


async def embedder(settings: Settings, client: ollama.AsyncClient | None) -> Embedder:
    if client is not None and settings.ollama_embed_model:
        return await OllamaEmbedder.connect(client, settings.ollama_embed_model)
    return bundled_embedder(settings.embedder)


def reranker(settings: Settings, dense: Embedder) -> Reranker:
    if settings.reranker_model_path is not None:
        return CrossEncoderReranker(settings.reranker_model_path)
    return EmbeddingReranker(dense)


async def open_index(
    settings: Settings,
    dimensions: int,
    embedder_id: str | None = None,
    unit_vectors: bool = False,
) -> ChunkIndex:
    """The configured index; with `embedder_id`, refused when another embedder wrote it;
    `unit_vectors` when the embedder makes them (a new collection is created to hold them)."""
    index = ChunkIndex(
        qdrant_client(settings),
        settings.qdrant_collection,
        dimensions,
        embedder_id=embedder_id,
        # Edge filters through them like a server: ~3 ms instead of ~60-150 ms per filtered
        # query on 10,000 chunks. Only local mode goes without (it scans, and warns).
        payload_indexes=settings.qdrant_url is not None or settings.qdrant_embedded == "edge",
        unit_vectors=unit_vectors,
    )
    try:
        await index.ensure()
    except BaseException:
        await index.close()
        raise
    return index


def _ollama_options(settings: Settings, role: ModelRole) -> OllamaOptions | None:
    """How to reach the Ollama model configured for `role`, or None when there is none."""
    model = settings.ollama_models.get(role)
    if settings.ollama_host is None or model is None:
        return None
    return {
        "host": str(settings.ollama_host),
        "model": model,
        "timeout_s": settings.ollama_timeout_s,
        "context_window": settings.ollama_context_window,
    }


def chat_model(
    settings: Settings, role: ModelRole, metrics: Metrics | None = None
) -> ChatModel | None:
    options = _ollama_options(settings, role)
    if options is None:
        return None
    # Imported here: llama-index costs seconds at every start, and only a configured model
    # needs it (the embedded default runs without one).
    from core.llm.ollama_chat import OllamaChatModel

    model = OllamaChatModel(**options)
    return model if metrics is None else TimedChatModel(model, metrics, role)


def structured_model(
    settings: Settings, role: ModelRole, metrics: Metrics | None = None
) -> StructuredModel | None:
    """The model held to JSON schemas for `role` (generated exercises, study sets)."""
    options = _ollama_options(settings, role)
    if options is None:
        return None
    from core.generation.ollama_model import OllamaStructuredModel

    model = OllamaStructuredModel(**options)
    return model if metrics is None else TimedStructuredModel(model, metrics, role)


class TimedChatModel:
    """A chat model whose every call is timed into `coursebot_model_seconds`."""

    def __init__(self, model: ChatModel, metrics: Metrics, role: ModelRole) -> None:
        self.name = model.name
        self._model = model
        self._seconds = metrics.model_seconds.labels(role.value)

    async def complete(self, system: str, user: str) -> str:
        with self._seconds.time():
            return await self._model.complete(system, user)


class TimedStructuredModel:
    """A structured model whose every call is timed into `coursebot_model_seconds`."""

    def __init__(self, model: StructuredModel, metrics: Metrics, role: ModelRole) -> None:
        self.name = model.name
        self._model = model
        self._seconds = metrics.model_seconds.labels(role.value)

    async def chat_json(self, messages: Sequence[Message], schema: dict[str, Any]) -> str:
        with self._seconds.time():
            return await self._model.chat_json(messages, schema)


@dataclass(frozen=True, slots=True)
class Assembly:
    """The core, and what benchmarks, the evaluation and tests reach under it: the retriever
    its answer path uses and the index (the facade keeps its collaborators to itself)."""

    bot: CourseBot
    retriever: Retriever
    index: ChunkIndex
    outbox: MistakeOutbox
    metrics: Metrics
    sessions: SessionStore
    database: AsyncEngine
    quiz_answers: QuizAnswerOutbox


def question_answering(
    settings: Settings,
    retriever: Retriever,
    sessions: SessionStore,
    k: int = 5,
    facts: FactAnswerer | None = None,
    metrics: Metrics | None = None,
) -> QuestionAnswering:
    extractive = ExtractiveAnswerer()
    answer_model = chat_model(settings, ModelRole.ANSWER, metrics)
    return QuestionAnswering(
        retriever=retriever,
        answerer=LlmAnswerer(answer_model) if answer_model else extractive,
        extractive=extractive,
        memory=ConversationMemory(sessions, settings.redis_prefix),
        rewriter=QuestionRewriter(answer_model),
        k=k,
        context_chars=settings.answer_context_chars,
        facts=facts,
        metrics=metrics,
    )


@asynccontextmanager
async def open_core(settings: Settings) -> AsyncIterator[CourseBot]:
    """The core wired to the configured engines, closed on exit."""
    async with open_assembly(settings) as assembly:
        yield assembly.bot


@asynccontextmanager
async def open_assembly(
    settings: Settings,
    *,
    retrieval: RetrievalConfig | None = None,
    k: int = 5,
    metrics: Metrics | None = None,
) -> AsyncIterator[Assembly]:
    """`open_core` with the answer path's retrieval chosen (`coursebot eval --variant`; None
    is the default variant) at depth `k`, and that retriever handed out alongside the core.
    `metrics` records what the core does (a fresh set when None)."""
    metrics = metrics or Metrics()
    llm = ollama_client(settings)
    dense = await embedder(settings, llm)
    async with AsyncExitStack() as cleanup:
        # Whatever was opened is closed again if a later engine fails to start.
        index = await open_index(settings, dense.dimensions, dense.identity, writes_units(dense))
        cleanup.push_async_callback(index.close)
        sessions = session_store(settings)
        cleanup.push_async_callback(sessions.close)
        database = await open_database(settings)
        cleanup.push_async_callback(database.dispose)
        throttle = RequestThrottle.from_settings(settings)
        cleanup.push_async_callback(throttle.close)
        # Symbolic grading runs in worker processes it can kill, started at the first
        # symbolic answer (not here: most commands never grade one) and stopped on exit.
        symbolic = SymbolicChecker(
            timeout_s=settings.grading_timeout_s,
            workers=settings.grading_workers,
            fairness=Fairness(
                contended_timeout_s=settings.grading_contended_timeout_s,
                strike_window_s=settings.grading_strike_window_s,
            ),
        )
        cleanup.push_async_callback(symbolic.close)
        assembly = _assemble(
            settings, retrieval, k, llm, dense, index, sessions, database, throttle, symbolic,
            metrics,
        )  # fmt: skip
        jobs = await _jobs(settings, assembly.bot, metrics)
        cleanup.push_async_callback(jobs.close)
        assembly.bot.attach_jobs(jobs)
        metrics.watch_queue(jobs.depth)
        for outbox in (assembly.outbox, assembly.quiz_answers):
            # On the way out, after the flusher stops: what waits goes to the database now.
            cleanup.push_async_callback(_last_flush, outbox, settings.service_timeout_s)
            # Mistakes and quiz answers an outage left waiting go in once it is over.
            flusher = asyncio.create_task(outbox.keep_flushing())
            cleanup.push_async_callback(_stop, flusher)
        # So do quiz-poll votes: a vote is never delivered twice.
        counter = asyncio.create_task(assembly.bot.keep_counting_held_votes())
        cleanup.push_async_callback(_stop, counter)
        yield assembly


async def _jobs(settings: Settings, bot: CourseBot, metrics: Metrics) -> JobQueue:
    """Where heavy work runs: on Redis for the workers, or in this process."""
    if settings.jobs == "redis" and settings.redis_url is not None:
        from core.jobs.arq_queue import ArqJobs, open_pool

        pool = await open_pool(str(settings.redis_url), settings.redis_prefix)
        return ArqJobs(pool, settings.redis_prefix)
    return InProcessJobs(bot.job_handlers(), metrics)


async def _last_flush(outbox: Outbox[Any], timeout_s: float) -> None:
    """Flush the outbox once more before the process ends, bounded: a database that is down
    keeps the entries in Redis for the next process (in-process entries are then lost, and
    said so)."""
    try:
        async with asyncio.timeout(timeout_s):
            await outbox.settled()
            await outbox.flush()
    except TimeoutError:
        log.warning("outbox not flushed before exit")


async def _stop(task: asyncio.Task[None]) -> None:
    task.cancel()
    with suppress(asyncio.CancelledError):
        await task


def schedule_rules(settings: Settings) -> ScheduleRules:
    return ScheduleRules(
        min_interval=timedelta(seconds=settings.schedule_min_interval_s),
        folders=settings.schedule_folders,
        # The bots that run schedules and post in their chats (bot/*/cli.py).
        post_platforms=frozenset({"telegram", "discord"}),
    )


def page_pictures(settings: Settings) -> PagePictures | None:
    """Where pages' pictures are kept, or None when the settings keep none."""
    if settings.page_pictures_max_bytes <= 0:
        return None
    return PagePictures(settings.data_dir / "pages", settings.page_pictures_max_bytes)


def lesson_engine(settings: Settings) -> Engine:
    """The engine lessons render with. pdflatex asked for but not installed is said here,
    once at start-up, and Typst is passed on, so no render repeats the warning."""
    engine = Engine(settings.lesson_engine)
    if engine is Engine.PDFLATEX and not pdflatex_available():
        log.warning(
            "COURSEBOT_LESSON_ENGINE=pdflatex, but pdflatex is not installed: "
            "lessons are rendered with Typst"
        )
        return Engine.TYPST
    return engine


def _assemble(
    settings: Settings,
    retrieval: RetrievalConfig | None,
    k: int,
    llm: ollama.AsyncClient | None,
    dense: Embedder,
    index: ChunkIndex,
    sessions: SessionStore,
    database: AsyncEngine,
    throttle: RequestThrottle,
    symbolic: SymbolicChecker,
    metrics: Metrics,
) -> Assembly:
    mistakes = MistakeLog(database)
    outages = Outages(began=lambda service: metrics.outages.labels(service).inc())
    outbox = MistakeOutbox(sessions, settings.redis_prefix, mistakes, outages)
    quiz_log = QuizAnswerLog(database)
    quiz_answers = QuizAnswerOutbox(sessions, settings.redis_prefix, quiz_log, outages)
    sparse = SparseEncoder()
    course_catalog = CatalogStore(database)
    retriever = Retriever(index, dense, sparse, retrieval, reranker=reranker(settings, dense))
    vision = settings.ollama_models.get(ModelRole.VISION)
    pictures = page_pictures(settings)
    ingestor = Ingestor(
        index=index,
        embedder=dense,
        sparse=sparse,
        max_bytes=settings.max_upload_bytes,
        captioner=OllamaCaptioner(llm, vision) if llm is not None and vision else None,
        catalog=course_catalog,
        limits=FileLimits(
            max_pdf_pages=settings.max_pdf_pages,
            max_deck_slides=settings.max_deck_slides,
            max_chunks=settings.max_file_chunks,
        ),
        notes_quota=NotesQuota(
            max_files=settings.notes_max_files,
            max_pages=settings.notes_max_pages,
            max_bytes=settings.notes_max_bytes,
        ),
        ocr=TesseractOcr.find(
            settings.ocr_binary,
            settings.ocr_languages,
            settings.ocr_page_timeout_s,
            settings.max_ocr_pages,
        ),
        pictures=pictures,
        slides=SlideConverter.find(settings.slides_binary, settings.slides_timeout_s)
        if pictures is not None
        else None,
    )
    generator = structured_model(settings, ModelRole.GENERATE, metrics)
    # The lesson, study and exercise writers ask the one model the same way.
    writing = Writing.per_request(generator, settings.ollama_timeout_s) if generator else None
    materials = MaterialStore(database)
    writer = ExerciseWriter(
        retriever=retriever,
        embedder=dense,
        store=materials,
        # Verification shares the grader's killable workers: both are short sympy jobs.
        drafter=ExerciseDrafter(writing, symbolic.queue) if writing is not None else None,
    )
    # Study sets and drawn exercises find a subject taught or not by the same rule.
    study_sets = StudySets(retriever, materials, embedder=dense, writing=writing)
    practice = PracticeService(
        store=sessions,
        catalog=ExerciseCatalog(index, dense, generated=writer),
        writer=writer,
        grader=Grader(chat_model(settings, ModelRole.GRADE, metrics), symbolic=symbolic),
        outbox=outbox,
        prefix=settings.redis_prefix,
        ttl=timedelta(seconds=settings.session_ttl_seconds),
        fit=FamilyFit(study_sets, retriever),
    )
    courses = CourseRegistry(database)
    grants = {
        course: {str(role): names for role, names in roles.items()}
        for course, roles in settings.course_roles.items()
    }
    authority = Authority(RoleGrants(grants), courses, CourseCreation(settings.course_creation))
    # The visual profile's figures are the cited pages' pictures, kept at ingestion.
    lessons = LessonService(
        retriever=retriever,
        embedder=dense,
        store=materials,
        writing=writing,
        pages=pictures,
        engine=lesson_engine(settings),
    )
    study = StudyDesk(
        study_sets,
        store=sessions,
        outbox=outbox,
        quiz_answers=quiz_answers,
        prefix=settings.redis_prefix,
    )
    # Commands (/prereq, /cantake, ...) and plain questions read the same catalog.
    catalog_desk = CatalogDesk(course_catalog)
    feedback = FeedbackStore(database)
    bot = CourseBot(
        index=index,
        answers=question_answering(
            settings, retriever, sessions, k, facts=catalog_desk, metrics=metrics
        ),
        practice=practice,
        review=MistakeReview(mistakes, outbox),
        access=CourseAccess(CourseBindings(database), courses, authority),
        courses=courses,
        uploads=UploadDesk(
            ingestor,
            ExpectedUploads(sessions, settings.redis_prefix),
            settings.max_upload_bytes,
            # Downloads wait for their job here: workers share the data dir (page pictures).
            spool=settings.data_dir / "spool",
        ),
        ingestor=ingestor,
        ledger=ReplyLedger(sessions, settings.redis_prefix),
        throttle=throttle,
        outages=outages,
        max_text_chars=settings.max_question_chars,
        lessons=lessons,
        study=study,
        materials=MaterialsDesk(materials, lessons=lessons, study=study, exercises=writer),
        polls=PollRegistry(sessions, settings.redis_prefix),
        catalog=catalog_desk,
        service_timeout_s=settings.service_timeout_s,
        schedules=ScheduleDesk(ScheduleStore(database), schedule_rules(settings)),
        loop=InstructorLoop(
            feedback, dense, ingestor, ListingMessages(sessions, settings.redis_prefix)
        ),
        digest=Digest(feedback, mistakes, quiz_log),
        pictures=pictures,
        metrics=metrics,
    )
    return Assembly(bot, retriever, index, outbox, metrics, sessions, database, quiz_answers)
