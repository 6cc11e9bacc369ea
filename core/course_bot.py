"""The core facade: the one object every adapter talks to.

Adapters turn platform events into a `Context` plus text (or a typed call) and render the
typed replies that come back. No platform word, client or setting lives here: every
dependency is passed in."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING

import structlog

from core.answering import QuestionAnswering
from core.commands import help_text, parse_command
from core.context import Context
from core.errors import BadInputError, CourseEmptyError, UnknownCommandError, UserFacingError
from core.index import ChunkIndex
from core.permissions import Action, effective_roles, require
from core.practice import PracticeService
from core.practice.review import MistakeReview, parse_mistake_query
from core.replies import Answer, ErrorReply, Notice, Reply, SourceEntry, SourceList
from core.sessions import SessionStore

if TYPE_CHECKING:  # ingestion builds on core; the facade only passes its types along
    from ingestion.pipeline import Ingestor, IngestReport, ProgressCallback, SourceFile

log = structlog.get_logger(__name__)

INTERNAL_ERROR = "Something went wrong on my side. The error was logged; please try again later."

Handler = Callable[[Context, str], Awaitable[list[Reply]]]


class CourseBot:
    def __init__(
        self,
        *,
        index: ChunkIndex,
        answers: QuestionAnswering,
        sessions: SessionStore,
        ingestor: Ingestor,
        practice: PracticeService,
        review: MistakeReview,
    ) -> None:
        self.index = index
        self.answers = answers
        self.sessions = sessions
        self.ingestor = ingestor
        self.practice = practice
        self.review = review
        self._handlers: dict[str, Handler] = {
            "help": self._on_help,
            "ask": self._on_ask,
            "sources": self._on_sources,
            "practice": self.practice.start,
            "hint": lambda ctx, _arg: self.practice.hint(ctx),
            "skip": lambda ctx, _arg: self.practice.skip(ctx),
            "quit": lambda ctx, _arg: self.practice.quit(ctx),
            "status": lambda ctx, _arg: self.practice.status(ctx),
            "mistakes": self._on_mistakes,
        }

    async def handle(self, ctx: Context, text: str) -> list[Reply]:
        """One inbound chat line: a /command or a plain message. Never raises: errors the
        user caused become an ErrorReply, others are logged and reported politely."""
        return await self.handle_call(ctx, self._dispatch(ctx, text))

    async def handle_call(self, ctx: Context, call: Awaitable[Reply | list[Reply]]) -> list[Reply]:
        """Await a core call on behalf of an adapter, turning every failure into a reply."""
        try:
            result = await call
        except UserFacingError as error:
            return [ErrorReply(str(error))]
        except Exception:
            log.exception("request failed", platform=ctx.platform, course=ctx.course_id)
            return [ErrorReply(INTERNAL_ERROR)]
        return result if isinstance(result, list) else [result]

    async def _dispatch(self, ctx: Context, text: str) -> list[Reply]:
        parsed = parse_command(text)
        if parsed is None:
            # While an exercise is open, plain lines are its answers.
            if await self.practice.in_progress(ctx):
                return await self.practice.answer(ctx, text)
            return [await self.ask(ctx, text)]
        handler = self._handlers.get(parsed.name)
        if handler is None:
            raise UnknownCommandError(parsed.name)
        return await handler(ctx, parsed.argument)

    def help(self, ctx: Context) -> Notice:
        return Notice(help_text(effective_roles(ctx)), title="coursebot")

    async def ask(self, ctx: Context, question: str) -> Answer:
        question = question.strip()
        if not question:
            raise BadInputError("Please write a question after /ask.")
        if await self.index.count(ctx) == 0:
            raise CourseEmptyError(ctx.course_id)
        return await self.answers.ask(ctx, question)

    async def sources(self, ctx: Context) -> SourceList:
        documents = await self.index.documents(ctx)
        return SourceList(
            course_id=ctx.course_id,
            entries=tuple(
                SourceEntry(d.document_id, d.file_name, d.kind, d.chunks, d.private)
                for d in documents
            ),
        )

    async def ingest(
        self,
        ctx: Context,
        sources: Sequence[SourceFile],
        on_progress: ProgressCallback | None = None,
        private: bool = False,
    ) -> IngestReport:
        """Add material to the context's course: public (instructors only) or the user's
        private notes."""
        if not private:
            require(ctx, Action.INGEST)
        owner = ctx.user_id if private else None
        return await self.ingestor.ingest(
            sources, ctx.course_id, owner_id=owner, on_progress=on_progress
        )

    async def forget(self, ctx: Context, document: str, private: bool = False) -> Notice:
        if not private:
            require(ctx, Action.FORGET)
        owner = ctx.user_id if private else None
        if not await self.ingestor.forget(ctx.course_id, document, owner_id=owner):
            raise BadInputError(
                f"There is no document '{document}' in '{ctx.course_id}'. "
                "/sources lists the course's documents."
            )
        return Notice(f"Removed '{document}' from '{ctx.course_id}'.")

    async def _on_help(self, ctx: Context, _argument: str) -> list[Reply]:
        return [self.help(ctx)]

    async def _on_ask(self, ctx: Context, argument: str) -> list[Reply]:
        return [await self.ask(ctx, argument)]

    async def _on_sources(self, ctx: Context, _argument: str) -> list[Reply]:
        return [await self.sources(ctx)]

    async def _on_mistakes(self, ctx: Context, argument: str) -> list[Reply]:
        return await self.review.report(ctx, parse_mistake_query(argument))
