"""The instructor loop's rows, read and written through the shared async engine. Every query
names its course: nothing of one course is ever read for another."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import numpy as np
from sqlalchemy import Row, case, delete, func, insert, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncEngine

from core.feedback.models import AnswerVote, AskedQuestion, QuestionGroup

MAX_TEXT_CHARS = 4000


@dataclass(frozen=True, slots=True)
class NewAsked:
    course_id: str
    platform: str
    asker_id: str
    chat_id: str | None
    audience: str
    question: str
    answer: str
    sources: tuple[str, ...]
    grounded: bool
    vector: np.ndarray | None
    at: datetime


@dataclass(frozen=True, slots=True)
class Asked:
    id: int
    course_id: str
    asker_id: str
    platform: str
    audience: str
    question: str
    answer: str
    grounded: bool
    vector: np.ndarray | None
    group_id: int | None
    told: bool
    created_at: datetime


@dataclass(frozen=True, slots=True)
class Vote:
    question_id: int
    voter_id: str
    helpful: bool
    reason: str
    voted_at: datetime


@dataclass(frozen=True, slots=True)
class Group:
    """A group of questions: how many, the latest wording, and the staff's answer if any."""

    id: int
    course_id: str
    centroid: np.ndarray
    count: int
    latest: str
    latest_at: datetime
    declined: int
    answer: str = ""
    answered_by: str = ""
    answered_at: datetime | None = None

    @property
    def answered(self) -> bool:
        return self.answered_at is not None


