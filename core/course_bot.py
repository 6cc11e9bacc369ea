"""The core facade: the one object every adapter talks to.

An adapter turns a platform event into a `Request` and calls `handle`, which routes it (a
question, an exercise answer, a command, files), decides everything on the way (course,
roles, audience, limits, replays) and returns a `Response`; it never raises. Autocomplete
reads through the `*_choices` methods, which write nothing. The command line, as the
operator, also ingests local files with `ingest_files`. No platform word, client or setting
lives here: every dependency is passed in."""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Awaitable, Callable, Mapping, Sequence
from contextlib import suppress
from dataclasses import replace
from datetime import date
from pathlib import Path
from typing import Any

import structlog

from core.answering import QuestionAnswering
from core.catalog import CatalogDesk
from core.commands import (
    FORGET_USAGE,
    Arguments,
    Call,
    Desks,
    ParsedCommand,
    command_spec,
    help_text,
)
from core.context import Audience, Context, Member, Role
from core.courses.access import BIND_IN_DM, UNBIND_IN_DM, CourseAccess, NoCourseError
from core.courses.ids import parse_course_id
from core.courses.registry import CourseRegistry
from core.errors import (
    BadInputError,
    CourseEmptyError,
    UnknownCommandError,
    UserFacingError,
)
from core.exercises import ExerciseDefinition
from core.feedback import Digest, DirectSend, InstructorLoop
from core.feedback.loop import NO_ANSWER
from core.generation.materials import MaterialsDesk
from core.index import ChunkIndex
from core.index.payload import ChunkRecord
from core.input_limits import check_text_length
from core.jobs import InProcessJobs, JobHandler, JobQueue, JobRun, Progress
from core.ledger import ReplyLedger
from core.lessons import LessonResult, LessonService, Profile
from core.lessons.command import parse_bounds, parse_profile
from core.material import (
    IngestProgress,
    IngestReport,
    MaterialIngestor,
    ProgressCallback,
    SourceFile,
)
from core.metrics import Metrics
from core.outages import REDIS, Outages, service_of
from core.page_pictures import PagePictures
from core.permissions import Action, effective_roles, holders, require
from core.practice import PracticeService
from core.practice.review import MistakeReview
from core.progress import StepProgress, from_payload
from core.progress import payload as progress_payload
from core.replies import (
    DocumentReply,
    ErrorReply,
    ExerciseSheet,
    Notice,
    Reply,
    SourceEntry,
    SourceList,
)
from core.requests import Place, Request, Response
from core.schedules import ScheduleDesk
from core.schedules.reminders import due_reminders, exam_dates
from core.study.desk import StudyDesk
from core.study.polls import PollAnswered, PollRef, PollRegistry, PollVote
from core.text import shown_name
from core.throttle import RequestThrottle
from core.uploads import SEND_NOTES_FIRST, UploadDesk
from core.visibility import reads_alone, response_private

log = structlog.get_logger(__name__)

INTERNAL_ERROR = "Something went wrong on my side. The error was logged; please try again later."
CONFIDENTIAL_HERE = (
    "/{command} shows {shows}, so I only send it where nobody else "
    "reads along: ask me in a direct message (after /course {course})."
)
HELP_TITLE = "coursebot"
NO_PICTURES = "Pictures of pages are not kept here."

Route = Callable[[Request, ParsedCommand | None], Awaitable[Response]]
LateScore = Callable[[PollAnswered], Awaitable[None]]


