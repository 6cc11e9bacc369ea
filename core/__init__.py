"""Platform-free services: retrieval, answers, sessions. Adapters talk to `CourseBot`."""

from core.context import Context, Role
from core.course_bot import CourseBot
from core.errors import UserFacingError

# The composition root that builds the core from settings lives in bot/composition.py.
__all__ = ["Context", "CourseBot", "Role", "UserFacingError"]
