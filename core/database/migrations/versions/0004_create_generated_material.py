"""Create the generated_material table: exercises, flashcards, quizzes, mind maps and lessons
a model wrote, cached per course, owner, kind, normalised topic and parameters.

Revision ID: 0004
Revises: 0003
Create Date: 2027-01-01 00:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "generated_material",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("course_id", sa.String(), nullable=False),
        sa.Column("owner_id", sa.String(), nullable=False),
        sa.Column("kind", sa.String(), nullable=False),
        sa.Column("topic", sa.String(), nullable=False),
        sa.Column("parameters", sa.JSON(), nullable=False),
        sa.Column("parameters_hash", sa.String(), nullable=False),
        sa.Column("seed", sa.Integer(), nullable=True),
        sa.Column("content", sa.JSON(), nullable=False),
        sa.Column("source_chunks", sa.JSON(), nullable=False),
        sa.Column("model", sa.String(), nullable=False),
        sa.Column("grounded", sa.Boolean(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_generated_material"),
        sa.UniqueConstraint(
            "course_id",
            "owner_id",
            "kind",
            "topic",
            "parameters_hash",
            name="uq_generated_material_cache_key",
        ),
        sqlite_autoincrement=True,  # a replaced set's id is never handed out again
    )


def downgrade() -> None:
    op.drop_table("generated_material")
