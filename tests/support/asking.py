"""Asks the real core a question the way an adapter would: one `Request` through `handle`."""

from __future__ import annotations

import uuid

from core.commands import ParsedCommand
from core.context import Audience, Member
from core.course_bot import CourseBot
from core.replies import Answer, Reply
from core.requests import Place, Request


def request(
    text: str,
    user: str = "alice",
    course: str = "sample",
    *,
    shared: bool = False,
    command: ParsedCommand | None = None,
) -> Request:
    audience = Audience.SHARED if shared else Audience.PRIVATE
    return Request(
        Member(platform="test", user_id=user),
        Place(audience, chat_id=f"test:{user}"),
        message_id=f"test:{uuid.uuid4()}",
        text=text,
        command=command,
        course=course,
    )


async def replies(
    core: CourseBot, text: str, user: str = "alice", **options: object
) -> list[Reply]:
    return list((await core.handle(request(text, user, **options))).replies)  # type: ignore[arg-type]


async def ask(core: CourseBot, question: str, user: str = "alice", **options: object) -> Answer:
    """The answer to `question`; fails the test if the reply is anything else."""
    [reply] = await replies(core, "", user, command=ParsedCommand("ask", question), **options)
    assert isinstance(reply, Answer), reply
    return reply
