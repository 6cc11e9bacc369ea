"""Exam dates read from a syllabus, and the reminders due on a day."""

from __future__ import annotations

import shutil
import subprocess
from datetime import date

import pytest
from support.paths import SAMPLE_COURSE, SHARED_DATASETS

from core.schedules.reminders import ExamDate, due_reminders, exam_dates


def test_the_sample_syllabus_states_its_midterm_and_final() -> None:
    text = (SAMPLE_COURSE / "syllabus.md").read_text(encoding="utf-8")
    assert exam_dates([("syllabus.md", text)]) == [
        ExamDate(date(2026, 10, 15), "Midterm exam", "syllabus.md"),
        ExamDate(date(2026, 12, 14), "Final exam", "syllabus.md"),
    ]


def test_sentences_and_timetable_rows_with_the_year_left_out() -> None:
    text = (
        "Fall 2022. There will be an in-class midterm exam on October 24 and an in-class\n"
        "final exam on December 12.\n"
        "October 4 – Exam 1 (in the lecture hall)\n"
        "10/14 Mid-Term Exam (Lect#1-12)\n"
        "Review for final exam 12/7\n"
        "Exam 2 covers units 3-4, due before class 3/20\n"
        "Letters by 2022-09-28 so arrangements can be made for the midterm\n"
    )
    found = [(e.day, e.label) for e in exam_dates([("syllabus.pdf", text)])]
    assert found == [
        (date(2022, 10, 4), "Exam 1"),
        (date(2022, 10, 14), "Mid-Term Exam"),
        (date(2022, 10, 24), "Midterm exam"),
        (date(2022, 12, 12), "Final exam"),
    ]


def test_reminders_a_week_and_a_day_before() -> None:
    final = ExamDate(date(2026, 12, 14), "Final exam", "syllabus.md")
    assert due_reminders([final], date(2026, 12, 7)) == [
        "Final exam in 7 days: Monday 14 December 2026 (from syllabus.md)."
    ]
    assert due_reminders([final], date(2026, 12, 13)) == [
        "Final exam tomorrow: Monday 14 December 2026 (from syllabus.md)."
    ]
    assert due_reminders([final], date(2026, 12, 10)) == []


def test_real_syllabi_give_dates_in_their_own_term() -> None:
    syllabi = sorted((SHARED_DATASETS / "syllabusqa-dev" / "courses").glob("*/*.pdf"))
    if not syllabi or shutil.which("pdftotext") is None:
        pytest.skip("needs the shared syllabusqa-dev dataset and poppler's pdftotext")
    read = 0
    for pdf in syllabi:
        text = subprocess.run(
            ["pdftotext", "-q", str(pdf), "-"], capture_output=True, text=True, check=False
        ).stdout
        found = exam_dates([(pdf.name, text)])
        read += bool(found)
        # Every date found lies in a year the syllabus names.
        assert all(str(exam.day.year) in text for exam in found), pdf.name
    assert read >= 10  # of 50: the others state no exam date with a day (measured: 11)
