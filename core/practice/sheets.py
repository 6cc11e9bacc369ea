"""The exercise sheet of a course exercise (or a drawn instance of a parametric one): its
statement and a worked solution made of each step's solution or expected answer."""

from __future__ import annotations

from core.exercises import ExerciseDefinition
from core.replies import Citation, ExerciseSheet

PARAMETRIC_NOTE = "Drawn from the course's exercise; its answers are computed from these values."
FAMILY_NOTE = "Drawn for you at the {level} level; every answer was computed with sympy."


def worked_solution(definition: ExerciseDefinition) -> str:
    lines = []
    for number, step in enumerate(definition.steps, 1):
        shown = step.solution or step.answer.expected_text()
        lines.append(f"Step {number}: {shown}")
    return "\n".join(lines)


def course_sheet(
    definition: ExerciseDefinition, file_name: str, *, drawn: bool = False
) -> ExerciseSheet:
    """`drawn`: an instance of a parametric exercise, whose answers sympy computed."""
    return ExerciseSheet(
        exercise_id=definition.id,
        title=definition.title,
        statement=definition.description or definition.title,
        solution=worked_solution(definition),
        sources=(Citation(file_name=file_name),),
        verified=drawn,
        note=PARAMETRIC_NOTE if drawn else "",
    )


def family_sheet(definition: ExerciseDefinition, level: str) -> ExerciseSheet:
    """The sheet of a built-in family's draw: no course file to cite, answers computed."""
    return ExerciseSheet(
        exercise_id=definition.id,
        title=definition.title,
        statement=definition.description or definition.title,
        solution=worked_solution(definition),
        verified=True,
        note=FAMILY_NOTE.format(level=level),
    )
