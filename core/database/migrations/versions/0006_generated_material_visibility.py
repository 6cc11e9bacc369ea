"""Generated material stores its visibility as a column, filled from the JSON it was guessed
from until now: a lesson's `scope` parameter and `private_chunks`, a study set's `audience`
parameter, and any cited source marked `private`. Those parameters leave the cache key (the
visibility column joins it instead, so each row's parameter hash is computed again), and a
lesson's list of cited notes is renamed `cited_notes`.

Revision ID: 0006
Revises: 0005
Create Date: 2027-01-03 00:00:00
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from typing import Any

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TABLE = "generated_material"
CACHE_KEY = "uq_generated_material_cache_key"
OLD_KEY = ["course_id", "owner_id", "kind", "topic", "parameters_hash"]
NEW_KEY = ["course_id", "owner_id", "kind", "topic", "visibility", "parameters_hash"]
# The parameters that said where a set was made, by kind: they are the column now.
WHERE_MADE = {"lesson": "scope"}
STUDY_WHERE_MADE = "audience"

_rows = sa.table(
    TABLE,
    sa.column("id", sa.Integer()),
    sa.column("course_id", sa.String()),
    sa.column("owner_id", sa.String()),
    sa.column("kind", sa.String()),
    sa.column("topic", sa.String()),
    sa.column("visibility", sa.String()),
    sa.column("parameters", sa.JSON()),
    sa.column("parameters_hash", sa.String()),
    sa.column("content", sa.JSON()),
)


def _hash(parameters: Mapping[str, Any]) -> str:
    """`core.generation.store.parameters_hash` as it is at this revision (frozen here)."""
    canonical = json.dumps(parameters, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode()).hexdigest()


def _where_made(kind: str) -> str:
    return WHERE_MADE.get(kind, STUDY_WHERE_MADE)


def _sources(content: dict[str, Any]) -> list[Any]:
    """The sources a stored set cites: an exercise's `sources`, each card's, question's or
    mind-map node's `source`."""
    found: list[Any] = list(content.get("sources") or [])
    for key in ("cards", "items"):
        found += [item.get("source") for item in content.get(key) or [] if isinstance(item, dict)]
    stack = [content.get("root")]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            found.append(node.get("source"))
            stack.extend(node.get("children") or [])
    return found


def visibility_of(kind: str, parameters: Mapping[str, Any], content: Any) -> str:
    """The rule the services applied to the JSON before this revision: a lesson made in a
    private audience, or citing a note, is private; so is a study set made in a private
    audience, and any set citing a private source."""
    content = content if isinstance(content, dict) else {}
    if kind == "lesson":
        private = parameters.get("scope") != "shared" or bool(content.get("private_chunks"))
    else:
        private = parameters.get(STUDY_WHERE_MADE) == "private" or any(
            isinstance(source, dict) and source.get("private") is True
            for source in _sources(content)
        )
    return "private" if private else "public"


def upgrade() -> None:
    with op.batch_alter_table(TABLE, table_kwargs={"sqlite_autoincrement": True}) as batch:
        batch.add_column(sa.Column("visibility", sa.String(), nullable=True))
        # Rows whose parameters differed only in where they were made meet under the old
        # key until the visibility column tells them apart.
        batch.drop_constraint(CACHE_KEY, type_="unique")
    connection = op.get_bind()
    ids = connection.execute(sa.select(_rows.c.id).order_by(_rows.c.id)).scalars().all()
    keys: set[tuple[str, ...]] = set()
    for row_id in ids:  # one row at a time: a lesson's content holds its PDF
        row = connection.execute(sa.select(_rows).where(_rows.c.id == row_id)).one()
        parameters = dict(row.parameters)
        visibility = visibility_of(row.kind, parameters, row.content)
        parameters.pop(_where_made(row.kind), None)
        digest = _hash(parameters)
        key = (row.course_id, row.owner_id, row.kind, row.topic, visibility, digest)
        if key in keys:
            # Two rows now under one key (an old lesson edit and a private one made
            # later): the older keeps its old hash, still listed and sent, never a cache hit.
            digest = row.parameters_hash
        keys.add(key)
        values: dict[str, Any] = {
            "visibility": visibility,
            "parameters": parameters,
            "parameters_hash": digest,
        }
        if isinstance(row.content, dict) and "private_chunks" in row.content:
            content = dict(row.content)
            content["cited_notes"] = content.pop("private_chunks")
            values["content"] = content
        connection.execute(sa.update(_rows).where(_rows.c.id == row_id).values(values))
    with op.batch_alter_table(TABLE, table_kwargs={"sqlite_autoincrement": True}) as batch:
        batch.alter_column("visibility", existing_type=sa.String(), nullable=False)
        batch.create_unique_constraint(CACHE_KEY, NEW_KEY)


def downgrade() -> None:
    with op.batch_alter_table(TABLE, table_kwargs={"sqlite_autoincrement": True}) as batch:
        batch.drop_constraint(CACHE_KEY, type_="unique")
    connection = op.get_bind()
    ids = connection.execute(sa.select(_rows.c.id).order_by(_rows.c.id)).scalars().all()
    for row_id in ids:
        row = connection.execute(sa.select(_rows).where(_rows.c.id == row_id)).one()
        parameters = dict(row.parameters)
        if row.kind == "lesson":
            parameters["scope"] = "private" if row.visibility == "private" else "shared"
        elif row.kind != "exercise":
            parameters[STUDY_WHERE_MADE] = "private" if row.visibility == "private" else "shared"
        values: dict[str, Any] = {"parameters": parameters, "parameters_hash": _hash(parameters)}
        if isinstance(row.content, dict) and "cited_notes" in row.content:
            content = dict(row.content)
            content["private_chunks"] = content.pop("cited_notes")
            values["content"] = content
        connection.execute(sa.update(_rows).where(_rows.c.id == row_id).values(values))
    with op.batch_alter_table(TABLE, table_kwargs={"sqlite_autoincrement": True}) as batch:
        batch.drop_column("visibility")
        batch.create_unique_constraint(CACHE_KEY, OLD_KEY)
