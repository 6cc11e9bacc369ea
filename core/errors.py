"""Errors a user can cause. Adapters turn them into a short, friendly reply, never a traceback."""

from __future__ import annotations


class UserFacingError(Exception):
    """Base class: `str(error)` is the message shown to the user."""


class CourseEmptyError(UserFacingError):
    def __init__(self, course_id: str) -> None:
        super().__init__(
            f"The course '{course_id}' has no material yet, so I have nothing to answer from. "
            "An instructor can add some with /ingest (or `coursebot ingest` on the server)."
        )
        self.course_id = course_id


class UnknownCommandError(UserFacingError):
    def __init__(self, command: str) -> None:
        super().__init__(f"I don't know the command /{command}. Send /help to see what I can do.")
        self.command = command


class BadInputError(UserFacingError):
    """The request is malformed: a missing argument, an unsupported file, a file too large."""


class PermissionDeniedError(UserFacingError):
    def __init__(self, action: str, role: str, message: str | None = None) -> None:
        super().__init__(message or f"Sorry, only a course {role} can {action}.")
        self.action = action
        self.role = role

    @classmethod
    def because(cls, message: str) -> PermissionDeniedError:
        return cls("", "", message)
