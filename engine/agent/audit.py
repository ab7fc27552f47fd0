"""The audit log and run store: SQLite at ``DATA_DIR/audit.sqlite3``.

``agent_steps`` is append-only: one row per tool call decision, arguments redacted.
``agent_runs`` keeps each run's state, so a paused run can be resumed by another
process; :meth:`AuditLog.claim` moves a run out of ``paused`` atomically, which is
what makes an approved call run at most once even when two resumes race.

Everything is cleaned before it is written (lone surrogates replaced, nesting cut: see
:mod:`engine.agent.limits`), and reading is tolerant of rows written before that (bad
UTF-8, escaped surrogates, JSON that does not parse), so ``audit list`` always works.
"""

from __future__ import annotations

import dataclasses
import json
import re
import sqlite3
import threading
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from engine.agent.errors import AgentError
from engine.agent.limits import clean, clean_text
from engine.agent.run import RunState
from engine.redaction import redact_strings, redact_text

FILE_NAME = "audit.sqlite3"
REDACTED = "[REDACTED]"
SECRET_KEY = re.compile(r"pass(word|wd|phrase)?|token|api[_-]?key|secret|authori[sz]ation|credential|private[_-]?key",
                        re.IGNORECASE)
SECRET_VALUE = re.compile(
    r"\bsk-[A-Za-z0-9_-]{8,}|\bgh[pousr]_[A-Za-z0-9]{20,}|\bAKIA[0-9A-Z]{16}\b|\bxox[abprs]-[A-Za-z0-9-]{10,}"
    r"|\bBearer\s+[A-Za-z0-9._~+/=-]{8,}",
)
_SCHEMA = """
CREATE TABLE IF NOT EXISTS agent_steps (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    run_id TEXT NOT NULL, step INTEGER NOT NULL, ts TEXT NOT NULL,
    user TEXT NOT NULL, role TEXT NOT NULL, tool TEXT NOT NULL, arguments TEXT NOT NULL,
    decision TEXT NOT NULL, duration_ms REAL NOT NULL, result_status TEXT NOT NULL, message TEXT NOT NULL DEFAULT ''
);
CREATE INDEX IF NOT EXISTS agent_steps_run ON agent_steps (run_id, step);
CREATE TABLE IF NOT EXISTS agent_runs (
    run_id TEXT PRIMARY KEY, created_at TEXT NOT NULL, updated_at TEXT NOT NULL,
    user TEXT NOT NULL, role TEXT NOT NULL, status TEXT NOT NULL, request TEXT NOT NULL, state TEXT NOT NULL
);
"""


