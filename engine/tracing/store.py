"""Every pipeline run, failed ones too, stored in SQLite under ``DATA_DIR/traces.sqlite3``."""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from engine.errors import EngineError

SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    trace_id TEXT PRIMARY KEY,
    created_at TEXT NOT NULL,
    question TEXT NOT NULL,
    status TEXT NOT NULL,
    provider TEXT,
    strategy_version TEXT,
    iterations INTEGER,
    total_ms REAL,
    reflection INTEGER,
    mode TEXT,
    issue_types TEXT,
    error TEXT,
    payload TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS runs_created ON runs(created_at);
"""


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

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


class TraceStore:
    """Append and read pipeline runs."""

    def __init__(self, data_dir: Path) -> None:
        Path(data_dir).mkdir(parents=True, exist_ok=True)
        self.path = Path(data_dir) / "traces.sqlite3"
        self._lock = threading.Lock()
        with self._connect() as db:
            db.executescript(SCHEMA)

    @contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        db = sqlite3.connect(self.path, timeout=30)
        db.row_factory = sqlite3.Row
        try:
            with db:
                yield db
        finally:
            db.close()

    def save(self, payload: dict[str, Any], error: str | None = None) -> str:
        """Store one run (the Answer as JSON plus searchable columns); returns its trace id."""
        issue_types = sorted({i["type"] for r in payload.get("reviews", []) for i in r.get("issues", [])}
                             | {f"validation:{i['check']}" for i in (payload.get("validation") or {}).get("issues", [])})
        extra = payload.get("extra", {})
        row = (
            payload["trace_id"], payload.get("created_at") or datetime.now(timezone.utc).isoformat(timespec="seconds"),
            payload["question"], payload["status"], payload.get("provider", ""), payload.get("strategy_version", ""),
            int(payload.get("iterations", 0)), float(payload.get("timings", {}).get("total", 0.0)),
            int(bool(extra.get("reflection", True))), extra.get("mode", ""), json.dumps(issue_types), error,
            json.dumps(payload, default=str),
        )
        with self._lock, self._connect() as db:
            db.execute("INSERT OR REPLACE INTO runs VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)", row)
        return payload["trace_id"]

    def list(self, limit: int = 50, status: str | None = None, provider: str | None = None,
             strategy_version: str | None = None, since: str | None = None, issue_type: str | None = None,
             ) -> list[TraceSummary]:
        """Newest runs first, optionally filtered."""
        where, args = [], []
        for column, value in (("status", status), ("provider", provider), ("strategy_version", strategy_version)):
            if value:
                where.append(f"{column} = ?")
                args.append(value)
        if since:
            where.append("created_at >= ?")
            args.append(since)
        if issue_type:
            where.append("issue_types LIKE ?")
            args.append(f'%"{issue_type}"%')
        sql = "SELECT * FROM runs" + (" WHERE " + " AND ".join(where) if where else "")
        sql += " ORDER BY created_at DESC, rowid DESC LIMIT ?"
        with self._connect() as db:
            rows = db.execute(sql, [*args, int(limit)]).fetchall()
        return [TraceSummary(
            r["trace_id"], r["created_at"], r["question"], r["status"], r["provider"] or "", r["strategy_version"] or "",
            r["iterations"] or 0, r["total_ms"] or 0.0, bool(r["reflection"]), r["mode"] or "",
            json.loads(r["issue_types"] or "[]"), r["error"]) for r in rows]

    def get(self, trace_id: str) -> dict[str, Any]:
        with self._connect() as db:
            row = db.execute("SELECT payload FROM runs WHERE trace_id = ?", (trace_id,)).fetchone()
        if row is None:
            raise EngineError(f"Trace {trace_id!r} not found; list traces with `python -m engine traces list`.")
        return json.loads(row["payload"])

    def count(self) -> int:
        with self._connect() as db:
            return int(db.execute("SELECT COUNT(*) FROM runs").fetchone()[0])
