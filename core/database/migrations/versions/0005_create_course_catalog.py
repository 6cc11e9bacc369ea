"""Create the course catalog (course facts extracted from the material's tables, one row per
source document) and the students' profiles (semester, passed and failed courses).

Revision ID: 0005
Revises: 0004
Create Date: 2027-01-02 00:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "catalog_courses",
        sa.Column("course_id", sa.String(), nullable=False),
        sa.Column("document_id", sa.String(), nullable=False),
        sa.Column("ordinal", sa.Integer(), nullable=False),
        sa.Column("code", sa.String(), nullable=False),
        sa.Column("name", sa.String(), nullable=False),
        sa.Column("aliases", sa.JSON(), nullable=False),
        sa.Column("credits", sa.Float(), nullable=True),
        sa.Column("semester", sa.Integer(), nullable=True),
        sa.Column("prerequisites", sa.Text(), nullable=True),
        sa.Column("in_plan", sa.Boolean(), nullable=False),
        sa.Column("file_name", sa.String(), nullable=False),
        sa.Column("section", sa.String(), nullable=False),
        sa.Column("page", sa.Integer(), nullable=True),
        sa.Column("version_label", sa.String(), nullable=False),
        sa.Column("version_date", sa.Date(), nullable=True),
        sa.Column("version_intake", sa.Integer(), nullable=True),
        sa.PrimaryKeyConstraint("course_id", "document_id", "ordinal", name="pk_catalog_courses"),
    )
    op.create_index("ix_catalog_courses_course_id_code", "catalog_courses", ["course_id", "code"])
    op.create_table(
        "student_profiles",
        sa.Column("course_id", sa.String(), nullable=False),
        sa.Column("user_id", sa.String(), nullable=False),
        sa.Column("semester", sa.Integer(), nullable=True),
        sa.Column("passed", sa.JSON(), nullable=False),
        sa.Column("failed", sa.JSON(), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("course_id", "user_id", name="pk_student_profiles"),
    )


def downgrade() -> None:
    op.drop_table("student_profiles")
    op.drop_index("ix_catalog_courses_course_id_code", table_name="catalog_courses")
    op.drop_table("catalog_courses")
