"""The instructor loop: every answer is kept with its question, answers are rated 👍 / 👎,
declined questions and 👎 answers are grouped for the course's staff (by their question
vectors), and a staff answer becomes course material ("Instructor answers") that later
questions retrieve and cite; the students who asked are told.

Who may rate, see and be told what is `core.visibility`'s; who may answer is
`core.permissions`'."""

from __future__ import annotations

import tempfile
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import structlog

from core.commands import ParsedCommand
from core.context import Context
from core.embedding.embedder import Embedder
from core.errors import BadInputError
from core.feedback.listings import ListingMessages, group_anchor
from core.feedback.store import Asked, FeedbackStore, Group, NewAsked
from core.material import MaterialIngestor, SourceFile
from core.permissions import Action, require
from core.replies import VOTE_REASONS, Answer, Notice, Reply, VoteReasons
from core.visibility import may_rate, tells_answer_here

log = structlog.get_logger(__name__)

# Cosine of two questions' vectors (the bundled MiniLM) from which they count as one: "Can I
# bring my dog to the lectures?" / "Are pets allowed in the lecture hall?" 0.72, "Is it ok to
# bring a dog to class?" 0.75; "Can I retake the final exam?" / "When is the final exam?"
# 0.68 stay apart.
GROUP_SIMILARITY = 0.7
DOCUMENT_NAME = "Instructor answers.md"
DOCUMENT_TITLE = "Instructor answers"
REASONS = VOTE_REASONS
MAX_REASON_CHARS = 300
# Each group is a message of its own (a reply to it answers the group): a screenful.
MAX_LISTED = 10
LISTED_HOW = "Answer one with /reply ID your answer, or reply to its message with the answer."

NO_ANSWER = "There is no answer {number} you can rate. Rate an answer with its buttons."
NOTHING_TO_RATE = "You have no answer to rate yet in '{course}': ask a question first."
NO_GROUP = "There is no question #{number} in '{course}'. /unanswered lists them."
NOT_ANSWERED = "Question #{number} has no staff answer to remove."
HELPFUL = "Thanks: noted as helpful. Only the course's staff see votes."
UNHELPFUL = "Thanks: noted as not helpful{why}. The course's staff will see this question."
WHY = "Noted as not helpful. Why? One tap, or /bad REASON:"

Clock = Callable[[], datetime]
# Sends replies to a person directly (a DM); False where the platform does not let the bot.
DirectSend = Callable[[str, Sequence[Reply]], Awaitable[bool]]


def _now() -> datetime:
    return datetime.now(UTC)


