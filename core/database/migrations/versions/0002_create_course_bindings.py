"""Create the chat_bindings and user_courses tables.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-29 00:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "chat_bindings",
        sa.Column("platform", sa.String(), nullable=False),
        sa.Column("chat_id", sa.String(), nullable=False),
        sa.Column("course_id", sa.String(), nullable=False),
        sa.Column("bound_by", sa.String(), nullable=False),
        sa.Column("bound_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("platform", "chat_id", name="pk_chat_bindings"),
    )
    op.create_index("ix_chat_bindings_course_id", "chat_bindings", ["course_id"])
    op.create_table(
        "user_courses",
        sa.Column("platform", sa.String(), nullable=False),
        sa.Column("user_id", sa.String(), nullable=False),
        sa.Column("course_id", sa.String(), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("platform", "user_id", name="pk_user_courses"),
    )


def downgrade() -> None:
    op.drop_table("user_courses")
    op.drop_index("ix_chat_bindings_course_id", table_name="chat_bindings")
    op.drop_table("chat_bindings")
