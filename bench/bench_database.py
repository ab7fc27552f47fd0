"""The workbench database on SQLite (WAL) and on a throwaway local PostgreSQL cluster: first open (migration),
second open, importing old per-file stores, and the store calls the app makes most.

    python bench/bench_database.py [--traces 1000]

PostgreSQL runs from Debian's server binaries as in the tests (fsync off: a throwaway cluster).
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import tempfile
import time
from pathlib import Path

from common import pct, report

from engine.agent import AuditLog
from engine.database import Database
from engine.tracing import TraceStore
from tests.database.conftest import new_postgres_database, postgres_cluster
from tests.database.test_legacy_import import OLD_TRACES


def payload(n: int) -> dict:
    return {"trace_id": f"t{n:06d}", "created_at": f"2026-01-01T00:{n // 60 % 60:02d}:{n % 60:02d}+00:00",
            "question": f"question {n}", "status": "success", "provider": "offline", "timings": {"total": 1.0},
            "tasks": [{"knowledge_base": "manuals"}], "evidence": [{"knowledge_base": "manuals", "text": "x" * 2000}],
            "extra": {"user": "ana"}}


def old_folder(root: Path, traces: int) -> Path:
    data = root / "old"
    data.mkdir()
    with sqlite3.connect(data / "traces.sqlite3") as db:
        db.executescript(OLD_TRACES)
        for n in range(traces):
            p = payload(n)
            db.execute("INSERT INTO runs VALUES (?, ?, ?, 'success', 'offline', 'v', 1, 1.0, 1, '', '[]', NULL, ?,"
                       " 'ana', '[\"manuals\"]')", (p["trace_id"], p["created_at"], p["question"], json.dumps(p)))
    return data


def ms(start: float) -> float:
    return round((time.perf_counter() - start) * 1000, 1)


def measure(backend: str, url: str, root: Path, traces: int) -> dict:
    row: dict = {"backend": backend}
    start = time.perf_counter()
    db = Database(url, legacy_dir=old_folder(root / backend, traces))
    row["first_open_ms"] = ms(start)
    row["imported_traces"] = db.imported.get("traces", 0)
    db.close()
    start = time.perf_counter()
    db = Database(url, legacy_dir=root / backend / "old")
    row["second_open_ms"] = ms(start)
    store, audit = TraceStore(db), AuditLog(db)
    saves, lists, steps = [], [], []
    for n in range(traces, traces + 200):
        start = time.perf_counter()
        store.save(payload(n))
        saves.append((time.perf_counter() - start) * 1000)
        start = time.perf_counter()
        audit.record_step(run_id="r", step=n, user="ana", role="admin", tool="t", arguments={"n": n},
                          decision="allowed", duration_ms=1, result_status="ok")
        steps.append((time.perf_counter() - start) * 1000)
    for _ in range(50):
        start = time.perf_counter()
        store.list(limit=50, readable={"manuals"}, user="ana")
        lists.append((time.perf_counter() - start) * 1000)
    row.update({"trace_save_p50_ms": round(pct(saves, 50), 2), "audit_step_p50_ms": round(pct(steps, 50), 2),
                "list_50_visible_p50_ms": round(pct(lists, 50), 2)})
    db.close()
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--traces", type=int, default=1000, help="traces in the old traces.sqlite3 to import")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "sqlite").mkdir()
        (root / "postgresql").mkdir()
        rows = [measure("sqlite", f"sqlite:///{root / 'sqlite' / 'workbench.db'}", root, args.traces)]
        with postgres_cluster() as server:
            rows.append(measure("postgresql", new_postgres_database(server), root, args.traces))
    report("database", {"old_traces": args.traces, "rows": rows}, rows, list(rows[0]))


if __name__ == "__main__":
    main()