class InstructorLoop:
    def __init__(
        self,
        store: FeedbackStore,
        embedder: Embedder,
        ingestor: MaterialIngestor,
        listings: ListingMessages,
        *,
        clock: Clock = _now,
    ) -> None:
        self.store = store
        self._embedder = embedder
        self._ingestor = ingestor
        self.listings = listings
        self._clock = clock
        self._direct: dict[str, DirectSend] = {}

    def send_direct(self, platform: str, send: DirectSend) -> None:
        """How to write to someone on `platform` directly (the adapter registers it)."""
        self._direct[platform] = send

    # Answers and votes -------------------------------------------------------------------

    async def record(self, ctx: Context, question: str, answer: Answer) -> Answer:
        """Keep `answer` to `question` (a declined one is queued for the staff); the answer
        with its number for the feedback buttons. A failure here costs the buttons, never
        the answer."""
        try:
            vector = (await self._embedder.embed([question]))[0]
            number = await self.store.record(
                NewAsked(
                    course_id=ctx.course_id,
                    platform=ctx.platform,
                    asker_id=ctx.user_id,
                    chat_id=ctx.chat_id,
                    audience=ctx.audience.value,
                    question=question,
                    answer=answer.text,
                    sources=tuple(c.label() for c in answer.citations),
                    grounded=answer.grounded,
                    vector=vector,
                    at=self._clock(),
                )
            )
            if not answer.grounded:
                asked = await self.store.asked(number)
                if asked is not None:
                    await self._queue(asked)
        except Exception:
            log.exception("answer not kept for feedback", course=ctx.course_id)
            return answer
        return replace(answer, feedback_id=number)

    async def find(self, number: int) -> Asked | None:
        return await self.store.asked(number)

    async def last(self, ctx: Context) -> Asked:
        asked = await self.store.last_asked(ctx.course_id, ctx.user_id)
        if asked is None:
            raise BadInputError(NOTHING_TO_RATE.format(course=ctx.course_id))
        return asked

    async def vote(self, ctx: Context, asked: Asked, helpful: bool, reason: str = "") -> Reply:
        """`ctx`'s 👍 or 👎 (with a reason) on `asked`, replacing their earlier vote. A 👎
        puts the question in the staff's queue; taken back, it leaves again unless someone
        else still finds it unhelpful."""
        if not may_rate(ctx, asked):
            raise BadInputError(NO_ANSWER.format(number=asked.id))
        reason = " ".join(reason.split())[:MAX_REASON_CHARS]
        await self.store.vote(asked, ctx.user_id, helpful, "" if helpful else reason)
        if not helpful:
            if asked.group_id is None:
                await self._queue(asked)
            if not reason:
                return VoteReasons(asked.id, WHY, REASONS)
            return Notice(UNHELPFUL.format(why=f" ({reason})"))
        if asked.grounded and asked.group_id is not None:
            votes = await self.store.votes_on(asked.id)
            group = await self.store.group(asked.course_id, asked.group_id)
            if not any(not v.helpful for v in votes) and group is not None and not group.answered:
                await self.store.leave(asked)
        return Notice(HELPFUL)

    async def _queue(self, asked: Asked) -> None:
        """Put `asked` in the open group of questions most like it, or a new one."""
        if asked.vector is None:
            return
        vector = asked.vector
        best: Group | None = None
        best_score = GROUP_SIMILARITY
        for group in await self.store.groups(asked.course_id, answered=False):
            if group.centroid.shape != vector.shape:
                continue
            score = float(group.centroid @ vector)
            if score >= best_score:
                best, best_score = group, score
        if best is None:
            await self.store.join(asked, None, vector)
            return
        centroid = best.centroid * best.count + vector
        await self.store.join(asked, best.id, centroid / np.linalg.norm(centroid))

    # The staff's side ----------------------------------------------------------------------

    async def unanswered(self, ctx: Context) -> list[Reply]:
        """The course's open groups, most asked first: a message each, so a platform reply
        to one answers that group (`listed_reply`)."""
        require(ctx, Action.REVIEW_QUESTIONS)
        groups = await self.store.groups(ctx.course_id, answered=False)
        answered = len(await self.store.groups(ctx.course_id, answered=True))
        if not groups:
            replies: list[Reply] = [Notice(f"No unanswered questions in '{ctx.course_id}'.")]
        else:
            replies = [Notice(f"Unanswered questions in '{ctx.course_id}', most asked first:")]
            replies += [
                Notice(
                    f"#{group.id} — asked {_times(group.count)}{_kinds(group)}\n"
                    f"   latest: “{group.latest}”",
                    anchor=group_anchor(ctx.course_id, group.id),
                )
                for group in groups[:MAX_LISTED]
            ]
        footer = []
        if len(groups) > MAX_LISTED:
            footer.append(f"…and {len(groups) - MAX_LISTED} more.")
        if groups:
            footer.append(LISTED_HOW)
        if answered:
            footer.append(
                f"{answered} answered (/reply ID replaces an answer, /forget --answer ID "
                "removes it)."
            )
        if footer:
            replies.append(Notice("\n".join(footer)))
        return replies

    async def listed_reply(
        self, ctx: Context, chat_id: str | None, message_id: str, text: str
    ) -> ParsedCommand | None:
        """`text`, written in reply to the bot's message `message_id`, as the `/reply` it
        means when that message lists a group of `ctx`'s course; None otherwise (a
        question, as any other message)."""
        listed = await self.listings.find(ctx.platform, chat_id, message_id)
        if listed is None or listed.course_id != ctx.course_id:
            return None
        return ParsedCommand("reply", options={"id": listed.group_id, "answer": text})

    async def reply(self, ctx: Context, number: int, text: str, *, by: str) -> Notice:
        """The staff's answer to group `number` (a new one replaces the old): kept, made
        course material, and told to the students who asked."""
        require(ctx, Action.ANSWER_QUESTIONS)
        text = text.strip()
        if not text:
            raise BadInputError("Usage: /reply ID your answer (the ID /unanswered shows).")
        group = await self.store.group(ctx.course_id, number)
        if group is None:
            raise BadInputError(NO_GROUP.format(number=number, course=ctx.course_id))
        edited = group.answered
        await self.store.answer_group(ctx.course_id, number, text, by or ctx.user_id, self._clock())
        await self._publish(ctx.course_id)
        told, askers = await self._tell(ctx.course_id, number)
        done = "Replaced the answer to" if edited else "Answered"
        return Notice(
            f"{done} #{number} (“{group.latest}”). It is course material now, in "
            f"'{DOCUMENT_TITLE}'. Told {told} of {askers} who asked by direct message; "
            "the others see it when they next write to me."
        )

    async def forget(self, ctx: Context, number: int) -> Notice:
        """Remove the staff's answer to group `number` from the material."""
        require(ctx, Action.FORGET)
        group = await self.store.group(ctx.course_id, number)
        if group is None or not group.answered:
            raise BadInputError(NOT_ANSWERED.format(number=number))
        await self.store.answer_group(ctx.course_id, number, None, "", None)
        await self._publish(ctx.course_id)
        return Notice(f"Removed the answer to #{number}; the question is unanswered again.")

    async def _publish(self, course_id: str) -> None:
        """The course's "Instructor answers" document, ingested like any file (replacing
        the one before); forgotten when no answer is left."""
        groups = sorted(await self.store.groups(course_id, answered=True), key=lambda g: g.id)
        if not groups:
            await self._ingestor.forget(course_id, DOCUMENT_NAME)
            return
        with tempfile.TemporaryDirectory(prefix="coursebot-answers-") as folder:
            path = Path(folder) / "instructor-answers.md"
            path.write_text(answers_document(groups), encoding="utf-8")
            report = await self._ingestor.ingest([SourceFile(path, DOCUMENT_NAME)], course_id)
        if report.failed:
            raise RuntimeError(f"instructor answers not ingested: {report.failed[0].error}")

    async def _tell(self, course_id: str, number: int) -> tuple[int, int]:
        """Write the answer to each student who asked, where their platform lets the bot;
        (told, askers). The others are told when they next write (`pending`)."""
        group = await self.store.group(course_id, number)
        members = await self.store.members(course_id, number)
        by_asker: dict[str, list[Asked]] = {}
        for asked in members:
            by_asker.setdefault(asked.asker_id, []).append(asked)
        told = 0
        for asker, questions in by_asker.items():
            send = self._direct.get(questions[0].platform)
            if send is None or group is None:
                continue
            try:
                delivered = await send(asker, [_told(questions[-1], group)])
            except Exception:
                log.warning("staff answer not sent directly", course=course_id, exc_info=True)
                delivered = False
            if delivered:
                await self.store.mark_told([q.id for q in questions])
                told += 1
        return told, len(by_asker)

    async def pending(self, ctx: Context) -> list[Reply]:
        """Staff answers to `ctx`'s questions they were not told yet, where only they read."""
        if not tells_answer_here(ctx):
            return []
        untold = await self.store.untold(ctx.course_id, ctx.user_id)
        if not untold:
            return []
        await self.store.mark_told([asked.id for asked, _ in untold])
        seen: set[int] = set()
        replies: list[Reply] = []
        for asked, group in untold:
            if group.id not in seen:
                seen.add(group.id)
                replies.append(_told(asked, group))
        return replies


