"""Create the schedules and schedule_runs tables (`/schedule`, `coursebot schedule`).

APScheduler's job store tables (`coursebot_jobs_<lane>`) are created by the job store itself
when a scheduler first starts.

Revision ID: 0008
Revises: 0007
Create Date: 2027-01-05 00:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "schedules",
        sa.Column("schedule_id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("course_id", sa.String(), nullable=False),
        sa.Column("kind", sa.String(), nullable=False),
        sa.Column("target", sa.Text(), nullable=False),
        sa.Column("every_s", sa.Integer(), nullable=True),
        sa.Column("weekday", sa.String(), nullable=True),
        sa.Column("at", sa.String(), nullable=True),
        sa.Column("lane", sa.String(), nullable=False),
        sa.Column("platform", sa.String(), nullable=False),
        sa.Column("chat_id", sa.String(), nullable=True),
        sa.Column("place_keys", sa.Text(), nullable=False),
        sa.Column("created_by", sa.String(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("etag", sa.String(), nullable=True),
        sa.Column("last_modified", sa.String(), nullable=True),
        sa.PrimaryKeyConstraint("schedule_id", name="pk_schedules"),
    )
    op.create_index("ix_schedules_course_id", "schedules", ["course_id"])
    op.create_table(
        "schedule_runs",
        sa.Column("run_id", sa.Integer(), autoincrement=True, nullable=False),
        sa.Column("schedule_id", sa.Integer(), nullable=False),
        sa.Column("due_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("outcome", sa.String(), nullable=False),
        sa.Column("detail", sa.Text(), nullable=False),
        sa.Column("runner", sa.String(), nullable=False),
        sa.PrimaryKeyConstraint("run_id", name="pk_schedule_runs"),
        sa.UniqueConstraint("schedule_id", "due_at", name="uq_schedule_runs_schedule_id_due_at"),
    )


def downgrade() -> None:
    op.drop_table("schedule_runs")
    op.drop_index("ix_schedules_course_id", table_name="schedules")
    op.drop_table("schedules")
