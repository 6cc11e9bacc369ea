"""What `/schedule` and `coursebot schedule add` accept, typed: a kind, what it acts on, and
when (an interval, or a day of the week and a time).

    ingest FOLDER|URL every 1d      re-read a folder, or fetch a file at a URL
    quiz TOPIC mon 09:00            post a quiz poll on TOPIC (`daily 09:00` every day)
    reminders on|off                remind the class of the exam dates the syllabus states
    digest mon 09:00                the week's `/digest`, to the staff member who asked, in
                                    their direct messages"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import timedelta
from enum import StrEnum

from core.commands import SCHEDULE_USAGE
from core.errors import BadInputError

WEEKDAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
DAILY = "daily"
# Reminders are looked at once a day, at this time (the schedule's time zone).
REMINDERS_AT = "08:00"
_INTERVAL = re.compile(r"(\d+(?:\.\d+)?)\s*([smhd])", re.IGNORECASE)
_TIME = re.compile(r"([01]?\d|2[0-3]):([0-5]\d)")
_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}


class ScheduleKind(StrEnum):
    INGEST = "ingest"
    QUIZ = "quiz"
    REMINDERS = "reminders"
    DIGEST = "digest"


@dataclass(frozen=True, slots=True)
class ScheduleSpec:
    """One schedule as asked: `every` (an interval) or `weekday` and `at` (a weekly or,
    with `daily`, a daily time)."""

    kind: ScheduleKind
    target: str = ""
    every: timedelta | None = None
    weekday: str | None = None
    at: str | None = None

    def when(self) -> str:
        if self.every is not None:
            return f"every {describe_interval(self.every)}"
        return f"{self.weekday} {self.at}"

    def describe(self) -> str:
        what = {
            ScheduleKind.INGEST: f"ingest {self.target}",
            ScheduleKind.QUIZ: f"quiz on {self.target}",
            ScheduleKind.REMINDERS: "exam reminders",
            ScheduleKind.DIGEST: "the week's digest",
        }[self.kind]
        return f"{what}, {self.when()}"


def parse_interval(text: str) -> timedelta:
    """`90s`, `15m`, `2h`, `1d` -> timedelta; BadInputError saying what fits otherwise."""
    match = _INTERVAL.fullmatch(text.strip())
    if match is None or float(match.group(1)) <= 0:
        raise BadInputError(f"'{text}' is not an interval like 90s, 15m, 2h or 1d.")
    return timedelta(seconds=float(match.group(1)) * _UNITS[match.group(2).lower()])


def describe_interval(every: timedelta) -> str:
    seconds = int(every.total_seconds())
    for unit in ("d", "h", "m"):
        if seconds % _UNITS[unit] == 0 and seconds >= _UNITS[unit]:
            return f"{seconds // _UNITS[unit]}{unit}"
    return f"{seconds}s"


def parse_schedule(line: str) -> ScheduleSpec:
    """`line` (what follows `/schedule`) as a schedule, or one line saying what fits."""
    words = line.split()
    if not words:
        raise BadInputError(SCHEDULE_USAGE)
    kind = words[0].lower()
    if kind == ScheduleKind.INGEST:
        if len(words) != 4 or words[2].lower() != "every":
            raise BadInputError("Usage: /schedule ingest FOLDER|URL every 1d (or 12h, 30m).")
        return ScheduleSpec(ScheduleKind.INGEST, words[1], every=parse_interval(words[3]))
    if kind == ScheduleKind.QUIZ:
        if len(words) < 4:
            raise BadInputError("Usage: /schedule quiz TOPIC mon 09:00 (or daily 09:00).")
        day, at = words[-2].lower(), words[-1]
        if day not in (*WEEKDAYS, DAILY):
            raise BadInputError(f"'{words[-2]}' is not a day: use {', '.join(WEEKDAYS)} or daily.")
        return ScheduleSpec(
            ScheduleKind.QUIZ, " ".join(words[1:-2]), weekday=day, at=parse_time(at)
        )
    if kind == ScheduleKind.REMINDERS:
        if len(words) != 2 or words[1].lower() not in ("on", "off"):
            raise BadInputError("Usage: /schedule reminders on, or /schedule reminders off.")
        return ScheduleSpec(
            ScheduleKind.REMINDERS, words[1].lower(), weekday=DAILY, at=REMINDERS_AT
        )
    if kind == ScheduleKind.DIGEST:
        if len(words) != 3 or words[1].lower() not in WEEKDAYS:
            raise BadInputError("Usage: /schedule digest mon 09:00 (a day of the week, a time).")
        return ScheduleSpec(ScheduleKind.DIGEST, weekday=words[1].lower(), at=parse_time(words[2]))
    raise BadInputError(SCHEDULE_USAGE)


def parse_time(text: str) -> str:
    match = _TIME.fullmatch(text.strip())
    if match is None:
        raise BadInputError(f"'{text}' is not a time of day like 09:00 or 17:30.")
    return f"{int(match.group(1)):02d}:{match.group(2)}"