class FeedbackStore:
    def __init__(self, engine: AsyncEngine) -> None:
        self._engine = engine

    # Answers ---------------------------------------------------------------------------

    async def record(self, new: NewAsked) -> int:
        values = {
            "course_id": new.course_id,
            "platform": new.platform,
            "asker_id": new.asker_id,
            "chat_id": new.chat_id,
            "audience": new.audience,
            "question": new.question[:MAX_TEXT_CHARS],
            "answer": new.answer[:MAX_TEXT_CHARS],
            "sources": "\n".join(new.sources),
            "grounded": new.grounded,
            "vector": _bytes(new.vector),
            "told": False,
            "created_at": new.at,
        }
        async with self._engine.begin() as connection:
            result = await connection.execute(
                insert(AskedQuestion).values(values).returning(AskedQuestion.id)
            )
            return int(result.scalar_one())

    async def asked(self, question_id: int) -> Asked | None:
        statement = select(AskedQuestion).where(AskedQuestion.id == question_id)
        async with self._engine.connect() as connection:
            row = (await connection.execute(statement)).first()
        return _asked(row) if row is not None else None

    async def last_asked(self, course_id: str, asker_id: str) -> Asked | None:
        statement = (
            select(AskedQuestion)
            .where(AskedQuestion.course_id == course_id, AskedQuestion.asker_id == asker_id)
            .order_by(AskedQuestion.id.desc())
            .limit(1)
        )
        async with self._engine.connect() as connection:
            row = (await connection.execute(statement)).first()
        return _asked(row) if row is not None else None

    async def asked_since(self, course_id: str, since: datetime) -> list[Asked]:
        statement = (
            select(AskedQuestion)
            .where(AskedQuestion.course_id == course_id, AskedQuestion.created_at >= since)
            .order_by(AskedQuestion.id)
        )
        async with self._engine.connect() as connection:
            rows = (await connection.execute(statement)).all()
        return [_asked(row) for row in rows]

    # Votes -----------------------------------------------------------------------------

    async def vote(self, asked: Asked, voter_id: str, helpful: bool, reason: str) -> None:
        """`voter_id`'s vote on `asked`, replacing their earlier one."""
        now = datetime.now(UTC)
        values = {"helpful": helpful, "reason": reason[:MAX_TEXT_CHARS], "voted_at": now}
        mine = (AnswerVote.question_id == asked.id, AnswerVote.voter_id == voter_id)
        async with self._engine.begin() as connection:
            changed = await connection.execute(update(AnswerVote).where(*mine).values(values))
            if changed.rowcount:
                return
            try:
                async with connection.begin_nested():
                    await connection.execute(
                        insert(AnswerVote).values(
                            question_id=asked.id,
                            course_id=asked.course_id,
                            voter_id=voter_id,
                            **values,
                        )
                    )
            except IntegrityError:  # a press of the same person racing this one
                await connection.execute(update(AnswerVote).where(*mine).values(values))

    async def votes_on(self, question_id: int) -> list[Vote]:
        statement = select(AnswerVote).where(AnswerVote.question_id == question_id)
        async with self._engine.connect() as connection:
            rows = (await connection.execute(statement)).all()
        return [_vote(row) for row in rows]

    async def votes_since(self, course_id: str, since: datetime) -> list[Vote]:
        statement = select(AnswerVote).where(
            AnswerVote.course_id == course_id, AnswerVote.voted_at >= since
        )
        async with self._engine.connect() as connection:
            rows = (await connection.execute(statement)).all()
        return [_vote(row) for row in rows]

    # Groups ----------------------------------------------------------------------------

    async def groups(self, course_id: str, *, answered: bool | None = None) -> list[Group]:
        """The course's groups with their counts, most asked first (then the latest)."""
        where = [QuestionGroup.course_id == course_id]
        if answered is not None:
            where.append(
                QuestionGroup.answered_at.is_not(None)
                if answered
                else QuestionGroup.answered_at.is_(None)
            )
        members = (
            select(
                AskedQuestion.group_id,
                func.count().label("asked"),
                func.sum(case((AskedQuestion.grounded.is_(False), 1), else_=0)).label("declined"),
                func.max(AskedQuestion.id).label("latest_id"),
            )
            .where(AskedQuestion.course_id == course_id, AskedQuestion.group_id.is_not(None))
            .group_by(AskedQuestion.group_id)
            .subquery()
        )
        statement = (
            select(QuestionGroup, members.c.asked, members.c.declined, AskedQuestion.question,
                   AskedQuestion.created_at.label("latest_at"))
            .join(members, members.c.group_id == QuestionGroup.id)
            .join(AskedQuestion, AskedQuestion.id == members.c.latest_id)
            .where(*where)
        )  # fmt: skip
        async with self._engine.connect() as connection:
            rows = (await connection.execute(statement)).all()
        groups = [_group(row) for row in rows]
        return sorted(groups, key=lambda g: (-g.count, -g.latest_at.timestamp(), g.id))

    async def group(self, course_id: str, group_id: int) -> Group | None:
        return next((g for g in await self.groups(course_id) if g.id == group_id), None)

    async def join(self, asked: Asked, group_id: int | None, centroid: np.ndarray) -> int:
        """Put `asked` in `group_id` (None: a new group) whose centroid becomes `centroid`."""
        async with self._engine.begin() as connection:
            if group_id is None:
                result = await connection.execute(
                    insert(QuestionGroup)
                    .values(
                        course_id=asked.course_id,
                        centroid=_bytes(centroid),
                        answer="",
                        answered_by="",
                        created_at=datetime.now(UTC),
                    )
                    .returning(QuestionGroup.id)
                )
                group_id = int(result.scalar_one())
            else:
                await connection.execute(
                    update(QuestionGroup)
                    .where(QuestionGroup.id == group_id)
                    .values(centroid=_bytes(centroid))
                )
            await connection.execute(
                update(AskedQuestion).where(AskedQuestion.id == asked.id).values(group_id=group_id)
            )
        return group_id

    async def leave(self, asked: Asked) -> None:
        """Take `asked` out of its group (its 👎 taken back); an empty group goes."""
        if asked.group_id is None:
            return
        async with self._engine.begin() as connection:
            await connection.execute(
                update(AskedQuestion).where(AskedQuestion.id == asked.id).values(group_id=None)
            )
            left = await connection.execute(
                select(func.count()).where(AskedQuestion.group_id == asked.group_id)
            )
            if left.scalar_one() == 0:
                await connection.execute(
                    delete(QuestionGroup).where(QuestionGroup.id == asked.group_id)
                )

    async def answer_group(
        self, course_id: str, group_id: int, text: str | None, by: str, at: datetime | None
    ) -> None:
        """Set (or with `text` None, remove) the staff's answer to a group; the askers are to
        be told again."""
        async with self._engine.begin() as connection:
            await connection.execute(
                update(QuestionGroup)
                .where(QuestionGroup.course_id == course_id, QuestionGroup.id == group_id)
                .values(answer=text or "", answered_by=by if text else "", answered_at=at)
            )
            await connection.execute(
                update(AskedQuestion)
                .where(AskedQuestion.course_id == course_id, AskedQuestion.group_id == group_id)
                .values(told=False)
            )

    async def members(self, course_id: str, group_id: int) -> list[Asked]:
        statement = (
            select(AskedQuestion)
            .where(AskedQuestion.course_id == course_id, AskedQuestion.group_id == group_id)
            .order_by(AskedQuestion.id)
        )
        async with self._engine.connect() as connection:
            rows = (await connection.execute(statement)).all()
        return [_asked(row) for row in rows]

    async def untold(self, course_id: str, asker_id: str) -> list[tuple[Asked, Group]]:
        """`asker_id`'s questions in answered groups that they have not been told about."""
        statement = (
            select(AskedQuestion)
            .join(QuestionGroup, QuestionGroup.id == AskedQuestion.group_id)
            .where(
                AskedQuestion.course_id == course_id,
                AskedQuestion.asker_id == asker_id,
                AskedQuestion.told.is_(False),
                QuestionGroup.answered_at.is_not(None),
            )
            .order_by(AskedQuestion.id)
        )
        async with self._engine.connect() as connection:
            rows = (await connection.execute(statement)).all()
        found = []
        for row in rows:
            asked = _asked(row)
            group = await self.group(course_id, asked.group_id or 0)
            if group is not None:
                found.append((asked, group))
        return found

    async def mark_told(self, question_ids: Sequence[int]) -> None:
        if not question_ids:
            return
        async with self._engine.begin() as connection:
            await connection.execute(
                update(AskedQuestion)
                .where(AskedQuestion.id.in_(list(question_ids)))
                .values(told=True)
            )


