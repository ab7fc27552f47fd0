"""The tables of the workbench database: runs and their bases, audit steps, agent runs, strategies,
experiments, small settings, and the record of imported legacy files.

Timestamps are ISO-8601 text (UTC), as the result objects carry them; JSON documents are text.
Change a table here only together with a new migration in ``migrations/versions``.
"""

from __future__ import annotations

import re

from sqlalchemy import Boolean, Column, Float, Index, Integer, MetaData, Table, Text
from sqlalchemy.types import TypeDecorator

_SURROGATE = re.compile("[\ud800-\udfff]")


class SafeText(TypeDecorator):
    """Text that every backend accepts: NUL and lone surrogates (which PostgreSQL and UTF-8 reject) become U+FFFD."""

    impl = Text
    cache_ok = True

    def process_bind_param(self, value, dialect):  # noqa: ANN001 - SQLAlchemy's signature
        if isinstance(value, str):
            if "\x00" in value:
                value = value.replace("\x00", "\ufffd")
            if _SURROGATE.search(value):
                value = value.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
        return value


metadata = MetaData(naming_convention={
    "ix": "ix_%(table_name)s_%(column_0_N_name)s", "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "pk": "pk_%(table_name)s",
})

traces = Table(
    "traces", metadata,
    Column("seq", Integer, primary_key=True, autoincrement=True),
    Column("trace_id", SafeText, nullable=False, unique=True),
    Column("created_at", SafeText, nullable=False),
    Column("question", SafeText, nullable=False),
    Column("status", SafeText, nullable=False),
    Column("provider", SafeText, nullable=False, default=""),
    Column("strategy_version", SafeText, nullable=False, default=""),
    Column("iterations", Integer, nullable=False, default=0),
    Column("total_ms", Float, nullable=False, default=0.0),
    Column("reflection", Boolean, nullable=False, default=True),
    Column("mode", SafeText, nullable=False, default=""),
    Column("issue_types", SafeText, nullable=False, default="[]"),
    Column("error", SafeText),
    Column("payload", SafeText, nullable=False),
    Column("user_name", SafeText),
    Column("knowledge_bases", SafeText, nullable=False, default="[]"),
)
Index(None, traces.c.created_at, traces.c.seq)

trace_bases = Table(
    "trace_bases", metadata,
    Column("trace_id", SafeText, primary_key=True),
    Column("knowledge_base", SafeText, primary_key=True),
)

agent_steps = Table(
    "agent_steps", metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("run_id", SafeText, nullable=False),
    Column("step", Integer, nullable=False),
    Column("ts", SafeText, nullable=False),
    Column("user_name", SafeText, nullable=False),
    Column("role", SafeText, nullable=False),
    Column("tool", SafeText, nullable=False),
    Column("arguments", SafeText, nullable=False),
    Column("decision", SafeText, nullable=False),
    Column("duration_ms", Float, nullable=False),
    Column("result_status", SafeText, nullable=False),
    Column("message", SafeText, nullable=False, default=""),
)
Index(None, agent_steps.c.run_id, agent_steps.c.step)

agent_runs = Table(
    "agent_runs", metadata,
    Column("run_id", SafeText, primary_key=True),
    Column("created_at", SafeText, nullable=False),
    Column("updated_at", SafeText, nullable=False),
    Column("user_name", SafeText, nullable=False),
    Column("role", SafeText, nullable=False),
    Column("status", SafeText, nullable=False),
    Column("request", SafeText, nullable=False),
    Column("state", SafeText, nullable=False),
)
Index(None, agent_runs.c.created_at)

strategy_versions = Table(
    "strategy_versions", metadata,
    Column("version", SafeText, primary_key=True),
    Column("saved_at", SafeText, nullable=False),
    Column("name", SafeText, nullable=False, default=""),
    Column("note", SafeText, nullable=False, default=""),
    Column("strategy", SafeText, nullable=False),
)

experiments = Table(
    "experiments", metadata,
    Column("id", SafeText, primary_key=True),
    Column("created_at", SafeText, nullable=False),
    Column("result", SafeText, nullable=False),
)
Index(None, experiments.c.created_at)

app_settings = Table(
    "app_settings", metadata,
    Column("key", SafeText, primary_key=True),
    Column("value", SafeText, nullable=False),
    Column("updated_at", SafeText, nullable=False),
)

legacy_imports = Table(
    "legacy_imports", metadata,
    Column("source", SafeText, primary_key=True),
    Column("imported_at", SafeText, nullable=False),
    Column("rows", Integer, nullable=False),
)
