"""The tenant rule, in one place: a student sees their course's public material and their own
private notes, nothing else. Every search and listing goes through `tenant_filter`."""

from __future__ import annotations

from qdrant_client import models

from core.context import Context
from core.index.fields import COURSE_ID, OWNER_ID, VISIBILITY, Visibility


def tenant_filter(ctx: Context, *extra: models.Condition) -> models.Filter:
    """course = ctx.course AND (visibility = public OR owner = ctx.user) AND extra..."""
    return models.Filter(
        must=[
            models.FieldCondition(key=COURSE_ID, match=models.MatchValue(value=ctx.course_id)),
            models.Filter(
                should=[
                    models.FieldCondition(
                        key=VISIBILITY, match=models.MatchValue(value=Visibility.PUBLIC.value)
                    ),
                    models.FieldCondition(key=OWNER_ID, match=models.MatchValue(value=ctx.user_id)),
                ]
            ),
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
