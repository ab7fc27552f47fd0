"""The audit log and run store, in the workbench database (see :mod:`engine.database`).

``agent_steps`` is append-only: one row per tool call decision, arguments redacted.
``agent_runs`` keeps each run's state, so a paused run can be resumed by another
process; :meth:`AuditLog.claim` moves a run out of ``paused`` atomically, which is
what makes an approved call run at most once even when two resumes race (in two processes too, on a
shared PostgreSQL database).

Everything is cleaned before it is written (lone surrogates replaced, nesting cut: see
:mod:`engine.agent.limits`), and reading is tolerant of rows written before that (bad
UTF-8, escaped surrogates, JSON that does not parse), so ``audit list`` always works.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Collection
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlalchemy import insert, select, update

from engine.agent.errors import AgentError
from engine.agent.limits import clean, clean_text
from engine.agent.run import RunState
from engine.database import Database, open_database
from engine.database.sql import upsert
from engine.database.tables import agent_runs, agent_steps
from engine.redaction import redact_strings, redact_text

if TYPE_CHECKING:
    from engine.config import Settings

REDACTED = "[REDACTED]"
SECRET_KEY = re.compile(r"pass(word|wd|phrase)?|token|api[_-]?key|secret|authori[sz]ation|credential|private[_-]?key",
                        re.IGNORECASE)
SECRET_VALUE = re.compile(
    r"\bsk-[A-Za-z0-9_-]{8,}|\bgh[pousr]_[A-Za-z0-9]{20,}|\bAKIA[0-9A-Z]{16}\b|\bxox[abprs]-[A-Za-z0-9-]{10,}"
    r"|\bBearer\s+[A-Za-z0-9._~+/=-]{8,}",
)


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
                        final_text=state.final_text, model_turns=state.model_turns, tool_calls=state.tool_calls,
                        knowledge_bases=state.knowledge_bases, deciders=state.deciders)
        slim.final_text = clean_text(f"{state.final_text} [the run's messages could not be stored: {exc}]")
        return json.dumps(clean(slim.to_json()), default=str)


def now_iso() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="milliseconds")


class AuditLog:
    """Steps and runs in the workbench database; safe to share between threads and processes."""

    def __init__(self, target: "Database | Settings | Path | str") -> None:
        """``target``: a Database, Settings, a data folder, a database URL, or ``":memory:"`` (a private log)."""
        self.db = open_database(target)

    @classmethod
    def in_data_dir(cls, data_dir: str | Path) -> "AuditLog":
        """The audit log of a data folder (its SQLite database)."""
        return cls(Path(data_dir))

    def close(self) -> None:
        """Release a private in-memory log; a shared database stays open (connections return to its pool)."""
        if self.db.in_memory:
            self.db.close()

    # -- steps ----------------------------------------------------------------
    def record_step(
        self, *, run_id: str, step: int, user: str, role: str, tool: str, arguments: Any, decision: str,
        duration_ms: float, result_status: str, message: str = "",
    ) -> None:
        """Append one step; arguments and message are redacted first."""
        text = lambda value: clean_text(str(value))  # noqa: E731
        row = {"run_id": text(run_id), "step": int(step), "ts": now_iso(), "user_name": text(user), "role": text(role),
               "tool": text(tool), "arguments": _dumps(redact(clean(arguments))), "decision": text(decision),
               "duration_ms": float(duration_ms), "result_status": text(result_status),
               "message": text(redact(clean_text(str(message))))}
        with self.db.begin() as conn:
            conn.execute(insert(agent_steps), row)

    def steps(self, run_id: str | None = None, limit: int = 200,
              run_ids: Collection[str] | None = None) -> list[dict[str, Any]]:
        """Recorded steps, oldest first (the last ``limit`` of them), for one run, for ``run_ids``, or all."""
        where = [agent_steps.c.run_id == run_id] if run_id else []
        if run_ids is not None:
            where.append(agent_steps.c.run_id.in_(list(run_ids)))
        query = select(agent_steps).where(*where).order_by(agent_steps.c.id.desc()).limit(int(limit))
        with self.db.connect() as conn:
            rows = conn.execute(query).mappings().all()
        return [_step(row) for row in reversed(rows)]

    # -- runs -----------------------------------------------------------------
    def save_run(self, state: RunState) -> None:
        """Insert or update a run's state, credentials redacted from every text in it."""
        state = RunState.from_json(redact_strings(state.to_json()))
        row = {"run_id": state.run_id, "created_at": state.created_at, "updated_at": now_iso(),
               "user_name": clean_text(state.user), "role": state.role, "status": state.status,
               "request": clean_text(state.request), "state": _state_json(state)}
        with self.db.begin() as conn:
            upsert(conn, agent_runs, row, keys=["run_id"], update=["updated_at", "status", "state"])

    def load_run(self, run_id: str) -> RunState | None:
        query = select(agent_runs.c.state, agent_runs.c.status).where(agent_runs.c.run_id == run_id)
        with self.db.connect() as conn:
            row = conn.execute(query).first()
        if row is None:
            return None
        data = _loads(row.state)
        if not isinstance(data, dict) or "[unreadable]" in data:
            raise AgentError(f"The stored state of run {run_id} cannot be read, so it cannot be continued; "
                             "start a new request.")
        state = RunState.from_json(data)
        state.status = row.status
        return state

    def claim(self, run_id: str, from_status: str = "paused", to_status: str = "running") -> bool:
        """Move a run from one status to another; False when it was not in ``from_status`` (someone else won)."""
        statement = (update(agent_runs).where(agent_runs.c.run_id == run_id, agent_runs.c.status == from_status)
                     .values(status=to_status, updated_at=now_iso()))
        with self.db.begin() as conn:
            return conn.execute(statement).rowcount == 1

    def runs(self, limit: int = 50, status: str | None = None) -> list[dict[str, Any]]:
        """Recent runs, newest first: id, times, user, role, status, request."""
        c = agent_runs.c
        query = (select(c.run_id, c.created_at, c.updated_at, c.user_name, c.role, c.status, c.request)
                 .where(*([c.status == status] if status else [])).order_by(c.created_at.desc()).limit(int(limit)))
        with self.db.connect() as conn:
            rows = conn.execute(query).mappings().all()
        return [{**{k: v for k, v in row.items() if k != "user_name"}, "user": clean_text(row["user_name"])}
                for row in rows]


def _step(row: Any) -> dict[str, Any]:
    """A stored step as the dict ``steps`` returns (``user``, arguments parsed)."""
    out = {k: clean_text(v) if isinstance(v, str) else v for k, v in row.items() if k != "user_name"}
    out["user"] = clean_text(row["user_name"])
    out["arguments"] = _loads(row["arguments"])
    return out
