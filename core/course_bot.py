"""The core facade: the one object every adapter talks to.

Adapters turn platform events into a `Context` plus text (or a typed call) and render the
typed replies that come back. No platform word, client or setting lives here: every
dependency is passed in."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING

import structlog

from core.answering import QuestionAnswering
from core.bindings import CourseBindings
from core.commands import help_text, parse_command
from core.context import Context, Member
from core.courses import parse_course_id
from core.errors import BadInputError, CourseEmptyError, UnknownCommandError, UserFacingError
from core.index import ChunkIndex
from core.permissions import Action, RoleGrants, effective_roles, require
from core.practice import PracticeService
from core.practice.review import MistakeReview, parse_mistake_query
from core.practice.service import NO_SESSION
from core.replies import Answer, ErrorReply, Notice, Reply, SourceEntry, SourceList
from core.sessions import SessionStore
from core.uploads import EXPECT_FILES_FOR_S, ExpectedUploads

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
        bindings: CourseBindings,
        grants: RoleGrants,
        uploads: ExpectedUploads,
    ) -> None:
        self.index = index
        self.answers = answers
        self.sessions = sessions
        self.ingestor = ingestor
        self.practice = practice
        self.review = review
        self.bindings = bindings
        self.grants = grants
        self.uploads = uploads
        self._handlers: dict[str, Handler] = {
            "help": self._on_help,
            "ask": self._on_ask,
            "sources": self._on_sources,
            "practice": self.start_exercise,
            "hint": lambda ctx, _arg: self.hint(ctx),
            "skip": lambda ctx, _arg: self.skip(ctx),
            "quit": lambda ctx, _arg: self.quit_exercise(ctx),
            "status": lambda ctx, _arg: self.exercise_status(ctx),
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

    # Who and which course: adapters call these before anything else ------------------

    def context(
        self,
        member: Member,
        course_id: str,
        *,
        chat_id: str | None = None,
        message_id: str | None = None,
    ) -> Context:
        """The context of a request by `member` about `course_id`, with the roles they hold."""
        roles = self.grants.roles(
            course_id, member.principals | {member.user_id}, chat_admin=member.chat_admin
        )
        return Context(
            platform=member.platform,
            course_id=course_id,
            user_id=member.user_id,
            roles=roles,
            chat_id=chat_id,
            locale=member.locale,
            message_id=message_id,
        )

    async def course_for(self, member: Member, chat_ids: Sequence[str] = ()) -> str | None:
        """The course a message is about. In a chat (`chat_ids`, most specific first, such as
        a channel then its server) it is the chat's binding, which also becomes the member's
        course for direct messages; in a direct message (no `chat_ids`), that last course."""
        if not chat_ids:
            return await self.bindings.last_course(member.platform, member.user_id)
        course = await self.bindings.bound_course(member.platform, chat_ids)
        if course is not None:
            await self.bindings.remember_course(member.platform, member.user_id, course)
        return course

    async def bind(self, member: Member, chat_id: str, course: str, where: str) -> Notice:
        """Bind a chat to a course; `where` names the chat for the confirmation."""
        ctx = self.context(member, parse_course_id(course), chat_id=chat_id)
        require(ctx, Action.BIND)
        await self.bindings.bind(ctx.platform, chat_id, ctx.course_id, ctx.user_id)
        return Notice(
            f"{where} is now bound to the course '{ctx.course_id}'. "
            f"{await self._material_note(ctx)}"
        )

    async def choose_course(self, member: Member, course: str) -> Notice:
        """Make `course` the one the member's direct messages are about."""
        ctx = self.context(member, parse_course_id(course))
        await self.bindings.remember_course(ctx.platform, ctx.user_id, ctx.course_id)
        return Notice(
            f"Your direct messages are now about the course '{ctx.course_id}'. "
            f"{await self._material_note(ctx)}"
        )

    async def courses(self, platform: str) -> list[str]:
        return await self.bindings.courses(platform)

    async def _material_note(self, ctx: Context) -> str:
        if await self.index.count(ctx) == 0:
            return "It has no material yet: an instructor can add some with /ingest."
        return "Ask away, or send /help."

    # Requests --------------------------------------------------------------------------

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

    async def expect_files(self, ctx: Context, *, private: bool) -> Notice:
        """`/ingest` or `/notes` without a file: the user's next files in this chat are for it."""
        if not private:
            require(ctx, Action.INGEST)
        await self.uploads.expect(ctx, private=private)
        what = "your private notes" if private else f"material for '{ctx.course_id}'"
        return Notice(
            f"Send the files now and I will add them as {what} "
            f"(I'll wait {EXPECT_FILES_FOR_S // 60} minutes)."
        )

    async def expected_files(self, ctx: Context) -> bool | None:
        """True: files are expected as private notes; False: as course material; None: no
        command announced any."""
        return await self.uploads.pending(ctx)

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

    # Guided exercises: one open exercise per student and course --------------------

    async def start_exercise(self, ctx: Context, topic: str) -> list[Reply]:
        return await self.practice.start(ctx, topic)

    async def exercise_open(self, ctx: Context) -> bool:
        return await self.practice.in_progress(ctx)

    async def hint(self, ctx: Context) -> list[Reply]:
        return await self.practice.hint(ctx)

    async def skip(self, ctx: Context) -> list[Reply]:
        return await self.practice.skip(ctx)

    async def quit_exercise(self, ctx: Context) -> list[Reply]:
        return await self.practice.quit(ctx)

    async def exercise_status(self, ctx: Context) -> list[Reply]:
        return await self.practice.status(ctx)

    async def answer_step(self, ctx: Context, text: str) -> list[Reply]:
        """An answer to the open guided exercise's current step (Discord's /answer)."""
        if not text.strip():
            raise BadInputError("Please write your answer after /answer.")
        if not await self.practice.in_progress(ctx):
            raise BadInputError(NO_SESSION)
        return await self.practice.answer(ctx, text)

    async def exercises(self, ctx: Context) -> list[tuple[str, str]]:
        """(id, title) of the course's guided exercises, for menus and autocomplete."""
        return [(e.id, e.title) for e in await self.practice.catalog.all(ctx)]

    async def mistakes(self, ctx: Context, argument: str = "") -> list[Reply]:
        return await self.review.report(ctx, parse_mistake_query(argument))

    async def _on_help(self, ctx: Context, _argument: str) -> list[Reply]:
        return [self.help(ctx)]

    async def _on_ask(self, ctx: Context, argument: str) -> list[Reply]:
        return [await self.ask(ctx, argument)]

    async def _on_sources(self, ctx: Context, _argument: str) -> list[Reply]:
        return [await self.sources(ctx)]

    async def _on_mistakes(self, ctx: Context, argument: str) -> list[Reply]:
        return await self.mistakes(ctx, argument)