def _bytes(vector: np.ndarray | None) -> bytes | None:
    return None if vector is None else np.asarray(vector, dtype=np.float32).tobytes()


def _vector(data: bytes | None) -> np.ndarray | None:
    return None if data is None else np.frombuffer(data, dtype=np.float32)


def _utc(value: datetime) -> datetime:
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def _asked(row: Row[Any]) -> Asked:
    return Asked(
        id=row.id,
        course_id=row.course_id,
        asker_id=row.asker_id,
        platform=row.platform,
        audience=row.audience,
        question=row.question,
        answer=row.answer,
        grounded=bool(row.grounded),
        vector=_vector(row.vector),
        group_id=row.group_id,
        told=bool(row.told),
        created_at=_utc(row.created_at),
    )


def _vote(row: Row[Any]) -> Vote:
    return Vote(row.question_id, row.voter_id, bool(row.helpful), row.reason, _utc(row.voted_at))


def _group(row: Row[Any]) -> Group:
    centroid = _vector(row.centroid)
    return Group(
        id=row.id,
        course_id=row.course_id,
        centroid=centroid if centroid is not None else np.zeros(0, dtype=np.float32),
        count=int(row.asked),
        latest=row.question,
        latest_at=_utc(row.latest_at),
        declined=int(row.declined or 0),
        answer=row.answer,
        answered_by=row.answered_by,
        answered_at=_utc(row.answered_at) if row.answered_at is not None else None,
    )
