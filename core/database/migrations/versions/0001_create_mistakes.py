"""Create the mistakes table.

Revision ID: 0001
Revises:
Create Date: 2025-01-01 00:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0001"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "mistakes",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("course_id", sa.String(), nullable=False),
        sa.Column("student_id", sa.String(), nullable=False),
        sa.Column("exercise_id", sa.String(), nullable=False),
        sa.Column("step_index", sa.Integer(), nullable=False),
        sa.Column("skill", sa.String(), nullable=False),
        sa.Column("answer", sa.Text(), nullable=False),
        sa.Column("detail", sa.Text(), nullable=False),
        sa.Column("platform", sa.String(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("idempotency_key", sa.String(), nullable=True),
        sa.PrimaryKeyConstraint("id", name="pk_mistakes"),
        sa.UniqueConstraint("idempotency_key", name="uq_mistakes_idempotency_key"),
    )
    op.create_index(
        "ix_mistakes_course_id_skill_created_at", "mistakes", ["course_id", "skill", "created_at"]
    )
    op.create_index(
        "ix_mistakes_course_id_exercise_id_step_index",
        "mistakes",
        ["course_id", "exercise_id", "step_index"],
    )
    op.create_index(
        "ix_mistakes_course_id_student_id_created_at",
        "mistakes",
        ["course_id", "student_id", "created_at"],
    )
    op.create_index("ix_mistakes_course_id_created_at", "mistakes", ["course_id", "created_at"])


def downgrade() -> None:
    op.drop_index("ix_mistakes_course_id_created_at", table_name="mistakes")
    op.drop_index("ix_mistakes_course_id_student_id_created_at", table_name="mistakes")
    op.drop_index("ix_mistakes_course_id_exercise_id_step_index", table_name="mistakes")
    op.drop_index("ix_mistakes_course_id_skill_created_at", table_name="mistakes")
    op.drop_table("mistakes")
