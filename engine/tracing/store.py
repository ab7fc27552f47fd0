"""Every pipeline run, failed ones too, stored in the workbench database (see :mod:`engine.database`)."""

from __future__ import annotations

import json
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlalchemy import and_, exists, func, not_, or_, select

from engine.database import Database, open_database
from engine.database.tables import trace_bases, traces
from engine.database.trace_rows import replace_trace, trace_row
from engine.errors import EngineError
from engine.redaction import redact_strings, redact_text

if TYPE_CHECKING:
    from engine.config import Settings

@dataclass(frozen=True)
class TraceSummary:
    trace_id: str
    created_at: str
    question: str
    status: str
    provider: str
    strategy_version: str
    iterations: int
    total_ms: float
    reflection: bool
    mode: str
    issue_types: list[str]
    error: str | None
    user: str | None = None
    knowledge_bases: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


class TraceStore:
    """Append and read pipeline runs."""

    def __init__(self, target: "Database | Settings | Path | str") -> None:
        self.db = open_database(target)

    def save(self, payload: dict[str, Any], error: str | None = None) -> str:
        """Store one run (the Answer as JSON plus searchable columns); returns its trace id. Credentials are redacted."""
        payload, error = redact_strings(payload), redact_text(error) if error else error
        with self.db.begin() as conn:
            replace_trace(conn, trace_row(payload, error))
        return payload["trace_id"]

    def list(self, limit: int = 50, status: str | None = None, provider: str | None = None,
             strategy_version: str | None = None, since: str | None = None, issue_type: str | None = None,
             *, offset: int = 0, readable: Collection[str] | None = None, user: str | None = None,
             ) -> list[TraceSummary]:
        """Newest runs first, optionally filtered; ``readable``/``user``: only runs that viewer may see."""
        where = visibility(readable, user)
        for column, value in (("status", status), ("provider", provider), ("strategy_version", strategy_version)):
            if value:
                where.append(traces.c[column] == value)
        if since:
            where.append(traces.c.created_at >= since)
        if issue_type:
            where.append(traces.c.issue_types.contains(json.dumps(issue_type), autoescape=True))
        query = (select(traces).where(*where).order_by(traces.c.created_at.desc(), traces.c.seq.desc())
                 .limit(int(limit)).offset(max(int(offset), 0)))
        with self.db.connect() as conn:
            rows = conn.execute(query).mappings().all()
        return [TraceSummary(
            r["trace_id"], r["created_at"], r["question"], r["status"], r["provider"] or "", r["strategy_version"] or "",
            r["iterations"] or 0, r["total_ms"] or 0.0, bool(r["reflection"]), r["mode"] or "",
            json.loads(r["issue_types"] or "[]"), r["error"], r["user_name"],
            tuple(json.loads(r["knowledge_bases"] or "[]"))) for r in rows]

    def get(self, trace_id: str, *, readable: Collection[str] | None = None, user: str | None = None) -> dict[str, Any]:
        """One run's payload; with ``readable``/``user``, a run that viewer may not see is not found."""
        query = select(traces.c.payload).where(traces.c.trace_id == trace_id, *visibility(readable, user))
        with self.db.connect() as conn:
            text = conn.execute(query).scalar()
        if text is None:
            raise EngineError(f"Trace {trace_id!r} not found; list traces with `python -m engine traces list`.")
        return json.loads(text)

    def count(self, *, readable: Collection[str] | None = None, user: str | None = None) -> int:
        query = select(func.count()).select_from(traces).where(*visibility(readable, user))
        with self.db.connect() as conn:
            return int(conn.execute(query).scalar_one())


def visibility(readable: Collection[str] | None, user: str | None) -> list[Any]:
    """SQL conditions for the runs a viewer may see: every base a run touched is readable to them, and a run that
    touched none (it failed before planning) is shown only to the user who asked. None: no limit."""
    if readable is None:
        return []
    names = sorted(set(readable))
    own = trace_bases.c.trace_id == traces.c.trace_id
    outside = exists().where(own, trace_bases.c.knowledge_base.not_in(names)) if names else exists().where(own)
    touched = exists().where(own)
    return [not_(outside), or_(touched, and_(traces.c.user_name.is_not(None), traces.c.user_name == user))]
