"""Courses as records with their own staff and members, kept in the database."""

from core.courses.ids import parse_course_id
from core.courses.registry import Course, CourseRegistry, StaffGrant

__all__ = ["Course", "CourseRegistry", "StaffGrant", "parse_course_id"]
