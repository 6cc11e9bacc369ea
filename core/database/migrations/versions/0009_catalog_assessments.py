"""The catalog reads a syllabus's assessment table: each graded part of a course (category,
weight, parts, duration, completion criterion), replaced with its document.

Revision ID: 0009
Revises: 0008
Create Date: 2027-01-05 00:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0009"
down_revision: str | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "catalog_assessments",
        sa.Column("course_id", sa.String(), nullable=False),
        sa.Column("document_id", sa.String(), nullable=False),
        sa.Column("ordinal", sa.Integer(), nullable=False),
        sa.Column("subject", sa.String(), nullable=False),
        sa.Column("category", sa.String(), nullable=False),
        sa.Column("weight", sa.String(), nullable=False),
        sa.Column("parts", sa.String(), nullable=False),
        sa.Column("duration", sa.Text(), nullable=False),
        sa.Column("criterion", sa.String(), nullable=False),
        sa.Column("file_name", sa.String(), nullable=False),
        sa.Column("section", sa.String(), nullable=False),
        sa.Column("page", sa.Integer(), nullable=True),
        sa.PrimaryKeyConstraint(
            "course_id", "document_id", "ordinal", name="pk_catalog_assessments"
        ),
    )


def downgrade() -> None:
    op.drop_table("catalog_assessments")
