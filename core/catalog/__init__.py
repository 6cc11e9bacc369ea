"""The per-course catalog of courses and prerequisites: facts extracted from the material's
tables at ingestion, stored with their source, and the chat's deterministic answers on them
(`/prereq`, `/courseinfo`, `/cantake`, `/profile`, catalog questions)."""

from core.catalog.desk import CatalogDesk
from core.catalog.extract import (
    AssessmentFact,
    CourseFact,
    DocumentVersion,
    OutcomeFact,
    OutcomeKind,
    SourceTable,
    extract_assessments,
    extract_facts,
    extract_outcomes,
)
from core.catalog.graph import Catalog, Course, Outcome, Resolution
from core.catalog.profile import StudentProfile
from core.catalog.rules import CourseRules
from core.catalog.store import CatalogStore

__all__ = [
    "AssessmentFact",
    "Catalog",
    "CatalogDesk",
    "CatalogStore",
    "Course",
    "CourseFact",
    "CourseRules",
    "DocumentVersion",
    "Outcome",
    "OutcomeFact",
    "OutcomeKind",
    "Resolution",
    "SourceTable",
    "StudentProfile",
    "extract_assessments",
    "extract_facts",
    "extract_outcomes",
]