def answers_document(groups: Sequence[Group]) -> str:
    """The Markdown of the course's staff answers: one section per answered group, headed
    "Instructor answer, DATE" so a citation names it, the question it answers above it."""
    parts = [f"# {DOCUMENT_TITLE}", ""]
    for group in groups:
        when = group.answered_at.date().isoformat() if group.answered_at else ""
        parts += [
            f"## Instructor answer, {when}",
            "",
            f"Question: {' '.join(group.latest.split())}",
            "",
            group.answer.strip(),
            "",
            f"Answered by {group.answered_by}.",
            "",
        ]
    return "\n".join(parts)


def _told(asked: Asked, group: Group) -> Notice:
    when = group.answered_at.date().isoformat() if group.answered_at else ""
    return Notice(
        f"The course's staff answered your question “{asked.question}”:\n\n{group.answer}\n\n"
        f"— {group.answered_by}, {when}",
        title=f"Instructor answer ({group.course_id})",
    )


def _times(count: int) -> str:
    return "once" if count == 1 else f"{count} times"


def _kinds(group: Group) -> str:
    voted = group.count - group.declined
    parts = []
    if group.declined:
        parts.append(f"{group.declined} declined")
    if voted:
        parts.append(f"{voted} 👎")
    return f" ({', '.join(parts)})" if parts else ""
