"""Quiz answers: each student's first answer to each quiz question, for the digest's
accuracy per topic.

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-05 12:40:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0011"
down_revision: str | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "quiz_answers",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("course_id", sa.String(), nullable=False),
        sa.Column("platform", sa.String(), nullable=False),
        sa.Column("student_id", sa.String(), nullable=False),
        sa.Column("quiz_id", sa.Integer(), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("topic", sa.Text(), nullable=False),
        sa.Column("question", sa.Text(), nullable=False),
        sa.Column("correct", sa.Boolean(), nullable=False),
        sa.Column("answered_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_quiz_answers"),
        sa.UniqueConstraint(
            "course_id",
            "quiz_id",
            "number",
            "student_id",
            name="uq_quiz_answers_course_id_quiz_id_number_student_id",
        ),
    )
    op.create_index(
        "ix_quiz_answers_course_id_answered_at", "quiz_answers", ["course_id", "answered_at"]
    )


def downgrade() -> None:
    op.drop_index("ix_quiz_answers_course_id_answered_at", table_name="quiz_answers")
    op.drop_table("quiz_answers")
