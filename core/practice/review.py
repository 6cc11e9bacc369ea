"""Moderators' view of the mistake log: counts by skill (with a chart), optionally filtered
by skill or student, and the CSV export."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from core.context import Context
from core.mistakes import MistakeLog, mistakes_by_skill_png
from core.mistakes.outbox import MistakeOutbox
from core.permissions import Action, require
from core.replies import DocumentReply, Notice, Reply


@dataclass(frozen=True, slots=True)
class MistakeQuery:
    skill: str | None = None
    student: str | None = None
    csv: bool = False


class MistakeReview:
    def __init__(self, log: MistakeLog, outbox: MistakeOutbox) -> None:
        self.log = log
        self.outbox = outbox

    async def report(
        self, ctx: Context, skill: str | None, student: str | None, *, csv: bool = False
    ) -> list[Reply]:
        query = MistakeQuery(skill, student, csv)
        require(ctx, Action.REVIEW_MISTAKES)
        # What was just committed shows at once: this process's background flushes first.
        await self.outbox.settled()
        await self.outbox.flush()
        counts = await self.log.by_skill(ctx.course_id, student=query.student)
        if query.skill:
            counts = [c for c in counts if c.skill == query.skill]
        scope = _scope(ctx.course_id, query)
        if not counts:
            replies: list[Reply] = [Notice(f"No mistakes logged for {scope}.")]
        else:
            lines = [f"Mistakes by skill for {scope}:"]
            for count in counts:
                example = f" (latest: “{count.examples[0].answer}”)" if count.examples else ""
                lines.append(f"  {count.skill}: {count.count}{example}")
            chart = await asyncio.to_thread(mistakes_by_skill_png, counts, f"Mistakes — {scope}")
            replies = [
                Notice("\n".join(lines)),
                DocumentReply("mistakes-by-skill.png", chart, "image/png", f"Mistakes, {scope}"),
            ]
        if query.csv:
            data = await self.log.export_csv(
                ctx.course_id, skill=query.skill, student=query.student
            )
            replies.append(DocumentReply("mistakes.csv", data, "text/csv", f"Mistakes, {scope}"))
        return replies


def _scope(course_id: str, query: MistakeQuery) -> str:
    parts = [course_id]
    if query.skill:
        parts.append(f"skill {query.skill}")
    if query.student:
        parts.append(f"student {query.student}")
    return ", ".join(parts)
