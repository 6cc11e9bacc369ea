"""The tenant filter: a request's searches and listings see its course's public material
and, where the policy lets them (`core.visibility.whose_notes`), the asker's own private
notes; nothing else. Every search and listing goes through `tenant_filter`; which notes an
audience may see, and a chunk's visibility, are the policy's."""

from __future__ import annotations

from qdrant_client import models

from core.context import Context
from core.index.fields import COURSE_ID, OWNER_ID, VISIBILITY
from core.visibility import Visibility, whose_notes


def _public() -> models.FieldCondition:
    return models.FieldCondition(
        key=VISIBILITY, match=models.MatchValue(value=Visibility.PUBLIC.value)
    )


def _owned_by(owner_id: str) -> models.FieldCondition:
    return models.FieldCondition(key=OWNER_ID, match=models.MatchValue(value=owner_id))


def tenant_filter(ctx: Context, *extra: models.Condition) -> models.Filter:
    """course = ctx.course AND (visibility = public OR owner = whose_notes(ctx)) AND extra...
    In a shared audience (a group, a channel) nobody's notes are searched."""
    owner = whose_notes(ctx)
    visible: models.Condition = (
        _public() if owner is None else models.Filter(should=[_public(), _owned_by(owner)])
    )
    return models.Filter(
        must=[
            models.FieldCondition(key=COURSE_ID, match=models.MatchValue(value=ctx.course_id)),
            visible,
            *extra,
        ]
    )


def course_filter(course_id: str, *extra: models.Condition) -> models.Filter:
    """Every chunk of a course, private ones included: for instructors' maintenance only."""
    return models.Filter(
        must=[
            models.FieldCondition(key=COURSE_ID, match=models.MatchValue(value=course_id)),
            *extra,
        ]
    )


def owner_scope(owner_id: str) -> models.Filter:
    """One owner's private documents in every course: for the notes quota only."""
    return models.Filter(must=[_owned_by(owner_id)])


def maintenance_scope(
    course_id: str, owner_id: str | None, *extra: models.Condition
) -> models.Filter:
    """The course's public documents (no owner), or one owner's private ones."""
    return course_filter(course_id, _public() if owner_id is None else _owned_by(owner_id), *extra)
