"""Import, once, the stores kept as separate files before the database: ``traces.sqlite3``, ``audit.sqlite3``,
``strategies/*.json`` with its ``active`` pointer, ``experiments/*.json`` and ``rollout.json`` in a data folder.

Each source is recorded in ``legacy_imports`` in the same transaction as its rows, so it is imported exactly once,
even when two processes open the database together. The old files are left in place, untouched.
"""

from __future__ import annotations

import json
import logging
import sqlite3
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlalchemy import Connection, delete, insert, select, update
from sqlalchemy.exc import IntegrityError

from engine.database.sql import insert_ignore
from engine.database.tables import (
    agent_runs, agent_steps, app_settings, experiments, legacy_imports, strategy_versions, trace_bases, traces,
)
from engine.database.trace_rows import trace_row

if TYPE_CHECKING:
    from engine.database.engine import Database

log = logging.getLogger(__name__)
ACTIVE_STRATEGY = "active_strategy"
ROLLOUT = "rollout"
_BATCH = 500


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def _read_sqlite(path: Path, query: str) -> list[dict[str, Any]]:
    """Rows of an old SQLite file, opened read-only; text that is not UTF-8 is read with U+FFFD."""
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    conn.row_factory = sqlite3.Row
    conn.text_factory = lambda raw: raw.decode("utf-8", "replace")
    try:
        return [dict(row) for row in conn.execute(query)]
    finally:
        conn.close()


def _columns(path: Path, table: str) -> set[str]:
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return {row[1] for row in conn.execute(f"PRAGMA table_info({table})")}
    finally:
        conn.close()


def _traces(conn: Connection, path: Path) -> int:
    rows = []
    for row in _read_sqlite(path, "SELECT * FROM runs ORDER BY created_at, rowid"):
        try:
            payload = json.loads(row["payload"])
        except ValueError:
            log.warning("skipping trace %s in %s: its payload is not JSON", row.get("trace_id"), path)
            continue
        payload.setdefault("created_at", row["created_at"])
        new = trace_row(payload, row.get("error"))
        new["created_at"] = row["created_at"]
        rows.append(new)
    for start in range(0, len(rows), _BATCH):  # in batches: one round trip per statement, not per run
        batch = rows[start:start + _BATCH]
        ids = [r["trace_id"] for r in batch]
        conn.execute(delete(trace_bases).where(trace_bases.c.trace_id.in_(ids)))
        conn.execute(delete(traces).where(traces.c.trace_id.in_(ids)))
        conn.execute(insert(traces), batch)
        bases = [{"trace_id": r["trace_id"], "knowledge_base": b} for r in batch for b in json.loads(r["knowledge_bases"])]
        if bases:
            conn.execute(insert(trace_bases), bases)
    return len(rows)


def _audit(conn: Connection, path: Path) -> int:
    tables = _columns(path, "agent_steps"), _columns(path, "agent_runs")
    steps = _read_sqlite(path, "SELECT * FROM agent_steps ORDER BY id") if tables[0] else []
    for row in steps:
        row.pop("id")
        row["user_name"] = row.pop("user")
        row.setdefault("message", "")
    if steps:
        conn.execute(insert(agent_steps), steps)
    runs = _read_sqlite(path, "SELECT * FROM agent_runs") if tables[1] else []
    for row in runs:
        row["user_name"] = row.pop("user")
    insert_ignore(conn, agent_runs, runs)
    return len(steps) + len(runs)


def _json_files(folder: Path) -> list[tuple[Path, dict[str, Any]]]:
    out = []
    for path in sorted(folder.glob("*.json")):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            if isinstance(data, dict):
                out.append((path, data))
                continue
        except (OSError, ValueError):
            pass
        log.warning("skipping %s: it is not a JSON object", path)
    return out


def _strategies(conn: Connection, folder: Path) -> int:
    rows = []
    for path, data in _json_files(folder):
        strategy = data.get("strategy")
        if not isinstance(strategy, dict):
            log.warning("skipping %s: it holds no strategy", path)
            continue
        rows.append({"version": str(data.get("version") or path.stem), "saved_at": str(data.get("saved_at") or ""),
                     "name": str(strategy.get("name", "")), "note": str(data.get("note") or ""),
                     "strategy": json.dumps(strategy)})
    insert_ignore(conn, strategy_versions, rows)
    pointer = folder / "active"
    if pointer.is_file():
        version = pointer.read_text(encoding="utf-8").strip()
        if version in {r["version"] for r in rows}:
            insert_ignore(conn, app_settings, {"key": ACTIVE_STRATEGY, "value": version, "updated_at": _now()})
    return len(rows)


def _experiments(conn: Connection, folder: Path) -> int:
    rows = [{"id": str(data.get("id") or path.stem), "created_at": str(data.get("created_at") or ""),
             "result": json.dumps(data, ensure_ascii=False)} for path, data in _json_files(folder)]
    insert_ignore(conn, experiments, rows)
    return len(rows)


def _rollout(conn: Connection, path: Path) -> int:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        share = float(data["share"])
    except (OSError, ValueError, KeyError, TypeError):
        log.warning("not importing %s: it is damaged; set the share again with `python -m engine rollout set`", path)
        return 0
    value = json.dumps({"share": share, "updated_at": data.get("updated_at")})
    insert_ignore(conn, app_settings, {"key": ROLLOUT, "value": value, "updated_at": _now()})
    return 1


SOURCES: tuple[tuple[str, str, Callable[[Connection, Path], int]], ...] = (
    ("traces", "traces.sqlite3", _traces),
    ("audit", "audit.sqlite3", _audit),
    ("strategies", "strategies", _strategies),
    ("experiments", "experiments", _experiments),
    ("rollout", "rollout.json", _rollout),
)


def import_legacy(db: "Database", data_dir: Path) -> dict[str, int]:
    """Import each old store found in ``data_dir`` that was not imported before; returns rows per source imported."""
    done: dict[str, int] = {}
    for kind, name, reader in SOURCES:
        path = Path(data_dir) / name
        if not path.exists():
            continue
        source = f"{kind}:{path.resolve()}"
        with db.connect() as conn:
            if conn.execute(select(legacy_imports.c.source).where(legacy_imports.c.source == source)).first():
                continue
        try:
            with db.begin() as conn:
                conn.execute(insert(legacy_imports).values(source=source, imported_at=_now(), rows=0))
                rows = reader(conn, path)
                conn.execute(update(legacy_imports).where(legacy_imports.c.source == source).values(rows=rows))
        except IntegrityError:
            continue  # another process imported it first
        except sqlite3.DatabaseError as exc:
            log.warning("not importing %s: it cannot be read (%s)", path, exc)
            continue
        log.info("imported %d rows from %s into the workbench database", rows, path)
        done[kind] = rows
    return done
