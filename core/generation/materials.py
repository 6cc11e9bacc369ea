"""`/materials`: the asker's generated material in this course (lessons, exercises,
flashcards, quizzes, mind maps), newest first, and `/materials send ID` to get one again.

Who may see what is `core.visibility`'s, as for every kind elsewhere: only the owner's own
material, only in the course it was made in, and private material (it may quote the
owner's notes) never in a shared audience (it is neither listed nor sent there; a direct
message shows it).
Sending again goes through each kind's own service, so a set arrives exactly as it did the
first time: a lesson's stored PDF, not a new render; a quiz that `/pick` then answers."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from core.context import Context
from core.errors import BadInputError
from core.generation.store import GeneratedMaterial, MaterialKind, MaterialStore
from core.practice.exercise_writer import GENERATED_PREFIX, WrittenExercise
from core.replies import Notice, Reply
from core.visibility import Access, access

# A list longer than this is cut: chat clients fold long messages anyway.
MAX_LISTED = 30
NOTHING_YET = (
    "You have no generated material in this course yet: ask for a /lesson, an /exercise, "
    "/flashcards, a /quiz or a /mindmap."
)
PRIVATE_HERE = (
    "#{id} may quote your private notes, so I only send it where nobody else reads along: "
    "ask me in a direct message."
)


class StoredReplies(Protocol):
    """A service that sends a stored set of its kind again (`LessonService`, `StudyDesk`)."""

    async def replies_for(self, ctx: Context, material_id: int) -> list[Reply] | None: ...


class StoredExercises(Protocol):
    """What the desk needs of `core.practice.exercise_writer.ExerciseWriter`."""

    async def load(self, ctx: Context, exercise_id: str) -> WrittenExercise | None: ...


class MaterialsDesk:
    def __init__(
        self,
        store: MaterialStore,
        *,
        lessons: StoredReplies,
        study: StoredReplies,
        exercises: StoredExercises,
    ) -> None:
        self._store = store
        self._lessons = lessons
        self._study = study
        self._exercises = exercises

    async def command(self, ctx: Context, send: int | None) -> list[Reply]:
        """`/materials` lists, `/materials send ID` sends one again."""
        if send is None:
            return [await self.listing(ctx)]
        return await self.send(ctx, send)

    async def listing(self, ctx: Context) -> Notice:
        rows = await self._store.list(ctx.course_id, ctx.user_id)
        shown = [m for m in rows if access(ctx, m) is Access.HERE]
        held = len(rows) - len(shown)
        if not shown and not held:
            return Notice(NOTHING_YET)
        lines = [_line(m) for m in shown[:MAX_LISTED]]
        if len(shown) > MAX_LISTED:
            lines.append(f"… and {len(shown) - MAX_LISTED} older.")
        if held:
            lines.append(
                f"{held} more may quote your private notes: send /materials in a direct "
                "message to see them."
            )
        if shown:
            lines.append("Send /materials send ID to get one again.")
        return Notice("\n".join(lines), title=f"Your material in {ctx.course_id}")

    async def send(self, ctx: Context, material_id: int) -> list[Reply]:
        material = await self._store.get(material_id)
        allowed = access(ctx, material) if material is not None else Access.NONE
        # Someone else's id, or another course's, reads as no such id: ids reveal nothing.
        if material is None or allowed is Access.NONE:
            raise BadInputError(f"You have no material #{material_id} in this course.")
        if allowed is Access.ELSEWHERE:
            raise BadInputError(PRIVATE_HERE.format(id=material_id))
        replies = await self._replies(ctx, material)
        if not replies:
            raise BadInputError(f"#{material_id} can no longer be sent: ask for a new one.")
        return list(replies)

    async def _replies(self, ctx: Context, material: GeneratedMaterial) -> Sequence[Reply] | None:
        if material.kind is MaterialKind.LESSON:
            return await self._lessons.replies_for(ctx, material.id)
        if material.kind is MaterialKind.EXERCISE:
            exercise_id = f"{GENERATED_PREFIX}{material.id}"
            written = await self._exercises.load(ctx, exercise_id)
            if written is None:
                return None
            return [written.sheet(), Notice(f"Work through it again with /practice {exercise_id}.")]
        return await self._study.replies_for(ctx, material.id)


def _line(material: GeneratedMaterial) -> str:
    parts = [
        f"#{material.id}",
        material.kind.value,
        material.topic,
        f"{material.created_at:%Y-%m-%d}",
    ]
    if material.kind is MaterialKind.LESSON:
        profile = material.parameters.get("profile", "standard")
        version = material.parameters.get("version", 1)
        parts.append(f"{profile} profile, version {version}")
    elif material.kind is MaterialKind.EXERCISE and material.parameters.get("difficulty"):
        parts.append(str(material.parameters["difficulty"]))
    return " · ".join(parts)
