"""Every pipeline run, failed ones too, stored in SQLite under ``DATA_DIR/traces.sqlite3``."""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Collection, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from engine.errors import EngineError
from engine.redaction import redact_strings, redact_text

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
    payload TEXT NOT NULL,
    user TEXT,
    knowledge_bases TEXT NOT NULL DEFAULT '[]'
);
CREATE INDEX IF NOT EXISTS runs_created ON runs(created_at);
"""
COLUMNS = ("trace_id", "created_at", "question", "status", "provider", "strategy_version", "iterations", "total_ms",
           "reflection", "mode", "issue_types", "error", "payload", "user", "knowledge_bases")


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

    def __init__(self, data_dir: Path) -> None:
        Path(data_dir).mkdir(parents=True, exist_ok=True)
        self.path = Path(data_dir) / "traces.sqlite3"
        self._lock = threading.Lock()
        with self._connect() as db:
            db.executescript(SCHEMA)
            _add_access_columns(db)

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
        """Store one run (the Answer as JSON plus searchable columns); returns its trace id. Credentials are redacted."""
        payload, error = redact_strings(payload), redact_text(error) if error else error
        issue_types = sorted({i["type"] for r in payload.get("reviews", []) for i in r.get("issues", [])}
                             | {f"validation:{i['check']}" for i in (payload.get("validation") or {}).get("issues", [])})
        extra = payload.get("extra", {})
        row = (
            payload["trace_id"], payload.get("created_at") or datetime.now(timezone.utc).isoformat(timespec="seconds"),
            payload["question"], payload["status"], payload.get("provider", ""), payload.get("strategy_version", ""),
            int(payload.get("iterations", 0)), float(payload.get("timings", {}).get("total", 0.0)),
            int(bool(extra.get("reflection", True))), extra.get("mode", ""), json.dumps(issue_types), error,
            json.dumps(payload, default=str), extra.get("user"), json.dumps(payload_bases(payload)),
        )
        with self._lock, self._connect() as db:
            db.execute(f"INSERT OR REPLACE INTO runs ({', '.join(COLUMNS)}) VALUES ({', '.join('?' * len(COLUMNS))})",
                       row)
        return payload["trace_id"]

    def list(self, limit: int = 50, status: str | None = None, provider: str | None = None,
             strategy_version: str | None = None, since: str | None = None, issue_type: str | None = None,
             *, offset: int = 0, readable: Collection[str] | None = None, user: str | None = None,
             ) -> list[TraceSummary]:
        """Newest runs first, optionally filtered; ``readable``/``user``: only runs that viewer may see."""
        where, args = visibility(readable, user)
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
        sql += " ORDER BY created_at DESC, rowid DESC LIMIT ? OFFSET ?"
        with self._connect() as db:
            rows = db.execute(sql, [*args, int(limit), max(int(offset), 0)]).fetchall()
        return [TraceSummary(
            r["trace_id"], r["created_at"], r["question"], r["status"], r["provider"] or "", r["strategy_version"] or "",
            r["iterations"] or 0, r["total_ms"] or 0.0, bool(r["reflection"]), r["mode"] or "",
            json.loads(r["issue_types"] or "[]"), r["error"], r["user"],
            tuple(json.loads(r["knowledge_bases"] or "[]"))) for r in rows]

    def get(self, trace_id: str, *, readable: Collection[str] | None = None, user: str | None = None) -> dict[str, Any]:
        """One run's payload; with ``readable``/``user``, a run that viewer may not see is not found."""
        where, args = visibility(readable, user)
        sql = "SELECT payload FROM runs WHERE " + " AND ".join(["trace_id = ?", *where])
        with self._connect() as db:
            row = db.execute(sql, (trace_id, *args)).fetchone()
        if row is None:
            raise EngineError(f"Trace {trace_id!r} not found; list traces with `python -m engine traces list`.")
        return json.loads(row["payload"])

    def count(self, *, readable: Collection[str] | None = None, user: str | None = None) -> int:
        where, args = visibility(readable, user)
        sql = "SELECT COUNT(*) FROM runs" + (" WHERE " + " AND ".join(where) if where else "")
        with self._connect() as db:
            return int(db.execute(sql, args).fetchone()[0])


def payload_bases(payload: dict[str, Any]) -> list[str]:
    """The knowledge bases a run touched: its tasks' and its evidence's."""
    names = {t.get("knowledge_base") for t in payload.get("tasks") or ()}
    names |= {e.get("knowledge_base") for e in payload.get("evidence") or ()}
    return sorted(n for n in names if isinstance(n, str) and n)


def visibility(readable: Collection[str] | None, user: str | None) -> tuple[list[str], list[Any]]:
    """SQL conditions for the runs a viewer may see: every base a run touched is readable to them, and a run that
    touched none (it failed before planning) is shown only to the user who asked. None: no limit."""
    if readable is None:
        return [], []
    names = sorted(set(readable))
    outside = f"value NOT IN ({', '.join('?' * len(names))})" if names else "1"
    where = [f"NOT EXISTS (SELECT 1 FROM json_each(runs.knowledge_bases) WHERE {outside})",
             "(json_array_length(runs.knowledge_bases) > 0 OR runs.user = ?)"]
    return where, [*names, user if user else None]


def _add_access_columns(db: sqlite3.Connection) -> None:
    """Add the asker and touched-bases columns to a store made before they existed, filled from the payloads."""
    present = {row[1] for row in db.execute("PRAGMA table_info(runs)")}
    if "user" not in present:
        db.execute("ALTER TABLE runs ADD COLUMN user TEXT")
    if "knowledge_bases" not in present:
        db.execute("ALTER TABLE runs ADD COLUMN knowledge_bases TEXT NOT NULL DEFAULT '[]'")
        for trace_id, text in db.execute("SELECT trace_id, payload FROM runs").fetchall():
            payload = json.loads(text)
            db.execute("UPDATE runs SET user = ?, knowledge_bases = ? WHERE trace_id = ?",
                       ((payload.get("extra") or {}).get("user"), json.dumps(payload_bases(payload)), trace_id))
