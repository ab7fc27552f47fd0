"""Statements written once for both backends: insert-or-ignore and insert-or-update (built once, then reused)."""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from sqlalchemy import Connection, Table
from sqlalchemy.dialects import postgresql, sqlite


def _insert(dialect: str, table: Table):
    return (postgresql if dialect == "postgresql" else sqlite).insert(table)


@lru_cache(maxsize=64)
def _ignore(dialect: str, table: Table):
    return _insert(dialect, table).on_conflict_do_nothing()


@lru_cache(maxsize=64)
def _upsert(dialect: str, table: Table, keys: tuple[str, ...], columns: tuple[str, ...]):
    statement = _insert(dialect, table)
    return statement.on_conflict_do_update(index_elements=list(keys),
                                           set_={c: statement.excluded[c] for c in columns})


def insert_ignore(conn: Connection, table: Table, rows: dict[str, Any] | Sequence[dict[str, Any]]) -> None:
    """Insert rows, skipping any whose key is already stored."""
    if rows:
        conn.execute(_ignore(conn.dialect.name, table), rows)


def upsert(conn: Connection, table: Table, row: dict[str, Any], keys: Sequence[str],
           update: Sequence[str] | None = None) -> None:
    """Insert ``row``, or update the stored row with the same ``keys`` (only the ``update`` columns when given)."""
    columns = tuple(update if update is not None else [c for c in row if c not in keys])
    conn.execute(_upsert(conn.dialect.name, table, tuple(keys), columns), row)
