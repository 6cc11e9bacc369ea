"""Insert-or-update in one statement, on the two databases coursebot runs on."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Insert
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import DeclarativeBase


def upsert(
    dialect: str, model: type[DeclarativeBase], values: dict[str, Any], keys: Sequence[str]
) -> Insert:
    """INSERT `values`, or UPDATE the row with the same `keys` to them."""
    module = postgresql if dialect == "postgresql" else sqlite
    statement = module.insert(model).values(values)
    changed = {name: statement.excluded[name] for name in values if name not in keys}
    return statement.on_conflict_do_update(index_elements=list(keys), set_=changed)
