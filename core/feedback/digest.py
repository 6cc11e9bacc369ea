"""`/digest [week|month]`: what the class asked and how the material served it, for the
course's staff: the most asked topics (questions grouped by their vectors), answered,
declined and 👎 counts, the unanswered groups, mistakes by skill, quiz accuracy per topic;
a PNG chart and CSVs (the one CSV writer). It names no student unless
`core.visibility.digest_names` allows it."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from typing import Any

import numpy as np

from core.context import Context
from core.errors import BadInputError
from core.feedback.quiz_answers import QuizAnswerLog, TopicAccuracy, accuracy_by_topic
from core.feedback.store import Asked, FeedbackStore, Vote
from core.mistakes import MistakeLog, SkillCount, mistakes_by_skill_png
from core.permissions import Action, require
from core.pictures import new_figure, png_of
from core.replies import DocumentReply, Notice, Reply
from core.spreadsheet_csv import csv_bytes
from core.visibility import digest_names

PERIODS = {"week": timedelta(days=7), "month": timedelta(days=30)}
# Looser than the staff's groups: a topic gathers questions about one thing, not one question.
TOPIC_SIMILARITY = 0.6
TOP = 5
NAMES_ONLY_ALONE = (
    "A digest names a student only where you alone read it: ask me in a direct message."
)
CSV_COLUMNS = (
    "asked_at", "question", "outcome", "helpful_votes", "unhelpful_votes", "reasons", "group",
)  # fmt: skip
QUIZ_CSV_COLUMNS = ("topic", "answers", "correct", "accuracy_percent")


@dataclass(frozen=True, slots=True)
class Topic:
    count: int
    latest: str


@dataclass(frozen=True, slots=True)
class DigestFigures:
    period: str
    asked: int
    answered: int
    declined: int
    helpful: int
    unhelpful: int
    reasons: tuple[tuple[str, int], ...]
    topics: tuple[Topic, ...]
    quizzes: tuple[TopicAccuracy, ...] = ()


class Digest:
    def __init__(
        self,
        store: FeedbackStore,
        mistakes: MistakeLog | None = None,
        quizzes: QuizAnswerLog | None = None,
        *,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        self._store = store
        self._mistakes = mistakes
        self._quizzes = quizzes
        self._clock = clock

    async def digest(
        self, ctx: Context, period: str = "week", *, student: str = "", whisper: bool = False
    ) -> list[Reply]:
        require(ctx, Action.REVIEW_QUESTIONS)
        if student and not digest_names(ctx, student, whisper=whisper):
            raise BadInputError(NAMES_ONLY_ALONE)
        since = self._clock() - PERIODS[period]
        asked = await self._store.asked_since(ctx.course_id, since)
        if student:
            asked = [a for a in asked if a.asker_id == student]
        ids = {a.id for a in asked}
        votes = [
            v for v in await self._store.votes_since(ctx.course_id, since) if v.question_id in ids
        ]
        quizzes: list[TopicAccuracy] = []
        if self._quizzes is not None:
            answers = await self._quizzes.since(ctx.course_id, since, student or None)
            quizzes = accuracy_by_topic(answers)
        figures = replace(_figures(period, asked, votes), quizzes=tuple(quizzes))
        open_groups = await self._store.groups(ctx.course_id, answered=False)
        skills: list[SkillCount] = []
        if self._mistakes is not None:
            skills = await self._mistakes.by_skill(ctx.course_id, student=student or None)
        scope = f"{ctx.course_id}, the last {period}" + (f", student {student}" if student else "")
        lines = [
            f"Digest for {scope}:",
            f"{figures.asked} questions: {figures.answered} answered, {figures.declined} "
            f"declined; {figures.helpful} 👍, {figures.unhelpful} 👎.",
        ]
        if figures.reasons:
            said = ", ".join(f"{reason} {count}" for reason, count in figures.reasons)
            lines.append(f"Why 👎: {said}.")
        if figures.topics:
            lines.append("Most asked:")
            lines += [f"  {t.count}× “{t.latest}”" for t in figures.topics]
        if open_groups:
            lines.append(f"Unanswered ({len(open_groups)}, /unanswered lists them all):")
            lines += [f"  #{g.id} {g.count}× “{g.latest}”" for g in open_groups[:TOP]]
        if quizzes:
            lines.append("Quiz accuracy by topic (least right first):")
            lines += [
                f"  {q.topic}: {q.correct} of {q.answers} right ({q.percent}%)"
                for q in quizzes[:TOP]
            ]
        if skills:
            lines.append("Mistakes by skill (all time):")
            lines += [f"  {s.skill}: {s.count}" for s in skills[:TOP]]
        chart = await asyncio.to_thread(_chart, figures, f"Questions — {scope}")
        table = _csv(asked, votes, named=bool(student))
        replies: list[Reply] = [
            Notice("\n".join(lines)),
            DocumentReply("digest.png", chart, "image/png", f"Digest, {scope}"),
            DocumentReply("digest.csv", table, "text/csv", f"Questions, {scope}"),
        ]
        if quizzes:
            replies.append(
                DocumentReply(
                    "quiz-accuracy.csv",
                    _quiz_csv(quizzes),
                    "text/csv",
                    f"Quiz accuracy by topic, {scope}",
                )
            )
        if skills:
            mistakes = await asyncio.to_thread(
                mistakes_by_skill_png, skills, f"Mistakes — {ctx.course_id}"
            )
            replies.append(
                DocumentReply("mistakes-by-skill.png", mistakes, "image/png", "Mistakes by skill")
            )
        return replies


def _figures(period: str, asked: Sequence[Asked], votes: Sequence[Vote]) -> DigestFigures:
    reasons = Counter(v.reason or "no reason given" for v in votes if not v.helpful)
    return DigestFigures(
        period=period,
        asked=len(asked),
        answered=sum(1 for a in asked if a.grounded),
        declined=sum(1 for a in asked if not a.grounded),
        helpful=sum(1 for v in votes if v.helpful),
        unhelpful=sum(1 for v in votes if not v.helpful),
        reasons=tuple(reasons.most_common()),
        topics=tuple(topics(asked)[:TOP]),
    )


def topics(asked: Sequence[Asked]) -> list[Topic]:
    """The questions gathered by similarity (each joins the first topic within
    TOPIC_SIMILARITY of its first question), most asked first."""
    heads: list[np.ndarray] = []
    members: list[list[Asked]] = []
    for question in asked:
        vector = question.vector
        if vector is None:
            continue
        for number, head in enumerate(heads):
            if head.shape == vector.shape and float(head @ vector) >= TOPIC_SIMILARITY:
                members[number].append(question)
                break
        else:
            heads.append(vector)
            members.append([question])
    found = [Topic(len(group), group[-1].question) for group in members]
    return sorted(found, key=lambda t: -t.count)


def _csv(asked: Sequence[Asked], votes: Sequence[Vote], *, named: bool) -> bytes:
    by_question: dict[int, list[Vote]] = {}
    for vote in votes:
        by_question.setdefault(vote.question_id, []).append(vote)
    header = (*CSV_COLUMNS, "student") if named else CSV_COLUMNS
    rows = []
    for question in asked:
        on = by_question.get(question.id, [])
        row = [
            question.created_at.isoformat(),
            question.question,
            "answered" if question.grounded else "declined",
            sum(1 for v in on if v.helpful),
            sum(1 for v in on if not v.helpful),
            "; ".join(v.reason for v in on if not v.helpful and v.reason),
            question.group_id or "",
        ]
        rows.append([*row, question.asker_id] if named else row)
    return csv_bytes(header, rows)


def _quiz_csv(quizzes: Sequence[TopicAccuracy]) -> bytes:
    return csv_bytes(
        QUIZ_CSV_COLUMNS, [[q.topic, q.answers, q.correct, q.percent] for q in quizzes]
    )


def _chart(figures: DigestFigures, title: str) -> bytes:
    """How questions fared and the most asked topics; quiz accuracy per topic when the
    class answered quizzes."""
    if figures.quizzes:
        figure = new_figure(figsize=(14.0, 4.2), dpi=100, layout="constrained")
        outcome, asked, quizzes = figure.subplots(1, 3, width_ratios=(2, 3, 3))
        _quiz_panel(quizzes, figures.quizzes)
    else:
        figure = new_figure(figsize=(10.0, 4.2), dpi=100, layout="constrained")
        outcome, asked = figure.subplots(1, 2, width_ratios=(2, 3))
    from matplotlib.ticker import MaxNLocator  # here, not at import: see core.pictures

    labels = ["answered", "declined", "helpful", "not\nhelpful"]
    values = [figures.answered, figures.declined, figures.helpful, figures.unhelpful]
    bars = outcome.bar(labels, values, color=["#4c72b0", "#c44e52", "#55a868", "#dd8452"])
    outcome.bar_label(bars, padding=2)
    outcome.set_ylim(0, max([*values, 1]) * 1.2)
    outcome.yaxis.set_major_locator(MaxNLocator(integer=True))
    outcome.tick_params(axis="x", labelsize=9)
    outcome.set_title("Questions and votes", loc="left", fontsize=11)
    outcome.spines[["top", "right"]].set_visible(False)
    if figures.topics:
        shown = list(figures.topics)
        names = [_short(t.latest) for t in shown]
        positions = range(len(shown))
        topic_bars = asked.barh(positions, [t.count for t in shown], color="#4c72b0")
        asked.set_yticks(list(positions), names, parse_math=False, fontsize=9)
        asked.invert_yaxis()
        asked.bar_label(topic_bars, padding=2)
        asked.xaxis.set_major_locator(MaxNLocator(integer=True))
        asked.set_title("Most asked", loc="left", fontsize=11)
        asked.spines[["top", "right"]].set_visible(False)
    else:
        asked.set_axis_off()
        asked.text(0.5, 0.5, "No questions asked", ha="center", va="center", color="#666666")
    figure.suptitle(title, x=0.01, ha="left", fontsize=12)
    return png_of(figure)


def _quiz_panel(axes: Any, quizzes: Sequence[TopicAccuracy]) -> None:
    shown = list(quizzes[:TOP])
    positions = range(len(shown))
    bars = axes.barh(positions, [q.percent for q in shown], color="#8172b3")
    axes.set_yticks(list(positions), [_short(q.topic, 30) for q in shown], parse_math=False,
                    fontsize=9)  # fmt: skip
    axes.invert_yaxis()
    axes.bar_label(bars, [f"{q.percent}% of {q.answers}" for q in shown], padding=2, fontsize=9)
    axes.set_xlim(0, 125)
    axes.set_xticks([0, 25, 50, 75, 100])
    axes.set_title("Quiz answers right, by topic", loc="left", fontsize=11)
    axes.spines[["top", "right"]].set_visible(False)


def _short(text: str, chars: int = 45) -> str:
    text = " ".join(text.split())
    return text if len(text) <= chars else text[: chars - 1].rstrip() + "…"
