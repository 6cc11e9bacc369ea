"""Schedules from the chat: what happens on a timetable, and each run's outcome."""

from core.schedules.desk import ScheduleDesk, ScheduleRules, is_url
from core.schedules.spec import ScheduleKind, ScheduleSpec, parse_interval, parse_schedule
from core.schedules.store import (
    INGEST_LANE,
    NewSchedule,
    Outcome,
    Schedule,
    ScheduleRun,
    ScheduleStore,
)

__all__ = [
    "INGEST_LANE",
    "NewSchedule",
    "Outcome",
    "Schedule",
    "ScheduleDesk",
    "ScheduleKind",
    "ScheduleRules",
    "ScheduleRun",
    "ScheduleSpec",
    "ScheduleStore",
    "is_url",
    "parse_interval",
    "parse_schedule",
]
