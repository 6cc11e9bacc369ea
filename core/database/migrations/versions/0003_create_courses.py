"""Create the courses, course_staff and course_members tables.

Courses that were only bound to chats before get a record of their own (created by whoever
bound them first), but no staff: a chat admin's binding grants nothing any more. Site staff
or `coursebot course transfer` give them an instructor.

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-01 00:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "courses",
        sa.Column("course_id", sa.String(), nullable=False),
        sa.Column("title", sa.String(), nullable=False, server_default=""),
        sa.Column("created_by", sa.String(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("open", sa.Boolean(), nullable=False, server_default=sa.false()),
        sa.Column("invite_code", sa.String(), nullable=True),
        sa.PrimaryKeyConstraint("course_id", name="pk_courses"),
        sa.UniqueConstraint("invite_code", name="uq_courses_invite_code"),
    )
    op.create_table(
        "course_staff",
        sa.Column("course_id", sa.String(), nullable=False),
        sa.Column("principal", sa.String(), nullable=False),
        sa.Column("role", sa.String(), nullable=False),
        sa.Column("granted_by", sa.String(), nullable=False),
        sa.Column("granted_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("course_id", "principal", "role", name="pk_course_staff"),
    )
    op.create_table(
        "course_members",
        sa.Column("course_id", sa.String(), nullable=False),
        sa.Column("user_id", sa.String(), nullable=False),
        sa.Column("via", sa.String(), nullable=False),
        sa.Column("joined_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("course_id", "user_id", name="pk_course_members"),
    )
    op.create_index("ix_course_members_user_id", "course_members", ["user_id"])
    op.execute(
        "INSERT INTO courses (course_id, title, created_by, created_at, open) "
        "SELECT course_id, '', MIN(bound_by), MIN(bound_at), false FROM chat_bindings "
        "GROUP BY course_id"
    )


def downgrade() -> None:
    op.drop_index("ix_course_members_user_id", table_name="course_members")
    op.drop_table("course_members")
    op.drop_table("course_staff")
    op.drop_table("courses")
