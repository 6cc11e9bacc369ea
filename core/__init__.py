"""Platform-free services: retrieval, answers, sessions. Adapters talk to `CourseBot`."""

from core.context import Context, Role
from core.course_bot import CourseBot
from core.errors import UserFacingError

# The factory (core.factory.open_core) is imported from its module: it wires in ingestion,
# which itself builds on core.
__all__ = ["Context", "CourseBot", "Role", "UserFacingError"]
