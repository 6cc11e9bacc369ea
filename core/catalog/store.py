"""The catalog in the SQL database (SQLite or PostgreSQL): each document's course facts and
learning outcomes, replaced or removed with the document so nothing stale is left, students'
profiles, and each course's own rules."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Row, delete, insert, select
from sqlalchemy.ext.asyncio import AsyncEngine

from core.catalog.extract import (
    AssessmentFact,
    CourseFact,
    DocumentVersion,
    OutcomeFact,
    OutcomeKind,
)
from core.catalog.models import (
    CatalogAssessmentRow,
    CatalogCourseRow,
    CatalogOutcomeRow,
    CatalogRulesRow,
    StudentProfileRow,
)
from core.catalog.profile import StudentProfile
from core.catalog.rules import CourseRules
from core.database.upsert import upsert


class CatalogStore:
    def __init__(self, engine: AsyncEngine) -> None:
        self._engine = engine

    async def replace_document(
        self,
        course_id: str,
        document_id: str,
        facts: Sequence[CourseFact],
        outcomes: Sequence[OutcomeFact] = (),
        assessments: Sequence[AssessmentFact] = (),
    ) -> None:
        """The document's facts, outcomes and assessments become these (none removes them),
        in one transaction."""
        async with self._engine.begin() as connection:
            for table in (CatalogCourseRow, CatalogOutcomeRow, CatalogAssessmentRow):
                await connection.execute(
                    delete(table).where(
                        table.course_id == course_id, table.document_id == document_id
                    )
                )
            if facts:
                await connection.execute(
                    insert(CatalogCourseRow),
                    [_values(course_id, document_id, n, f) for n, f in enumerate(facts)],
                )
            if assessments:
                await connection.execute(
                    insert(CatalogAssessmentRow),
                    [_assessment_values(course_id, document_id, n, a)
                     for n, a in enumerate(assessments)],
                )  # fmt: skip
            if outcomes:
                await connection.execute(
                    insert(CatalogOutcomeRow),
                    [_outcome_values(course_id, document_id, n, o) for n, o in enumerate(outcomes)],
                )

    async def forget_document(self, course_id: str, document_id: str) -> None:
        await self.replace_document(course_id, document_id, ())

    async def facts(self, course_id: str) -> list[CourseFact]:
        statement = (
            select(CatalogCourseRow)
            .where(CatalogCourseRow.course_id == course_id)
            .order_by(CatalogCourseRow.document_id, CatalogCourseRow.ordinal)
        )
        async with self._engine.connect() as connection:
            rows = (await connection.execute(statement)).all()
        return [_fact(row) for row in rows]

    async def assessments(self, course_id: str, subjects: Sequence[str]) -> list[AssessmentFact]:
        """The graded parts of the courses `subjects` (codes as the syllabi write them)."""
        statement = (
            select(CatalogAssessmentRow)
            .where(
                CatalogAssessmentRow.course_id == course_id,
                CatalogAssessmentRow.subject.in_(list(subjects)),
            )
            .order_by(CatalogAssessmentRow.document_id, CatalogAssessmentRow.ordinal)
        )
        async with self._engine.connect() as connection:
            rows = (await connection.execute(statement)).all()
        return [
            AssessmentFact(
                course=row.subject, category=row.category, weight=row.weight,
                file_name=row.file_name, document_id=row.document_id, parts=row.parts,
                duration=row.duration, criterion=row.criterion, section=row.section,
                page=row.page, ordinal=row.ordinal,
            )
            for row in rows
        ]  # fmt: skip

    async def outcomes(self, course_id: str) -> list[OutcomeFact]:
        statement = (
            select(CatalogOutcomeRow)
            .where(CatalogOutcomeRow.course_id == course_id)
            .order_by(CatalogOutcomeRow.document_id, CatalogOutcomeRow.ordinal)
        )
        async with self._engine.connect() as connection:
            rows = (await connection.execute(statement)).all()
        return [_outcome(row) for row in rows]

    async def rules(self, course_id: str) -> CourseRules:
        statement = select(CatalogRulesRow).where(CatalogRulesRow.course_id == course_id)
        async with self._engine.connect() as connection:
            row = (await connection.execute(statement)).first()
        return CourseRules() if row is None else CourseRules(ahead_limit=row.ahead_limit)

    async def save_rules(self, course_id: str, rules: CourseRules, set_by: str) -> None:
        values = {
            "course_id": course_id,
            "ahead_limit": rules.ahead_limit,
            "set_by": set_by,
            "updated_at": datetime.now(UTC),
        }
        async with self._engine.begin() as connection:
            await connection.execute(
                upsert(connection.dialect.name, CatalogRulesRow, values, ("course_id",))
            )

    async def profile(self, course_id: str, user_id: str) -> StudentProfile | None:
        statement = select(StudentProfileRow).where(
            StudentProfileRow.course_id == course_id, StudentProfileRow.user_id == user_id
        )
        async with self._engine.connect() as connection:
            row = (await connection.execute(statement)).first()
        if row is None:
            return None
        return StudentProfile(row.semester, tuple(row.passed), tuple(row.failed))

    async def save_profile(self, course_id: str, user_id: str, profile: StudentProfile) -> None:
        async with self._engine.begin() as connection:
            if profile.empty:
                await connection.execute(
                    delete(StudentProfileRow).where(
                        StudentProfileRow.course_id == course_id,
                        StudentProfileRow.user_id == user_id,
                    )
                )
                return
            values = {
                "course_id": course_id,
                "user_id": user_id,
                "semester": profile.semester,
                "passed": list(profile.passed),
                "failed": list(profile.failed),
                "updated_at": datetime.now(UTC),
            }
            await connection.execute(
                upsert(connection.dialect.name, StudentProfileRow, values, ("course_id", "user_id"))
            )


def _values(course_id: str, document_id: str, ordinal: int, fact: CourseFact) -> dict[str, object]:
    return {
        "course_id": course_id,
        "document_id": document_id,
        "ordinal": ordinal,
        "code": fact.code,
        "name": fact.name,
        "aliases": list(fact.aliases),
        "credits": fact.credits,
        "semester": fact.semester,
        "prerequisites": fact.prerequisites,
        "in_plan": fact.in_plan,
        "file_name": fact.file_name,
        "section": fact.section,
        "page": fact.page,
        "version_label": fact.version.label,
        "version_date": fact.version.date,
        "version_intake": fact.version.intake,
        "group_name": fact.group,
        "description": fact.description,
    }


def _assessment_values(
    course_id: str, document_id: str, ordinal: int, assessment: AssessmentFact
) -> dict[str, object]:
    return {
        "course_id": course_id, "document_id": document_id, "ordinal": ordinal,
        "subject": assessment.course, "category": assessment.category,
        "weight": assessment.weight, "parts": assessment.parts,
        "duration": assessment.duration, "criterion": assessment.criterion,
        "file_name": assessment.file_name, "section": assessment.section,
        "page": assessment.page,
    }  # fmt: skip


def _outcome_values(
    course_id: str, document_id: str, ordinal: int, outcome: OutcomeFact
) -> dict[str, object]:
    return {
        "course_id": course_id,
        "document_id": document_id,
        "ordinal": ordinal,
        "kind": outcome.kind.value,
        "code": outcome.code,
        "text": outcome.text,
        "targets": list(outcome.targets),
        "columns": outcome.columns,
        "subject": outcome.course,
        "file_name": outcome.file_name,
        "section": outcome.section,
        "page": outcome.page,
        "version_label": outcome.version.label,
        "version_date": outcome.version.date,
        "version_intake": outcome.version.intake,
    }


def _outcome(row: Row[Any]) -> OutcomeFact:
    return OutcomeFact(
        kind=OutcomeKind(row.kind),
        code=row.code,
        file_name=row.file_name,
        document_id=row.document_id,
        text=row.text,
        targets=tuple(row.targets),
        columns=row.columns,
        course=row.subject,
        section=row.section,
        page=row.page,
        version=DocumentVersion(row.version_date, row.version_intake, row.version_label),
        ordinal=row.ordinal,
    )


def _fact(row: Row[Any]) -> CourseFact:
    """A fact from a row of `catalog_courses` (read as columns, not as an ORM object)."""
    return CourseFact(
        code=row.code,
        name=row.name,
        file_name=row.file_name,
        document_id=row.document_id,
        aliases=tuple(row.aliases),
        credits=row.credits,
        semester=row.semester,
        prerequisites=row.prerequisites,
        section=row.section,
        page=row.page,
        version=DocumentVersion(row.version_date, row.version_intake, row.version_label),
        in_plan=bool(row.in_plan),
        ordinal=row.ordinal,
        group=row.group_name,
        description=row.description,
    )
