"""What a course id may look like: it is typed by people in chats and appears in keys."""

from __future__ import annotations

import re

from core.errors import BadInputError

_COURSE_ID = re.compile(r"[a-z0-9][a-z0-9._-]{0,63}")


def parse_course_id(text: str) -> str:
    """The course id in `text` (case-folded), or a BadInputError saying what is allowed."""
    course_id = text.strip().lower()
    if not _COURSE_ID.fullmatch(course_id):
        shown = course_id[:40] or "(nothing)"
        raise BadInputError(
            f"'{shown}' is not a course id: use up to 64 letters, digits, '.', '_' or '-', "
            "for example calc101."
        )
    return course_id
