"""The tenant rule, in one place: a request sees its course's public material and, when only
the asker will see the reply, the asker's own private notes; nothing else. Every search and
listing goes through `tenant_filter`, and visibility is derived from ownership here only."""

from __future__ import annotations

from qdrant_client import models

from core.context import Context
from core.index.fields import COURSE_ID, OWNER_ID, VISIBILITY, Visibility


def visibility_of(owner_id: str | None) -> Visibility:
    """A chunk with an owner is that owner's private note; without one it is course material."""
    return Visibility.PRIVATE if owner_id else Visibility.PUBLIC


def is_private(visibility: str | None) -> bool:
    return visibility == Visibility.PRIVATE.value


def _public() -> models.FieldCondition:
    return models.FieldCondition(
        key=VISIBILITY, match=models.MatchValue(value=Visibility.PUBLIC.value)
    )


def _owned_by(owner_id: str) -> models.FieldCondition:
    return models.FieldCondition(key=OWNER_ID, match=models.MatchValue(value=owner_id))


def tenant_filter(ctx: Context, *extra: models.Condition) -> models.Filter:
    """course = ctx.course AND (visibility = public OR (private audience AND owner = ctx.user))
    AND extra... In a shared audience (a group, a channel) nobody's notes are searched."""
    visible: models.Condition = (
        models.Filter(should=[_public(), _owned_by(ctx.user_id)])
        if ctx.private_audience
        else _public()
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


def maintenance_scope(
    course_id: str, owner_id: str | None, *extra: models.Condition
) -> models.Filter:
    """The course's public documents (no owner), or one owner's private ones."""
    return course_filter(course_id, _public() if owner_id is None else _owned_by(owner_id), *extra)
