"""Which course a chat or a user's direct messages are about, kept in the database."""

from core.bindings.store import CourseBindings

__all__ = ["CourseBindings"]
