"""Platform-free services: retrieval, answers, sessions. Adapters talk to `CourseBot`."""

from core.context import Context, Role
from core.course_bot import CourseBot
from core.errors import UserFacingError
from core.factory import open_core

__all__ = ["Context", "CourseBot", "Role", "UserFacingError", "open_core"]
