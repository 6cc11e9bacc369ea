"""The instructor loop: answers given, votes on them, and groups of unanswered questions
with the staff's answers.

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-05 00:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0010"
down_revision: str | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "asked_questions",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("course_id", sa.String(), nullable=False),
        sa.Column("platform", sa.String(), nullable=False),
        sa.Column("asker_id", sa.String(), nullable=False),
        sa.Column("chat_id", sa.String(), nullable=True),
        sa.Column("audience", sa.String(), nullable=False),
        sa.Column("question", sa.Text(), nullable=False),
        sa.Column("answer", sa.Text(), nullable=False),
        sa.Column("sources", sa.Text(), nullable=False),
        sa.Column("grounded", sa.Boolean(), nullable=False),
        sa.Column("vector", sa.LargeBinary(), nullable=True),
        sa.Column("group_id", sa.Integer(), nullable=True),
        sa.Column("told", sa.Boolean(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_asked_questions"),
    )
    op.create_index(
        "ix_asked_questions_course_id_created_at", "asked_questions", ["course_id", "created_at"]
    )
    op.create_index(
        "ix_asked_questions_course_id_asker_id_id",
        "asked_questions",
        ["course_id", "asker_id", "id"],
    )
    op.create_index("ix_asked_questions_group_id", "asked_questions", ["group_id"])
    op.create_table(
        "answer_votes",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("question_id", sa.Integer(), nullable=False),
        sa.Column("course_id", sa.String(), nullable=False),
        sa.Column("voter_id", sa.String(), nullable=False),
        sa.Column("helpful", sa.Boolean(), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("voted_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_answer_votes"),
        sa.UniqueConstraint("question_id", "voter_id", name="uq_answer_votes_question_id_voter_id"),
    )
    op.create_index("ix_answer_votes_course_id_voted_at", "answer_votes", ["course_id", "voted_at"])
    op.create_table(
        "question_groups",
        sa.Column("id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("course_id", sa.String(), nullable=False),
        sa.Column("centroid", sa.LargeBinary(), nullable=False),
        sa.Column("answer", sa.Text(), nullable=False),
        sa.Column("answered_by", sa.String(), nullable=False),
        sa.Column("answered_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_question_groups"),
    )
    op.create_index(
        "ix_question_groups_course_id_answered_at",
        "question_groups",
        ["course_id", "answered_at"],
    )


def downgrade() -> None:
    op.drop_index("ix_question_groups_course_id_answered_at", table_name="question_groups")
    op.drop_table("question_groups")
    op.drop_index("ix_answer_votes_course_id_voted_at", table_name="answer_votes")
    op.drop_table("answer_votes")
    op.drop_index("ix_asked_questions_group_id", table_name="asked_questions")
    op.drop_index("ix_asked_questions_course_id_asker_id_id", table_name="asked_questions")
    op.drop_index("ix_asked_questions_course_id_created_at", table_name="asked_questions")
    op.drop_table("asked_questions")