def redact(value: Any) -> Any:
    """A copy with secret-looking keys' values and key-like strings replaced by ``[REDACTED]``."""
    if isinstance(value, dict):
        return {k: REDACTED if isinstance(k, str) and SECRET_KEY.search(k) else redact(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [redact(v) for v in value]
    if isinstance(value, str):
        return redact_text(SECRET_VALUE.sub(REDACTED, value))
    return value


_ESCAPED_SURROGATE = re.compile(r"\\ud[89a-f][0-9a-f]{2}", re.IGNORECASE)


def _dumps(value: Any) -> str:
    """JSON text of cleaned ``value``; a value that still cannot be encoded is stored as a note saying so."""
    try:
        return json.dumps(clean(value), default=str)
    except (ValueError, TypeError, RecursionError) as exc:
        return json.dumps({"[not stored]": f"{type(exc).__name__}: {clean_text(str(exc))[:200]}"})


def _loads(text: Any) -> Any:
    """Stored JSON read back cleaned; text that does not parse is returned as a note, not an error."""
    try:
        return clean(json.loads(text))
    except (ValueError, TypeError, RecursionError):
        return {"[unreadable]": clean_text(str(text))[:200]}


def _text(raw: bytes) -> str:
    """A TEXT column as str, whatever bytes an older version or another tool wrote there."""
    return clean_text(raw.decode("utf-8", "replace"))


def _state_json(state: RunState) -> str:
    """A run's state as JSON; when it cannot be stored whole, the status and final text alone (never unsaved)."""
    fields = {f.name: getattr(state, f.name) for f in dataclasses.fields(state)}
    try:
        text = json.dumps(fields, default=str)  # the runtime cleans what it keeps: usually this is all
        if not _ESCAPED_SURROGATE.search(text):
            return text
    except (ValueError, TypeError, RecursionError):
        pass
    try:
        return json.dumps(clean(fields), default=str)
    except (ValueError, TypeError, RecursionError) as exc:
        slim = RunState(run_id=state.run_id, user=state.user, role=state.role, request=state.request,
                        provider=state.provider, created_at=state.created_at, status=state.status,
                        final_text=state.final_text, model_turns=state.model_turns, tool_calls=state.tool_calls)
        slim.final_text = clean_text(f"{state.final_text} [the run's messages could not be stored: {exc}]")
        return json.dumps(clean(slim.to_json()), default=str)


def now_iso() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


class AuditLog:
    """Steps and runs in one SQLite file; safe to share between threads of a process."""

    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        self._conn = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None, timeout=10)
        self._conn.row_factory = sqlite3.Row
        self._conn.text_factory = _text
        self._lock = threading.Lock()
        with self._lock:
            if self.path != ":memory:":
                self._conn.execute("PRAGMA journal_mode=WAL")
            self._conn.executescript(_SCHEMA)

    @classmethod
    def in_data_dir(cls, data_dir: str | Path) -> "AuditLog":
        """The audit log of a data folder."""
        return cls(Path(data_dir) / FILE_NAME)

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    # -- steps ----------------------------------------------------------------
    def record_step(
        self, *, run_id: str, step: int, user: str, role: str, tool: str, arguments: Any, decision: str,
        duration_ms: float, result_status: str, message: str = "",
    ) -> None:
        """Append one step; arguments and message are redacted first."""
        text = lambda value: clean_text(str(value))  # noqa: E731
        row = (text(run_id), int(step), now_iso(), text(user), text(role), text(tool), _dumps(redact(clean(arguments))),
               text(decision), float(duration_ms), text(result_status), text(redact(clean_text(str(message)))))
        with self._lock:
            self._conn.execute(
                "INSERT INTO agent_steps (run_id, step, ts, user, role, tool, arguments, decision, duration_ms,"
                " result_status, message) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", row,
            )

    def steps(self, run_id: str | None = None, limit: int = 200) -> list[dict[str, Any]]:
        """Recorded steps, oldest first (the last ``limit`` of them), for one run or all."""
        where, params = ("WHERE run_id = ?", [run_id]) if run_id else ("", [])
        with self._lock:
            rows = self._conn.execute(
                f"SELECT * FROM (SELECT * FROM agent_steps {where} ORDER BY id DESC LIMIT ?) ORDER BY id",
                [*params, int(limit)],
            ).fetchall()
        return [dict(row, arguments=_loads(row["arguments"])) for row in rows]

    # -- runs -----------------------------------------------------------------
    def save_run(self, state: RunState) -> None:
        """Insert or update a run's state, credentials redacted from every text in it."""
        state = RunState.from_json(redact_strings(state.to_json()))
        stamp = now_iso()
        with self._lock:
            self._conn.execute(
                "INSERT INTO agent_runs (run_id, created_at, updated_at, user, role, status, request, state)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(run_id) DO UPDATE SET updated_at = excluded.updated_at,"
                " status = excluded.status, state = excluded.state",
                (state.run_id, state.created_at, stamp, clean_text(state.user), state.role, state.status,
                 clean_text(state.request), _state_json(state)),
            )

    def load_run(self, run_id: str) -> RunState | None:
        with self._lock:
            row = self._conn.execute("SELECT state, status FROM agent_runs WHERE run_id = ?", (run_id,)).fetchone()
        if row is None:
            return None
        data = _loads(row["state"])
        if not isinstance(data, dict) or "[unreadable]" in data:
            raise AgentError(f"The stored state of run {run_id} cannot be read, so it cannot be continued; "
                             "start a new request.")
        state = RunState.from_json(data)
        state.status = row["status"]
        return state

    def claim(self, run_id: str, from_status: str = "paused", to_status: str = "running") -> bool:
        """Move a run from one status to another; False when it was not in ``from_status`` (someone else won)."""
        with self._lock:
            cursor = self._conn.execute(
                "UPDATE agent_runs SET status = ?, updated_at = ? WHERE run_id = ? AND status = ?",
                (to_status, now_iso(), run_id, from_status),
            )
        return cursor.rowcount == 1

    def runs(self, limit: int = 50, status: str | None = None) -> list[dict[str, Any]]:
        """Recent runs, newest first: id, times, user, role, status, request."""
        where, params = ("WHERE status = ?", [status]) if status else ("", [])
        with self._lock:
            rows = self._conn.execute(
                f"SELECT run_id, created_at, updated_at, user, role, status, request FROM agent_runs {where}"
                " ORDER BY created_at DESC LIMIT ?", [*params, int(limit)],
            ).fetchall()
        return [dict(row) for row in rows]
