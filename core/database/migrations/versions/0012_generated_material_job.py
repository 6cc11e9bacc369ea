"""Generated material records the background job that saved it, at most one set per job: a
job retried after it saved (its worker died before the job was marked complete) finds that
set and serves it instead of saving another.

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-05 16:40:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0012"
down_revision: str | None = "0011"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TABLE = "generated_material"
JOB_KEY = "uq_generated_material_job_id"


def upgrade() -> None:
    # Rows saved before this revision (and outside jobs) have none: NULLs never collide.
    with op.batch_alter_table(TABLE, table_kwargs={"sqlite_autoincrement": True}) as batch:
        batch.add_column(sa.Column("job_id", sa.String(), nullable=True))
        batch.create_unique_constraint(JOB_KEY, ["job_id"])


def downgrade() -> None:
    with op.batch_alter_table(TABLE, table_kwargs={"sqlite_autoincrement": True}) as batch:
        batch.drop_constraint(JOB_KEY, type_="unique")
        batch.drop_column("job_id")
