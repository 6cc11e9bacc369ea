"""The catalog reads more of the material's tables: a course's group (the heading of a combo's
course list) and description, learning outcomes and their maps (`catalog_outcomes`), and a
course's own academic rules, set by its instructor (`catalog_rules`).

Revision ID: 0007
Revises: 0006
Create Date: 2027-01-04 00:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("catalog_courses") as batch:
        batch.add_column(sa.Column("group_name", sa.String(), nullable=False, server_default=""))
        batch.add_column(sa.Column("description", sa.Text(), nullable=False, server_default=""))
    op.create_table(
        "catalog_outcomes",
        sa.Column("course_id", sa.String(), nullable=False),
        sa.Column("document_id", sa.String(), nullable=False),
        sa.Column("ordinal", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(), nullable=False),
        sa.Column("code", sa.String(), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("targets", sa.JSON(), nullable=False),
        sa.Column("columns", sa.Integer(), nullable=False),
        sa.Column("subject", sa.String(), nullable=False),
        sa.Column("file_name", sa.String(), nullable=False),
        sa.Column("section", sa.String(), nullable=False),
        sa.Column("page", sa.Integer(), nullable=True),
        sa.Column("version_label", sa.String(), nullable=False),
        sa.Column("version_date", sa.Date(), nullable=True),
        sa.Column("version_intake", sa.Integer(), nullable=True),
        sa.PrimaryKeyConstraint("course_id", "document_id", "ordinal", name="pk_catalog_outcomes"),
    )
    op.create_table(
        "catalog_rules",
        sa.Column("course_id", sa.String(), nullable=False),
        sa.Column("ahead_limit", sa.Integer(), nullable=True),
        sa.Column("set_by", sa.String(), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("course_id", name="pk_catalog_rules"),
    )


def downgrade() -> None:
    op.drop_table("catalog_rules")
    op.drop_table("catalog_outcomes")
    with op.batch_alter_table("catalog_courses") as batch:
        batch.drop_column("description")
        batch.drop_column("group_name")
