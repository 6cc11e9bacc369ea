"""The mistake log of guided exercises: recorded once per message, reviewed by moderators
(counts by skill, exercise step and student, the latest mistakes, a CSV export, a chart)."""

from core.mistakes.chart import mistakes_by_skill_png
from core.mistakes.log import MistakeEntry, MistakeLog, SkillCount, StepCount, StudentCount

__all__ = [
    "MistakeEntry",
    "MistakeLog",
    "SkillCount",
    "StepCount",
    "StudentCount",
    "mistakes_by_skill_png",
]
