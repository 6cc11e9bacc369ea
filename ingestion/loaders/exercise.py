"""Guided-exercise definitions (`*.exercise.yaml`): validated at ingestion, indexed as a
searchable summary that carries the exercise's id and source, so a student can start it by
id or find it by topic through the course's retrieval."""

from __future__ import annotations

from pathlib import Path

from core.exercises import ExerciseDefinition, ExerciseFormatError, parse_exercise
from ingestion.documents import Block, DocumentKind, LoadedDocument
from ingestion.errors import InvalidExerciseError
from ingestion.loaders.plain_text import read_text

SUFFIXES = (".exercise.yaml", ".exercise.yml")


def is_exercise_file(file_name: str) -> bool:
    return file_name.lower().endswith(SUFFIXES)


def load_exercise(path: Path, file_name: str, with_images: bool = False) -> LoadedDocument:
    source = read_text(path)
    try:
        definition = parse_exercise(source, file_name)
    except ExerciseFormatError as error:
        raise InvalidExerciseError(str(error)) from None
    return LoadedDocument(
        file_name=file_name,
        title=definition.title,
        blocks=[Block(summary(definition), section=(definition.title,))],
        kind=DocumentKind.GUIDED_EXERCISE,
        exercise_id=definition.id,
        exercise_source=source,
    )


def summary(definition: ExerciseDefinition) -> str:
    """What retrieval matches a topic against: never the answers."""
    lines = [
        f"Guided exercise '{definition.id}': {definition.title}",
        f"Topic: {definition.topic}. Skills: {', '.join(definition.skills)}.",
    ]
    if definition.description:
        lines.append(definition.description)
    lines.extend(f"Step {n}: {step.prompt}" for n, step in enumerate(definition.steps, start=1))
    return "\n".join(lines)
