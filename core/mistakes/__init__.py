"""The mistake log of guided exercises: recorded once per message, reviewed by moderators
(counts by skill, exercise step and student, the latest mistakes, a CSV export, a chart)."""

from core.mistakes.chart import mistakes_by_skill_png
from core.mistakes.database import (
    async_database_url,
    create_engine,
    create_session_factory,
    database_url_for,
    migrate,
)
from core.mistakes.log import MistakeEntry, MistakeLog, SkillCount, StepCount, StudentCount

__all__ = [
    "MistakeEntry",
    "MistakeLog",
    "SkillCount",
    "StepCount",
    "StudentCount",
    "async_database_url",
    "create_engine",
    "create_session_factory",
    "database_url_for",
    "migrate",
    "mistakes_by_skill_png",
]
