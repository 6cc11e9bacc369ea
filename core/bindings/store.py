"""Course bindings in the SQL database, so every replica and every restart sees them."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

from sqlalchemy import delete, select, union
from sqlalchemy.ext.asyncio import AsyncEngine

from core.bindings.models import ChatBinding, UserCourse
from core.database.upsert import upsert


class CourseBindings:
    def __init__(self, engine: AsyncEngine) -> None:
        self._engine = engine

    async def bind(self, platform: str, chat_id: str, course_id: str, bound_by: str) -> None:
        values = {
            "platform": platform,
            "chat_id": chat_id,
            "course_id": course_id,
            "bound_by": bound_by,
            "bound_at": datetime.now(UTC),
        }
        async with self._engine.begin() as connection:
            await connection.execute(
                upsert(self._engine.dialect.name, ChatBinding, values, ("platform", "chat_id"))
            )

    async def unbind(self, platform: str, chat_id: str) -> bool:
        """Remove the chat's own binding; False when it had none."""
        statement = delete(ChatBinding).where(
            ChatBinding.platform == platform, ChatBinding.chat_id == chat_id
        )
        async with self._engine.begin() as connection:
            return (await connection.execute(statement)).rowcount > 0

    async def bound_course(self, platform: str, chat_ids: Sequence[str]) -> str | None:
        """The course of the first of `chat_ids` that is bound (most specific first)."""
        if not chat_ids:
            return None
        query = select(ChatBinding.chat_id, ChatBinding.course_id).where(
            ChatBinding.platform == platform, ChatBinding.chat_id.in_(chat_ids)
        )
        async with self._engine.connect() as connection:
            bound = {chat: course for chat, course in (await connection.execute(query)).all()}
        return next((bound[chat] for chat in chat_ids if chat in bound), None)

    async def remember_course(self, platform: str, user_id: str, course_id: str) -> None:
        values = {
            "platform": platform,
            "user_id": user_id,
            "course_id": course_id,
            "updated_at": datetime.now(UTC),
        }
        async with self._engine.begin() as connection:
            await connection.execute(
                upsert(self._engine.dialect.name, UserCourse, values, ("platform", "user_id"))
            )

    async def last_course(self, platform: str, user_id: str) -> str | None:
        query = select(UserCourse.course_id).where(
            UserCourse.platform == platform, UserCourse.user_id == user_id
        )
        async with self._engine.connect() as connection:
            return (await connection.execute(query)).scalar_one_or_none()

    async def courses(self, platform: str) -> list[str]:
        """Every course bound or used on `platform`, sorted (for pickers and autocomplete)."""
        query = union(
            select(ChatBinding.course_id).where(ChatBinding.platform == platform),
            select(UserCourse.course_id).where(UserCourse.platform == platform),
        )
        async with self._engine.connect() as connection:
            return sorted((await connection.execute(query)).scalars().all())
