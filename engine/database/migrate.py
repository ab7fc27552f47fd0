"""Schema migrations through Alembic; the scripts live in ``engine/database/migrations`` and ship with the package."""

from __future__ import annotations

import logging
from functools import lru_cache
from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Connection, Engine, text
from sqlalchemy.dialects import sqlite
from sqlalchemy.schema import CreateIndex, CreateTable

from engine.database.tables import metadata

log = logging.getLogger(__name__)
MIGRATIONS = Path(__file__).with_name("migrations")
_PG_LOCK_KEY = 0x776B6264  # one advisory lock per database: two processes opening it at once migrate in turn


def alembic_config(connection: Connection | None = None) -> Config:
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    if connection is not None:
        config.attributes["connection"] = connection
    return config


def head_revision() -> str:
    return ScriptDirectory.from_config(alembic_config()).get_current_head()


def current_revision(engine: Engine) -> str | None:
    with engine.connect() as conn:
        return MigrationContext.configure(conn).get_current_revision()


def upgrade(engine: Engine) -> list[str]:
    """Bring the schema to the newest revision; returns the revisions applied ([] when it already was)."""
    head = head_revision()
    with engine.begin() as conn:
        if engine.dialect.name == "postgresql":
            conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": _PG_LOCK_KEY})
        before = MigrationContext.configure(conn).get_current_revision()
        if before == head:
            return []
        script = ScriptDirectory.from_config(alembic_config())
        applied = [rev.revision for rev in script.iterate_revisions(head, before)][::-1]
        log.info("migrating the workbench database from %s to %s", before or "an empty database", head)
        command.upgrade(alembic_config(conn), "head")
    return applied


@lru_cache(maxsize=1)
def _sqlite_ddl() -> str:
    dialect = sqlite.dialect()
    statements = [str(CreateTable(table).compile(dialect=dialect)) for table in metadata.sorted_tables]
    statements += [str(CreateIndex(index).compile(dialect=dialect))
                   for table in metadata.sorted_tables for index in sorted(table.indexes, key=lambda i: i.name)]
    return ";\n".join(statements) + ";"


def create_in_memory(engine: Engine) -> None:
    """The tables of the newest schema, for a throwaway in-memory SQLite database (DDL compiled once per process)."""
    raw = engine.raw_connection()
    try:
        raw.driver_connection.executescript(_sqlite_ddl())
    finally:
        raw.close()
