"""`/exercise TOPIC` offline draws a built-in family only on a subject the course's material
teaches (the study sets' coverage rule), and a topic no family fits names the families that
fit this course. Real index (Qdrant in memory), bundled embedder, real ingestion."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

import pytest
from qdrant_client import AsyncQdrantClient

from core.context import Context
from core.database import create_engine, migrate
from core.errors import BadInputError
from core.exercises import Grader
from core.exercises.families import drawn_instance
from core.generation import MaterialStore
from core.index import ChunkIndex, SparseEncoder
from core.mistakes import MistakeLog
from core.mistakes.outbox import MistakeOutbox
from core.outages import Outages
from core.practice import ExerciseCatalog, PracticeService
from core.practice.fit import FamilyFit
from core.replies import ExerciseSheet
from core.retrieval import Retriever
from core.sessions import MemorySessionStore
from core.study import StudySets
from ingestion import Ingestor, SourceFile

# A history course: its lecture teaches, its syllabus runs the course; no calculus at all
# (its grade is "derived" from the parts: a stem of "derivatives" that lists nothing).
HISTORY_LECTURE = """# Lecture 3: The French Revolution

## The Estates-General

The Estates-General was the assembly of the three orders of French society: the clergy,
the nobility and the Third Estate. Louis XVI summoned it in May 1789 to approve new taxes.

## The storming of the Bastille

On 14 July 1789 a crowd stormed the Bastille, a royal fortress and prison in Paris. The
event became the symbol of the Revolution and its anniversary is France's national day.

## The Declaration of the Rights of Man

The Declaration of the Rights of Man and of the Citizen, adopted in August 1789, states
that men are born and remain free and equal in rights, and that sovereignty rests with
the nation.
"""
HISTORY_SYLLABUS = """# HIST 210: Modern Europe

## Grading

Your final grade is derived from three parts: essays 40%, the midterm exam 25% and the
final exam 35%. Late essays lose 5% per day.

## Office hours

Office hours are on Tuesdays 14:00-15:30 in room 210; e-mail the instructor to meet
at another time.
"""


@dataclass
class Course:
    practice: PracticeService
    fit: FamilyFit


def ask(course: str, user: str = "ana") -> Context:
    return Context(platform="test", course_id=course, user_id=user, chat_id="dm")


@pytest.fixture
async def course(embedder, sample_course: Path, tmp_path: Path) -> AsyncIterator[Course]:
    index = ChunkIndex(AsyncQdrantClient(location=":memory:"), "fit", embedder.dimensions, False)
    await index.ensure()
    sparse = SparseEncoder()
    ingestor = Ingestor(index=index, embedder=embedder, sparse=sparse, max_bytes=1 << 22)
    calculus = [sample_course / "lecture-02-derivatives.pdf", sample_course / "syllabus.md"]
    assert (await ingestor.ingest([SourceFile.at(p) for p in calculus], "calc")).failed == []
    history = tmp_path / "history"
    history.mkdir()
    (history / "lecture-03-revolution.md").write_text(HISTORY_LECTURE)
    (history / "syllabus.md").write_text(HISTORY_SYLLABUS)
    files = [SourceFile.at(p) for p in sorted(history.iterdir())]
    assert (await ingestor.ingest(files, "hist")).failed == []
    url = f"sqlite+aiosqlite:///{tmp_path / 'course.db'}"
    await migrate(url)
    database = create_engine(url)
    retriever = Retriever(index, embedder, sparse)
    fit = FamilyFit(StudySets(retriever, MaterialStore(database), embedder=embedder), retriever)
    store = MemorySessionStore()
    mistakes = MistakeLog(database)
    practice = PracticeService(
        store=store,
        catalog=ExerciseCatalog(index, embedder),
        grader=Grader(),
        outbox=MistakeOutbox(store, "fit", mistakes, Outages()),
        prefix="fit",
        ttl=timedelta(days=1),
        fit=fit,
    )
    yield Course(practice, fit)
    await mistakes.close()
    await index.close()


async def test_a_calculus_course_draws_a_derivative_drill(course: Course) -> None:
    [sheet, *_] = await course.practice.exercise(ask("calc"), "derivatives", "easy")
    assert isinstance(sheet, ExerciseSheet)
    drawn = drawn_instance(sheet.exercise_id)
    assert drawn is not None and drawn.family.topic == "Derivatives"
    [sheet, *_] = await course.practice.exercise(ask("calc", "bo"), "product rule", "hard")
    assert sheet.exercise_id.startswith("product-rule-hard-v")  # type: ignore[union-attr]


async def test_a_history_course_draws_no_calculus_drill_and_says_so_in_one_line(
    course: Course,
) -> None:
    for topic in ("derivatives", "product rule"):
        with pytest.raises(BadInputError) as refused:
            await course.practice.exercise(ask("hist"), topic)
        line = str(refused.value)
        assert line == f"The course material does not cover {topic}; no exercise on it."
    # Nothing was started: the student can ask for anything next.
    assert not await course.practice.in_progress(ask("hist"))
    with pytest.raises(BadInputError, match="does not cover derivatives"):
        await course.practice.generate(ask("hist"), "derivatives")


async def test_a_topic_no_family_fits_names_only_the_families_of_this_course(
    course: Course,
) -> None:
    with pytest.raises(BadInputError) as calc:
        await course.practice.exercise(ask("calc"), "backpropagation")
    line = str(calc.value)
    assert line.startswith("This course has no exercise generator for 'backpropagation' offline;")
    assert "\n" not in line and "product rule" in line
    # Not every family: none of the statistics or machine-learning ones a calculus course lacks.
    assert "softmax" not in line and "z-scores" not in line and "matrix" not in line
    assert len(line.split(": ", 1)[1].split(", ")) <= 3
    with pytest.raises(BadInputError) as hist:
        await course.practice.exercise(ask("hist"), "backpropagation")
    assert str(hist.value) == (
        "This course has no exercise generator for 'backpropagation' offline, and its "
        "material fits none I have."
    )


async def test_every_family_suggested_is_one_the_course_then_draws(course: Course) -> None:
    fitting = await course.fit.fitting(ask("calc"))
    assert fitting
    for family in fitting:
        assert family in await course.fit.offered(ask("calc"), family.names[0], [family])
    assert await course.fit.fitting(ask("hist")) == []
