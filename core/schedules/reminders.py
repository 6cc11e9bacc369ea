"""Exam dates a course's material states, and the reminders due on a day.

A date counts when a line of the material names an exam (exam, midterm, final, test) and,
after it, gives a date: `2026-12-14`, `14 December 2026`, `December 14, 2026` or `14/12/2026`
(month first unless it cannot be), a year left out taken from the document: the way a
syllabus's sentence ("a midterm exam on October 24") or timetable row ("October 4 – Exam
1", "10/14 Mid-Term Exam") states one. Lines about a review, what an exam covers or a
deadline are not exam dates."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date

from core.day_mentions import day_mentions

# How many days before an exam the class is reminded.
REMIND_BEFORE = (7, 1)
_EXAM = re.compile(
    r"\b(?:(?:mid-?term|middle|final|end[- ]of[- ]term|resit|make-?up|in-class)\s+)?"
    r"(?:exam(?:ination)?|test)s?(?:\s+(?:[1-9]|I{1,3}|IV)\b)?"
    r"|\bmid-?terms?\b|\bfinals\b",
    re.I,
)
# A line about something else that names an exam: its review, what it covers, a deadline.
_NOT_THE_EXAM = re.compile(r"\b(?:review|covers?|covering|due|submit|letters?)\b", re.I)
_YEARS = re.compile(r"\b(20\d\d)\b")
# A short line that opens with its date, the exam named just after, is a timetable row
# ("October 4 – Exam 1").
_ROW = 80


@dataclass(frozen=True, slots=True, order=True)
class ExamDate:
    day: date
    label: str
    source: str


def exam_dates(passages: Iterable[tuple[str, str]]) -> list[ExamDate]:
    """Every exam date the passages state, once each (under its fullest name: "Midterm
    exam" over "Midterm"), soonest first. `passages` are (file name, text) pairs; a date
    without a year takes the year its document names most."""
    passages = list(passages)
    years: dict[str, Counter[str]] = {}
    for source, text in passages:
        years.setdefault(source, Counter()).update(_YEARS.findall(text))
    found: dict[date, ExamDate] = {}
    for source, text in passages:
        common = years[source].most_common(1)
        year = int(common[0][0]) if common else None
        for line in re.split(r"\n|[.;]\s", text):
            exams = list(_EXAM.finditer(line))
            if not exams or _NOT_THE_EXAM.search(line):
                continue
            for at, day in _dates_in(line, year):
                named = [exam for exam in exams if exam.end() <= at]
                if not named and at <= 12 and exams[0].start() - at <= 30 and len(line) <= _ROW:
                    named = exams[:1]
                if not named:
                    continue
                label = " ".join(named[-1].group().split())
                label = label[0].upper() + label[1:]
                if day not in found or len(label) > len(found[day].label):
                    found[day] = ExamDate(day, label, source)
    return sorted(found.values())


def _dates_in(line: str, year: int | None) -> list[tuple[int, date]]:
    """Each date in `line` (with where it starts) that has a year or can take `year`."""
    days = []
    for mention in day_mentions(line):
        stated = mention.year or year
        if stated is None:
            continue
        try:
            days.append((mention.start, date(stated, mention.month, mention.day)))
        except ValueError:
            continue  # February 29 of a year without one
    return days


def due_reminders(dates: Iterable[ExamDate], today: date) -> list[str]:
    """The reminder lines for `today`: exams a week or a day away."""
    lines = []
    for exam in dates:
        days = (exam.day - today).days
        if days in REMIND_BEFORE:
            when = "tomorrow" if days == 1 else f"in {days} days"
            lines.append(f"{exam.label} {when}: {exam.day:%A %d %B %Y} (from {exam.source}).")
    return lines
