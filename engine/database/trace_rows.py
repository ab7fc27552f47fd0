"""A run's trace as the database stores it: its row of the ``traces`` table and the bases it touched.

The trace store writes runs through these, and the import of an old trace store (``legacy``) converts its
rows with them, so the two always store a run alike.
"""

from __future__ import annotations

import json
from datetime import datetime, timezone
from typing import Any

from sqlalchemy import Connection, delete, insert

from engine.database.tables import trace_bases, traces


def trace_row(payload: dict[str, Any], error: str | None) -> dict[str, Any]:
    """The stored columns of one run's payload."""
    issue_types = sorted({i["type"] for r in payload.get("reviews", []) for i in r.get("issues", [])}
                         | {f"validation:{i['check']}" for i in (payload.get("validation") or {}).get("issues", [])})
    extra = payload.get("extra", {})
    return {
        "trace_id": payload["trace_id"],
        "created_at": payload.get("created_at") or datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "question": payload["question"], "status": payload["status"], "provider": payload.get("provider") or "",
        "strategy_version": payload.get("strategy_version") or "", "iterations": int(payload.get("iterations", 0)),
        "total_ms": float(payload.get("timings", {}).get("total", 0.0)), "reflection": bool(extra.get("reflection", True)),
        "mode": extra.get("mode") or "", "issue_types": json.dumps(issue_types), "error": error,
        "payload": json.dumps(payload, default=str), "user_name": extra.get("user"),
        "knowledge_bases": json.dumps(payload_bases(payload)),
    }


def replace_trace(conn: Connection, row: dict[str, Any]) -> None:
    """Store one run's row and its bases, replacing a run with the same id."""
    conn.execute(delete(trace_bases).where(trace_bases.c.trace_id == row["trace_id"]))
    conn.execute(delete(traces).where(traces.c.trace_id == row["trace_id"]))
    conn.execute(insert(traces), row)
    bases = json.loads(row["knowledge_bases"])
    if bases:
        conn.execute(insert(trace_bases), [{"trace_id": row["trace_id"], "knowledge_base": b} for b in bases])


def payload_bases(payload: dict[str, Any]) -> list[str]:
    """The knowledge bases a run touched: its tasks' and its evidence's."""
    names = {t.get("knowledge_base") for t in payload.get("tasks") or ()}
    names |= {e.get("knowledge_base") for e in payload.get("evidence") or ()}
    return sorted(n for n in names if isinstance(n, str) and n)
