"""Which course a message is about: the group's binding, or in a direct message the course
the student last used or chose with /course. Bindings live in the core's database."""

from __future__ import annotations

from collections.abc import Awaitable

from telegram import Chat
from telegram.constants import ChatType

from bot.common import wording
from core.context import Member
from core.course_bot import CourseBot
from core.errors import UserFacingError
from core.replies import ErrorReply, Notice, Reply

BIND_IN_GROUPS = (
    "/bind is for groups: add me to the course's group and send /bind COURSE there. "
    "In a direct message, choose your course with /course COURSE."
)
BIND_USAGE = "Which course? Send /bind COURSE, for example /bind calc101."
COURSE_IN_DM = (
    "In a group, questions are about the course the group is bound to (/bind COURSE). "
    "Send /course COURSE to me in a direct message to choose what your direct messages are about."
)


def in_group(chat: Chat) -> bool:
    return chat.type != ChatType.PRIVATE


def chat_key(chat: Chat) -> str:
    return f"chat:{chat.id}"


async def course_for(core: CourseBot, member: Member, chat: Chat) -> str | None:
    keys = (chat_key(chat),) if in_group(chat) else ()
    return await core.course_for(member, keys)


def missing_course(chat: Chat) -> str:
    return wording.UNBOUND_CHAT if in_group(chat) else wording.NO_DM_COURSE


async def bind(core: CourseBot, member: Member, chat: Chat, course: str) -> Reply:
    """`/bind COURSE` in a group (the core checks the member may)."""
    if not in_group(chat):
        return Notice(BIND_IN_GROUPS)
    if not course:
        return ErrorReply(BIND_USAGE)
    return await _user_facing(core.bind(member, chat_key(chat), course, where="This group"))


async def choose(core: CourseBot, member: Member, chat: Chat, course: str) -> Reply:
    """`/course COURSE` in a direct message; without COURSE, says which course is in use."""
    if in_group(chat):
        return Notice(COURSE_IN_DM)
    if course:
        return await _user_facing(core.choose_course(member, course))
    current = await core.course_for(member)
    if current is None:
        return Notice(wording.NO_DM_COURSE)
    return Notice(
        f"Your direct messages are about the course '{current}'. Send /course COURSE to change it."
    )


async def _user_facing(call: Awaitable[Notice]) -> Reply:
    # Anything else is a bug: it reaches the error handler, which logs it and apologises.
    try:
        return await call
    except UserFacingError as error:
        return ErrorReply(str(error))
