"""Tables of course bindings: which course a chat is bound to, and the course a user last
used (what their direct messages are about)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Index, String
from sqlalchemy.orm import Mapped, mapped_column

from core.database.base import Base, UTCDateTime


class ChatBinding(Base):
    """A chat (Telegram group, Discord channel or server) bound to a course."""

    __tablename__ = "chat_bindings"

    platform: Mapped[str] = mapped_column(String, primary_key=True)
    chat_id: Mapped[str] = mapped_column(String, primary_key=True)
    course_id: Mapped[str] = mapped_column(String, nullable=False)
    bound_by: Mapped[str] = mapped_column(String, nullable=False)
    bound_at: Mapped[datetime] = mapped_column(UTCDateTime, nullable=False)

    __table_args__ = (Index(None, "course_id"),)


class UserCourse(Base):
    """The course a user last used on a platform; their DMs are about it."""

    __tablename__ = "user_courses"

    platform: Mapped[str] = mapped_column(String, primary_key=True)
    user_id: Mapped[str] = mapped_column(String, primary_key=True)
    course_id: Mapped[str] = mapped_column(String, nullable=False)
    updated_at: Mapped[datetime] = mapped_column(UTCDateTime, nullable=False)