class CourseBot:
    def __init__(
        self,
        *,
        index: ChunkIndex,
        answers: QuestionAnswering,
        practice: PracticeService,
        review: MistakeReview,
        access: CourseAccess,
        courses: CourseRegistry,
        uploads: UploadDesk,
        ingestor: MaterialIngestor,
        ledger: ReplyLedger,
        throttle: RequestThrottle,
        outages: Outages,
        max_text_chars: int,
        lessons: LessonService,
        study: StudyDesk,
        polls: PollRegistry,
        materials: MaterialsDesk,
        catalog: CatalogDesk,
        service_timeout_s: float,
        schedules: ScheduleDesk,
        loop: InstructorLoop,
        digest: Digest,
        pictures: PagePictures | None = None,
        metrics: Metrics | None = None,
    ) -> None:
        """`pictures` holds the pages' pictures a citation may show (none when None);
        `metrics` counts requests, their time, throttling and outages.
        `loop` keeps answers and their votes for the course's staff."""
        self._index = index
        self._answers = answers
        self._practice = practice
        self._review = review
        self._access = access
        self._courses = courses
        self._uploads = uploads
        self._ingestor = ingestor
        self._ledger = ledger
        self._throttle = throttle
        self._outages = outages
        self._max_text_chars = max_text_chars
        self._lessons = lessons
        self._study = study
        self._polls = polls
        self._held_votes = polls.vote_outbox(self._count_held_vote, outages)
        self._service_timeout_s = service_timeout_s
        self._late_scores: dict[str, LateScore] = {}
        self._materials = materials
        self._catalog = catalog
        self._pictures = pictures
        self._loop = loop
        self._metrics = metrics or Metrics()
        # Heavy work runs here until a queue is attached (the composition root does).
        self._jobs: JobQueue = InProcessJobs(self.job_handlers(), self._metrics)
        # What every command's handler may call (`core.commands.COMMANDS`).
        self._desks = Desks(
            core=self, access=access, practice=practice, review=review, uploads=uploads,
            lessons=lessons, study=study, materials=materials, catalog=catalog,
            schedules=schedules, loop=loop, digest=digest,
        )  # fmt: skip

    # The one entry -------------------------------------------------------------------------

    async def handle(self, request: Request) -> Response:
        """Everything an inbound message causes. Never raises: errors the user caused become
        an ErrorReply, others are logged and reported politely."""
        return await self._guarded(request, self._route)

    async def _guarded(self, request: Request, route: Route, *, throttled: bool = True) -> Response:
        # Every log line of this request carries its id, platform and (once known) course:
        # bound in this task's context, so concurrent requests never mix their fields.
        platform = request.member.platform
        with structlog.contextvars.bound_contextvars(
            request_id=uuid.uuid4().hex[:12], platform=platform, course=request.course
        ):
            started = time.perf_counter()
            outcome = "error"
            try:
                response = await self._admit(request, route, throttled=throttled)
                outcome = "refused" if _refused(response) else "ok"
            except UserFacingError as error:
                outcome = "refused"
                return Response.of(ErrorReply(str(error)), private=True)
            except Exception as error:
                # A service that is down or saturated gets a short reply and one log line
                # per outage; anything else is a bug, logged in full.
                reply = self._outages.reply_for(error)
                if reply is None or not self._outages.failed(error):
                    log.exception("request failed")
                    reply = INTERNAL_ERROR
                else:
                    outcome = "unavailable"
                return Response.of(ErrorReply(reply), private=True)
            finally:
                self._metrics.stage_seconds.labels("request").observe(time.perf_counter() - started)
                self._metrics.count_request(_command_of(request), platform, outcome)
            self._outages.succeeded()
            return response

    async def _admit(self, request: Request, route: Route, *, throttled: bool) -> Response:
        parsed = request.parsed()
        if throttled and not request.operator:
            whispered_tap = _is_tap(parsed) and request.place.whisper
            place = None if whispered_tap else _shared_place(request)
            verdict = await self._throttle.check(request.member.user_id, place)
            if not verdict.allowed:
                self._metrics.throttled.labels(request.member.platform).inc()
                return (
                    Response.of(Notice(verdict.message), private=True)
                    if verdict.tell
                    else (Response())
                )
        check_text_length(parsed.text() if parsed else request.text, self._max_text_chars)
        replayed = await self._ledger.claim(request.key)
        if replayed is not None:
            return replayed
        try:
            response = await route(request, parsed)
        except UserFacingError as error:
            response = Response.of(ErrorReply(str(error)), private=True)
        except BaseException as error:
            # A redelivery is processed anew once the claim is released; with the store
            # itself down, or the request out of time (cancelled: nothing more may be
            # awaited), the claim is left to be taken over instead.
            if service_of(error) != REDIS and not isinstance(error, asyncio.CancelledError):
                with suppress(Exception):
                    await self._ledger.release(request.key)
            raise
        await self._ledger.finish(request.key, response)
        return response

    async def _route(self, request: Request, parsed: ParsedCommand | None) -> Response:
        spec = None if parsed is None else command_spec(parsed.name)
        if parsed is not None and spec is None:
            raise UnknownCommandError(parsed.name)
        if spec is not None and parsed is not None and not spec.needs_course and not request.files:
            call = Call(request, None, spec.arguments(parsed))
            return _response(await spec.handler(self._desks, call), private=spec.private)
        scope = await self._access.scope(request)
        if scope is None:
            if request.files and parsed is None and not request.place.direct:
                return Response()  # a file shared with a group is not the bot's business
            raise NoCourseError(request.place)
        await self._access.record_presence(request, scope)
        ctx = await self._access.context(request, scope)
        structlog.contextvars.bind_contextvars(course=ctx.course_id)
        if request.files:
            return await self._receive_files(request, ctx, spec.name if spec else None)
        if spec is None and request.replying_to is not None:
            # A reply to the bot's listing of a question group answers that group.
            parsed = await self._loop.listed_reply(
                ctx, request.place.chat_id, request.replying_to, request.text
            )
            spec = None if parsed is None else command_spec(parsed.name)
        # Staff answers to this person's questions they were not told of yet come first.
        told = await self._loop.pending(ctx)
        if spec is None or parsed is None:
            return _response([*told, *await self._plain_text(ctx, request.text)], private=False)
        if spec.confidential and not reads_alone(ctx, whisper=request.place.whisper):
            raise BadInputError(
                CONFIDENTIAL_HERE.format(
                    command=spec.name, shows=spec.confidential, course=ctx.course_id
                )
            )
        call = Call(request, ctx, spec.arguments(parsed))
        if spec.job:
            result = await self._jobs.run(
                "command", _portable(spec.name, call), key=request.key,
                on_progress=_shown_to(request.on_progress),
            )  # fmt: skip
        else:
            result = await spec.handler(self._desks, call)
        if told:
            result = [*told, *(result if isinstance(result, Sequence) else [result])]
        return _response(result, private=spec.private)

    # Commands of the core's own (the registry's handlers call them) ------------------------

    async def bind_here(self, request: Request, course: str) -> Notice:
        bound = await self._access.bind(request, course)
        if bound is None:
            return Notice(BIND_IN_DM)
        text, course_id = bound
        return Notice(f"{text} {await self._material_note(course_id)}")

    async def unbind_here(self, request: Request) -> Notice:
        unbound = await self._access.unbind(request)
        return Notice(unbound if unbound is not None else UNBIND_IN_DM)

    async def choose_course(self, request: Request, course: str) -> Notice:
        text, chosen = await self._access.choose(request, course)
        if chosen is not None:
            text = f"{text} {await self._material_note(chosen)}"
        return Notice(text)

    async def exam_reminders(self, course_id: str, today: date) -> Notice | None:
        """The reminders due `today` of the exam dates the course's public material states
        (a scheduled run posts them to the course's place); None when none is due."""
        passages: list[tuple[str, str]] = []
        async for batch in self._index.stored_chunks(course_id):
            for stored in batch:
                record = ChunkRecord.from_payload(stored.id, stored.payload)
                if not record.private:  # posted where the class reads
                    passages.append((record.file_name, record.text))
        lines = due_reminders(exam_dates(passages), today)
        return Notice("\n".join(lines), title="Exam reminder") if lines else None

    async def start(self, request: Request, code: str) -> Notice:
        """`/start CODE` (an invite link's tap) joins the course of the code; a bare
        `/start` is the help."""
        if not code:
            return await self.help(request)
        text, chosen = await self._access.choose(request, f"join {code}")
        if chosen is not None:
            text = f"{text} {await self._material_note(chosen)}"
        return Notice(text)

    async def help(self, request: Request) -> Notice:
        scope = await self._access.scope(request)
        if scope is None:
            text = help_text(frozenset({Role.STUDENT}), holders)
            return Notice(f"{text}\n\n{NoCourseError(request.place)}", title=HELP_TITLE)
        ctx = await self._access.context(request, scope)
        return Notice(help_text(effective_roles(ctx), holders), title=HELP_TITLE)

    async def _material_note(self, course_id: str) -> str:
        probe = Context(platform="-", course_id=course_id, user_id="-")
        if await self._index.count(probe) == 0:
            return "It has no material yet: an instructor can add some with /ingest."
        return "Ask away, or send /help."

    # Use cases -----------------------------------------------------------------------------

    async def _plain_text(self, ctx: Context, text: str) -> list[Reply]:
        """While an exercise is open, plain lines are its answers; otherwise questions."""
        answered = await self._practice.answer_if_open(ctx, text)
        if answered is not None:
            return answered
        return [await self.ask(ctx, text)]

    async def ask(self, ctx: Context, question: str) -> Reply:
        question = question.strip()
        if not question:
            raise BadInputError("Please write a question.")
        if await self._index.count(ctx) == 0:
            raise CourseEmptyError(ctx.course_id)
        answer = await self._answers.ask(ctx, question)
        if self._pictures is not None:
            answer = await self._pictures.mark(ctx, answer)
        return await self._loop.record(ctx, question, answer)

    async def rate(
        self, request: Request, number: int | None, *, helpful: bool, reason: str = ""
    ) -> Reply:
        """`/good`, `/bad`: a vote on answer `number` (the asker's last one when None),
        judged in the answer's course as a message there would be (a 👎 pressed in a group
        may be explained in a direct message)."""
        if number is None:
            scope = await self._access.scope(request)
            if scope is None:
                raise NoCourseError(request.place)
            ctx = await self._access.context(request, scope)
            asked = await self._loop.last(ctx)
        else:
            found = await self._loop.find(number)
            scope = None if found is None else await self._access.scope_in(request, found.course_id)
            if found is None or scope is None:
                raise BadInputError(NO_ANSWER.format(number=number))
            asked = found
            ctx = await self._access.context(request, scope)
        return await self._loop.vote(ctx, asked, helpful, reason)

    async def reply_to_group(
        self, request: Request, ctx: Context, number: int, text: str
    ) -> Notice:
        """`/reply ID text`: the staff's answer, signed with the name the platform shows."""
        return await self._loop.reply(ctx, number, text, by=request.member.name or ctx.user_id)

    async def remember_sent(self, request: Request, message_id: str, anchor: str) -> None:
        """The adapter sent a reply carrying `anchor` (`Notice.anchor`), in answer to
        `request`, as the message `message_id` of the request's chat: kept, so a reply to
        that message means what the anchor says. Never raises: a message not remembered is
        answered with `/reply ID` instead."""
        try:
            await self._loop.listings.remember(
                request.member.platform, request.place.chat_id, message_id, anchor
            )
        except Exception:
            log.exception("sent message not remembered", anchor=anchor)

    def send_direct_messages(self, platform: str, send: DirectSend) -> None:
        """`send` writes to someone on `platform` directly, where the platform lets the bot
        (a staff answer to the students who asked); False where it did not."""
        self._loop.send_direct(platform, send)

    async def show_page(self, ctx: Context, document: str, page: int) -> DocumentReply:
        """`/page DOCUMENT N`: the picture of a cited page, where the policy lets `ctx` see
        it (whatever the button that asked carried)."""
        if self._pictures is None:
            raise BadInputError(NO_PICTURES)
        return await self._pictures.show(ctx, document, page)

    async def answer(self, ctx: Context, text: str) -> list[Reply]:
        if not text.strip():
            raise BadInputError("Please write your answer after /answer.")
        return await self._practice.answer(ctx, text)

    async def sources(self, ctx: Context) -> SourceList:
        documents = await self._index.documents(ctx)
        return SourceList(
            course_id=ctx.course_id,
            entries=tuple(
                SourceEntry(d.document_id, d.file_name, d.kind, d.chunks, d.private)
                for d in documents
            ),
        )

    async def forget(self, ctx: Context, document: str, *, private: bool = False) -> Notice:
        """`/forget DOCUMENT` (course material) or `/forget --private DOCUMENT` (own notes)."""
        document = document.strip()
        if not private:
            require(ctx, Action.FORGET)
        if not document:
            raise BadInputError(FORGET_USAGE)
        owner = ctx.user_id if private else None
        if not await self._ingestor.forget(ctx.course_id, document, owner_id=owner):
            raise BadInputError(
                f"There is no document '{shown_name(document)}' in '{ctx.course_id}'. "
                "/sources lists the course's documents."
            )
        return Notice(f"Removed '{shown_name(document)}' from '{ctx.course_id}'.")

    async def _receive_files(self, request: Request, ctx: Context, name: str | None) -> Response:
        private = await self._uploads.intent(ctx, name)
        if private is None:
            if not request.place.direct:
                return Response()  # shared with the class, not sent to the bot
            return Response.of(Notice(SEND_NOTES_FIRST), private=True)
        summary = await self._uploads.receive(
            ctx,
            request.files,
            private=private,
            on_progress=request.on_progress,
            ingest=lambda sources, owner, progress: self._ingest_job(
                ctx.course_id, sources, owner, progress, key=request.key
            ),
        )
        return Response.of(summary, private=True)

    # Background jobs (core/jobs): what the bots hand over, and what a worker runs --------

    def attach_jobs(self, jobs: JobQueue) -> None:
        """Run heavy work through `jobs` (built with `job_handlers`, hence after the core)."""
        self._jobs = jobs

    @property
    def jobs(self) -> JobQueue:
        return self._jobs

    def job_handlers(self) -> dict[str, JobHandler]:
        return {"ingest": self._run_ingest, "command": self._run_command}

    async def _ingest_job(
        self,
        course_id: str,
        sources: Sequence[SourceFile],
        owner: str | None,
        on_progress: ProgressCallback | None,
        *,
        key: str | None = None,
        by: str = "console",
    ) -> IngestReport:
        args = {
            "course": course_id,
            "owner": owner,
            "by": by,
            "files": [[str(source.path), source.file_name] for source in sources],
        }
        report: IngestReport = await self._jobs.run(
            "ingest", args, key=key, on_progress=_shown_to(on_progress)
        )
        return report

    async def ingest_job(
        self,
        course: str,
        sources: Sequence[SourceFile],
        *,
        owner: str | None = None,
        on_progress: ProgressCallback | None = None,
        by: str = "console",
    ) -> IngestReport:
        """`ingest_files` as a background job (a worker's, when jobs go through Redis)."""
        return await self._ingest_job(parse_course_id(course), sources, owner, on_progress, by=by)

    async def _run_ingest(self, args: Mapping[str, Any], run: JobRun) -> IngestReport:
        sources = [SourceFile(Path(path), name) for path, name in args["files"]]

        async def progress(state: IngestProgress) -> None:
            await run.report(progress_payload(state))

        # Idempotent: a second run skips the files the first one finished and replaces
        # what it left half-written (ingestion/pipeline.py).
        return await self.ingest_files(
            args["course"], sources, owner=args["owner"], on_progress=progress, by=args["by"]
        )

    async def _run_command(self, args: Mapping[str, Any], run: JobRun) -> Reply | list[Reply]:
        spec = command_spec(args["name"])
        if spec is None or not spec.job:
            raise ValueError(f"/{args['name']} is not a job")

        async def report(state: StepProgress) -> None:
            await run.report(progress_payload(state))

        # Keyed by the job: a run after one that saved its set (and died before the job was
        # marked complete) serves that set, even with --new; one that saved none makes it.
        call = Call(
            args["request"], args["ctx"], Arguments(dict(args["values"])), report=report,
            job=run.job_id,
        )  # fmt: skip
        return await spec.handler(self._desks, call)

    async def exercise_moved(self, request: Request, chat_id: str) -> None:
        """The adapter posted the exercise `request` started to the shared chat `chat_id`
        (a Discord thread of its own): its answers are read there from now on. Never raises:
        an exercise not moved is logged and still runs where it started."""
        try:
            ctx = await self._quiet_context(request)
            if ctx is not None:
                await self._practice.move(ctx, chat_id)
        except Exception:
            log.exception("exercise not moved", platform=request.member.platform)

    # Native quiz polls -----------------------------------------------------------------------

    async def remember_polls(
        self, request: Request, quiz_id: int, polls: Sequence[tuple[str, int]]
    ) -> None:
        """The adapter sent questions of quiz `quiz_id`, in answer to `request`, as native
        polls: (poll id, question number from 1) each. Kept so a vote, which names only its
        poll, finds the quiz, the course and the chat. Never raises: a poll not remembered
        only means its votes are not counted (logged)."""
        try:
            scope = await self._access.scope(request)
            if scope is None:
                return
            place = request.place
            for poll_id, number in polls:
                ref = PollRef(
                    scope.course_id, quiz_id, number, place.chat_id, place.audience, place.lookup
                )
                await self._polls.remember(request.member.platform, poll_id, ref)
        except Exception:
            log.exception("quiz polls not remembered", quiz=quiz_id)

    async def answer_poll(
        self, member: Member, poll_id: str, option_ids: Sequence[int], update_id: str
    ) -> PollAnswered:
        """A vote in a native quiz poll, by `member`, in the update `update_id` (its
        idempotency key: a replayed update is recorded once). Judged as a message in the
        poll's chat would be (course, membership, roles), then recorded once per question;
        the response is empty but for the score after the last question, for the poll's
        chat. A retracted vote (no options) and a vote on an unknown poll change nothing.
        Answered within the service timeout: a vote that meets an outage is held and
        counted after it (`count_held_votes`), as the platform never delivers it again."""
        if not option_ids:
            return PollAnswered()
        vote = PollVote(member, poll_id, option_ids[0], update_id)
        try:
            return await self._count_vote(vote)
        except Exception:
            self._held_votes.hold(vote)
            return PollAnswered()

    async def count_held_votes(self) -> bool:
        """Count the votes an outage held back; whether none waits any more (False while a
        service is still down, or another replica is counting)."""
        await self._held_votes.flush()
        with suppress(Exception):
            return not await self._held_votes.waiting()
        return False

    async def keep_counting_held_votes(self) -> None:
        """Count held votes now and then until cancelled."""
        await self._held_votes.keep_flushing()

    def send_late_scores(self, platform: str, send: LateScore) -> None:
        """`send` delivers on `platform` what a held vote causes once it is counted (the
        score after a quiz's last question), to the poll's chat."""
        self._late_scores[platform] = send

    async def _count_held_vote(self, vote: PollVote) -> None:
        answered = await self._count_vote(vote)
        send = self._late_scores.get(vote.member.platform)
        if send is None or not answered.response.replies or answered.chat_id is None:
            return
        try:
            await send(answered)
        except Exception:
            # The vote is counted: a score that cannot be sent is not worth counting again.
            log.exception("late quiz score not sent", platform=vote.member.platform)

    async def _count_vote(self, vote: PollVote) -> PollAnswered:
        """Raises only when a service is down or the service timeout ran out: the vote is
        to be counted later. Any other failure is logged, and the vote dropped."""
        member = vote.member
        try:
            async with asyncio.timeout(self._service_timeout_s):
                ref = await self._polls.find(member.platform, vote.poll_id)
                if ref is None:
                    log.info("vote on an unknown poll", platform=member.platform, poll=vote.poll_id)
                    return PollAnswered()
                request = Request(
                    member=member,
                    place=Place(ref.audience, chat_id=ref.chat_id, lookup=ref.lookup),
                    message_id=f"{member.platform}:poll-answer:{vote.update_id}",
                )

                async def cast(voted: Request, _parsed: ParsedCommand | None) -> Response:
                    return await self._vote(voted, ref, vote.option)

                # Not throttled: a quiz poll takes one vote per person and cannot be voted
                # again, so a dropped vote would be an answer lost for good.
                response = await self._admit(request, cast, throttled=False)
        except TimeoutError as error:
            self._outages.failed(error)
            raise
        except Exception as error:
            if self._outages.failed(error):
                raise
            log.exception("poll vote not counted", platform=member.platform)
            return PollAnswered()
        self._outages.succeeded()
        return PollAnswered(response, ref.chat_id)

    async def _vote(self, request: Request, ref: PollRef, chosen: int) -> Response:
        scope = await self._access.scope_in(request, ref.course_id)
        if scope is None:
            # No reply: the poll's chat is not the voter's, and they may not use the course.
            log.info("poll vote refused: not in the course", course=ref.course_id)
            return Response()
        # A vote is scored but never makes the voter a member: it names the poll, not where
        # it was cast, and a poll forwarded out of the group is voted on as the same poll.
        ctx = await self._access.context(request, scope)
        return Response(tuple(await self._study.vote(ctx, ref.quiz_id, ref.number, chosen)))

    # Reading for menus and autocomplete: never writes --------------------------------------

    async def course_choices(self, member: Member) -> list[str]:
        """The courses this member may choose (their own), for pickers and autocomplete."""
        return await self._access.my_courses(member)

    async def document_choices(self, request: Request) -> list[str]:
        ctx = await self._quiet_context(request)
        return [d.file_name for d in await self._index.documents(ctx)] if ctx else []

    async def exercise_choices(self, request: Request) -> list[tuple[str, str]]:
        """(id, title) of the course's guided exercises."""
        ctx = await self._quiet_context(request)
        if ctx is None:
            return []
        return [(e.id, e.title) for e in await self._practice.catalog.all(ctx)]

    async def _quiet_context(self, request: Request) -> Context | None:
        scope = await self._access.scope(request)
        return await self._access.context(request, scope) if scope else None

    # The operator's own calls (the command line) ---------------------------------------------

    async def ingest_files(
        self,
        course: str,
        sources: Sequence[SourceFile],
        *,
        owner: str | None = None,
        on_progress: ProgressCallback | None = None,
        by: str = "console",
    ) -> IngestReport:
        """Add local files as course material (or as `owner`'s notes); the course record is
        created if this is its first material."""
        course_id = parse_course_id(course)
        await self._courses.ensure(course_id, created_by=by)
        return await self._ingestor.ingest(
            sources, course_id, owner_id=owner, on_progress=on_progress
        )

    async def generate_exercise(
        self, course: str, topic: str, *, user: str, difficulty: str = "medium"
    ) -> tuple[ExerciseDefinition, ExerciseSheet]:
        """The exercise `user` would get next on `topic` (not started): written by the model
        and verified when one is configured, else a parametric instance."""
        ctx = await self._terminal_context(course, user, Audience.SHARED)
        return await self._practice.generate(ctx, topic, difficulty)

    async def _terminal_context(self, course: str, user: str, audience: Audience) -> Context:
        """`user` in `course` as the command line acts for them; an unknown course is one
        clear line, not "the material has nothing on it"."""
        course_id = parse_course_id(course)
        if await self._courses.get(course_id) is None:
            raise BadInputError(f"There is no course '{course_id}'.")
        return Context(platform="console", course_id=course_id, user_id=user, audience=audience)

    async def generate_study_set(
        self,
        kind: str,
        course: str,
        topic: str,
        *,
        user: str,
        fresh: bool = False,
        count: int | None = None,
    ) -> tuple[int, Any]:
        """`user`'s flashcards, quiz or mind map on `topic` in a terminal (their notes
        included): (the set's id, the set), from the store when asked before unless `fresh`."""
        ctx = await self._terminal_context(course, user, Audience.PRIVATE)
        served = await self._study.generate(ctx, kind, topic, fresh=fresh, count=count)
        return served.material_id, served.value

    async def mindmap_picture(self, mindmap: Any) -> bytes:
        return await self._study.picture(mindmap)

    async def generate_lesson(
        self,
        course: str,
        topic: str,
        *,
        user: str,
        slides: str | None = None,
        profile: Profile | str | None = None,
        fresh: bool = False,
    ) -> LessonResult:
        """The deck `user` gets for `/lesson TOPIC` in a terminal (their notes included):
        the stored one when asked before, unless `fresh`."""
        ctx = await self._terminal_context(course, user, Audience.PRIVATE)
        return await self._lessons.lesson(
            ctx, topic, bounds=parse_bounds(slides), profile=parse_profile(profile), fresh=fresh
        )

    async def create_course(self, course: str, instructor: str, *, by: str = "console") -> Notice:
        course_id = parse_course_id(course)
        if not await self._courses.create(course_id, by, instructor=instructor):
            raise BadInputError(
                f"The course '{course_id}' exists already; `coursebot course transfer` hands "
                "it to someone else."
            )
        return Notice(f"Created '{course_id}'; {instructor} is its instructor.")

    async def transfer_course(self, course: str, instructor: str, *, by: str = "console") -> Notice:
        course_id = parse_course_id(course)
        if await self._courses.get(course_id) is None:
            raise BadInputError(f"There is no course '{course_id}'.")
        await self._courses.transfer(course_id, instructor, by)
        return Notice(f"'{course_id}' now belongs to {instructor}; earlier staff roles are gone.")


