"""`/schedule`, `/schedules` and `/unschedule`: a course's instructors set what happens on a
timetable. Every decision of who may is `core.permissions`'; what a chat may name as a source
is decided here, once, for the chat and the terminal alike."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from urllib.parse import urlsplit

from core.context import Context
from core.errors import BadInputError
from core.permissions import Action, require
from core.replies import Notice
from core.requests import Request
from core.schedules.spec import ScheduleKind, ScheduleSpec, describe_interval, parse_schedule
from core.schedules.store import NewSchedule, Schedule, ScheduleStore
from core.visibility import reads_alone

DIGEST_IN_DM = (
    "A digest shows the class's questions: schedule it in a direct message with me, where "
    "it will be sent."
)
POST_IN_GROUP = (
    "Send this in the course's group or channel: that is where the {what} will be posted."
)
NO_FOLDERS = (
    "Folders on the server cannot be scheduled from a chat here; schedule a URL, or ask the "
    "site's staff (coursebot schedule add)."
)
NOT_POSTED_HERE = (
    "Quizzes and reminders are posted by the chat bots: schedule them in the course's "
    "Telegram group or Discord channel."
)
OUTSIDE_FOLDERS = "'{folder}' is not a folder under the course folders this server shares."


@dataclass(frozen=True, slots=True)
class ScheduleRules:
    """What a chat may schedule: the shortest interval, and the folder under which the
    folders it names must lie (None: no folder from a chat; the terminal may name any)."""

    min_interval: timedelta = timedelta(minutes=15)
    folders: Path | None = None
    # A course's instructor could otherwise make thousands, each fetching a URL.
    max_per_course: int = 20
    # The platforms whose bots run schedules and post (None: any); elsewhere (the console)
    # a quiz or reminder schedule would never be posted.
    post_platforms: frozenset[str] | None = None


def is_url(source: str) -> bool:
    return urlsplit(source).scheme in ("http", "https")


class ScheduleDesk:
    def __init__(self, store: ScheduleStore, rules: ScheduleRules) -> None:
        self._store = store
        self._rules = rules

    async def add(self, request: Request, ctx: Context, line: str) -> Notice:
        require(ctx, Action.MANAGE_SCHEDULES)
        spec = parse_schedule(line)
        place = request.place
        if spec.kind is ScheduleKind.INGEST:
            spec = self._checked_ingest(spec, operator=request.operator)
        elif spec.kind is ScheduleKind.DIGEST:
            # Students' questions go to the staff only, where they alone read (the policy).
            if not reads_alone(ctx):
                raise BadInputError(DIGEST_IN_DM)
            if self._rules.post_platforms is not None and (
                ctx.platform not in self._rules.post_platforms
            ):
                raise BadInputError(NOT_POSTED_HERE)
        elif place.direct:
            what = "quiz polls" if spec.kind is ScheduleKind.QUIZ else "reminders"
            raise BadInputError(POST_IN_GROUP.format(what=what))
        elif self._rules.post_platforms is not None and (
            ctx.platform not in self._rules.post_platforms
        ):
            raise BadInputError(NOT_POSTED_HERE)
        if spec.kind is ScheduleKind.REMINDERS:
            return await self._reminders(request, ctx, spec)
        if spec.kind is ScheduleKind.QUIZ and not spec.target:
            raise BadInputError("Which topic? Usage: /schedule quiz TOPIC mon 09:00.")
        existing = await self._store.of_course(ctx.course_id)
        for schedule in existing:
            if schedule.spec == spec and schedule.chat_id == place.chat_id:
                return Notice(f"Schedule #{schedule.schedule_id} does that already.")
        self._check_room(existing, operator=request.operator)
        made = await self._store.add(self._new(request, ctx, spec))
        return Notice(f"Schedule #{made.schedule_id}: {spec.describe()}.")

    def _checked_ingest(self, spec: ScheduleSpec, *, operator: bool) -> ScheduleSpec:
        if spec.every is not None and spec.every < self._rules.min_interval and not operator:
            shortest = describe_interval(self._rules.min_interval)
            raise BadInputError(f"The shortest interval here is {shortest}.")
        if is_url(spec.target):
            return spec
        if "://" in spec.target:
            raise BadInputError("Only http:// and https:// URLs can be fetched.")
        folder = Path(spec.target).expanduser()
        if operator:
            return ScheduleSpec(spec.kind, str(folder.resolve()), every=spec.every)
        root = self._rules.folders
        if root is None:
            raise BadInputError(NO_FOLDERS)
        # Resolved, so neither '..' nor a symbolic link leads out of the shared folders.
        resolved = (root / folder).resolve()
        if not resolved.is_relative_to(root.resolve()) or not resolved.is_dir():
            raise BadInputError(OUTSIDE_FOLDERS.format(folder=spec.target))
        return ScheduleSpec(spec.kind, str(resolved), every=spec.every)

    async def _reminders(self, request: Request, ctx: Context, spec: ScheduleSpec) -> Notice:
        here = [
            s
            for s in await self._store.of_course(ctx.course_id)
            if s.spec.kind is ScheduleKind.REMINDERS and s.chat_id == request.place.chat_id
        ]
        if spec.target == "off":
            for schedule in here:
                await self._store.remove(ctx.course_id, schedule.schedule_id)
            if not here:
                return Notice("There were no exam reminders here.")
            return Notice("Exam reminders are off here.")
        if here:
            return Notice(f"Exam reminders are already on here (#{here[0].schedule_id}).")
        self._check_room(await self._store.of_course(ctx.course_id), operator=request.operator)
        made = await self._store.add(self._new(request, ctx, spec))
        return Notice(
            f"Schedule #{made.schedule_id}: exam reminders here, a week and a day before each "
            f"exam date the course's syllabus states (looked at daily at {spec.at})."
        )

    def _check_room(self, existing: list[Schedule], *, operator: bool) -> None:
        if len(existing) >= self._rules.max_per_course and not operator:
            raise BadInputError(
                f"A course may have {self._rules.max_per_course} schedules: remove one first "
                "(/schedules, /unschedule ID)."
            )

    def _new(self, request: Request, ctx: Context, spec: ScheduleSpec) -> NewSchedule:
        return NewSchedule(
            course_id=ctx.course_id,
            spec=spec,
            platform=ctx.platform,
            created_by=ctx.user_id,
            chat_id=request.place.chat_id,
            place_keys=request.place.lookup,
        )

    async def listing(self, ctx: Context) -> Notice:
        require(ctx, Action.MANAGE_SCHEDULES)
        schedules = await self._store.of_course(ctx.course_id)
        if not schedules:
            return Notice(f"'{ctx.course_id}' has no schedules. Add one with /schedule.")
        lines = [f"Schedules of '{ctx.course_id}':"]
        for schedule in schedules:
            lines.append(f"#{schedule.schedule_id} {schedule.spec.describe()}{_where(schedule)}")
            runs = await self._store.runs(schedule.schedule_id)
            if not runs:
                lines.append("   not run yet")
            for run in runs:
                detail = f": {run.detail}" if run.detail else ""
                lines.append(f"   {run.due_at:%Y-%m-%d %H:%M} UTC {run.outcome}{detail}")
        return Notice("\n".join(lines))

    async def remove(self, ctx: Context, schedule_id: int) -> Notice:
        require(ctx, Action.MANAGE_SCHEDULES)
        # Only this course's: an id of another course's schedule is not found.
        if not await self._store.remove(ctx.course_id, schedule_id):
            raise BadInputError(f"'{ctx.course_id}' has no schedule #{schedule_id} (/schedules).")
        return Notice(f"Schedule #{schedule_id} removed.")


def _where(schedule: Schedule) -> str:
    if schedule.spec.kind is ScheduleKind.INGEST:
        return ""
    return f" (posted in {schedule.platform} chat {schedule.chat_id})"