def _response(result: Reply | Sequence[Reply], *, private: bool) -> Response:
    """A routed response, private as the policy says (`core.visibility.response_private`)."""
    replies = tuple(result) if isinstance(result, Sequence) else (result,)
    return Response(replies, response_private(replies, command_private=private))


def _portable(name: str, call: Call) -> dict[str, Any]:
    """A command's call as a job's arguments: what crosses to a worker (no callbacks, no
    files: a job command takes none)."""
    request = replace(call.request, files=(), on_progress=None)
    return {"name": name, "request": request, "ctx": call.ctx, "values": dict(call.args.values)}


def _shown_to(show: Callable[[Any], Awaitable[None] | None] | None) -> Progress | None:
    """A job's progress, as it crosses the queue, handed back in its shape to whoever
    shows it (a `ShowProgress`, or an ingestion's `ProgressCallback` for an ingest job)."""
    if show is None:
        return None

    async def shown(data: dict[str, Any]) -> None:
        outcome = show(from_payload(data))
        if outcome is not None:
            await outcome

    return shown


def _command_of(request: Request) -> str:
    """What a request asked, as a metrics label: a known command's name (an unknown one is
    "unknown": names people type must not grow the label set), files or a plain line."""
    if request.files and request.command is None:
        return "files"
    parsed = request.parsed()
    if parsed is None:
        return "text"
    return parsed.name if command_spec(parsed.name) is not None else "unknown"


def _refused(response: Response) -> bool:
    return any(isinstance(reply, ErrorReply) for reply in response.replies)


def _is_tap(parsed: ParsedCommand | None) -> bool:
    """A press of a quiz's or a deck's buttons (`CommandSpec.tap`): where the platform shows
    the reply to the presser alone (Discord) it is answered from a stored set, with no
    retrieval or model call and nothing posted to the group, so it counts against the
    person's limit only; a class working through a quiz together would otherwise spend its
    channel's. Elsewhere the reply is seen by the group, so it counts like any message."""
    spec = None if parsed is None else command_spec(parsed.name)
    return spec is not None and spec.tap


def _shared_place(request: Request) -> str | None:
    """The key a group or channel's messages are counted under together; None in a DM."""
    place = request.place
    if place.direct or place.chat_id is None:
        return None
    return f"{request.member.platform}:{place.chat_id}"
