"""A data folder written before the database (traces.sqlite3, audit.sqlite3, strategies/, experiments/,
rollout.json) is imported on first open, once, on SQLite and on PostgreSQL; the old files stay as they were."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from engine.agent import AuditLog
from engine.config import load_settings
from engine.database import Database
from engine.database.engine import location
from engine.experiments import ExperimentStore, RolloutStore, run_experiment, variant_pair
from engine.orchestration import Strategy, StrategyStore
from engine.tracing import TraceStore
from tests.experiments.fakes import FakePipeline, reflection_respond

pytestmark = pytest.mark.integration

OLD_TRACES = """
CREATE TABLE runs (trace_id TEXT PRIMARY KEY, created_at TEXT NOT NULL, question TEXT NOT NULL, status TEXT NOT NULL,
    provider TEXT, strategy_version TEXT, iterations INTEGER, total_ms REAL, reflection INTEGER, mode TEXT,
    issue_types TEXT, error TEXT, payload TEXT NOT NULL, user TEXT, knowledge_bases TEXT NOT NULL DEFAULT '[]');
CREATE INDEX runs_created ON runs(created_at);
"""
OLD_AUDIT = """
CREATE TABLE agent_steps (id INTEGER PRIMARY KEY AUTOINCREMENT, run_id TEXT NOT NULL, step INTEGER NOT NULL,
    ts TEXT NOT NULL, user TEXT NOT NULL, role TEXT NOT NULL, tool TEXT NOT NULL, arguments TEXT NOT NULL,
    decision TEXT NOT NULL, duration_ms REAL NOT NULL, result_status TEXT NOT NULL, message TEXT NOT NULL DEFAULT '');
CREATE TABLE agent_runs (run_id TEXT PRIMARY KEY, created_at TEXT NOT NULL, updated_at TEXT NOT NULL,
    user TEXT NOT NULL, role TEXT NOT NULL, status TEXT NOT NULL, request TEXT NOT NULL, state TEXT NOT NULL);
"""
OLD_VERSIONS = ("20260101T090000000000Z", "20260102T090000000000Z")


def write_old_data_folder(data: Path) -> str:
    """Files exactly as the per-file stores wrote them; returns the stored experiment's id."""
    data.mkdir(parents=True)
    with sqlite3.connect(data / "traces.sqlite3") as db:
        db.executescript(OLD_TRACES)
        for n, (status, bases) in enumerate((("success", ["manuals"]), ("refused", []))):
            body = {"trace_id": f"t{n}", "question": f"old question {n}", "status": status, "provider": "offline",
                    "tasks": [{"knowledge_base": b} for b in bases], "extra": {"user": "ana"}}
            db.execute("INSERT INTO runs VALUES (?, ?, ?, ?, 'offline', 'v', 1, 5.0, 1, 'dual', '[]', NULL, ?, 'ana',"
                       " ?)", (f"t{n}", f"2026-01-0{n + 1}T00:00:00+00:00", body["question"], status, json.dumps(body),
                               json.dumps(bases)))
    with sqlite3.connect(data / "audit.sqlite3") as db:
        db.executescript(OLD_AUDIT)
        db.execute("INSERT INTO agent_steps (run_id, step, ts, user, role, tool, arguments, decision, duration_ms,"
                   " result_status, message) VALUES ('r1', 1, '2026-01-01T00:00:00', CAST(X'616461FF' AS TEXT),"
                   " 'admin', 'delete_document', '{\"doc_id\": \"d\"}', 'confirmation_required', 1, 'paused', '')")
        state = {"run_id": "r1", "user": "ada", "role": "admin", "request": "delete d", "provider": "offline",
                 "created_at": "2026-01-01T00:00:00", "status": "paused"}
        db.execute("INSERT INTO agent_runs VALUES ('r1', '2026-01-01T00:00:00', '2026-01-01T00:00:00', 'ada', 'admin',"
                   " 'paused', 'delete d', ?)", (json.dumps(state),))
    strategies = data / "strategies"
    strategies.mkdir()
    for version, top_k in zip(OLD_VERSIONS, (8, 12)):
        record = {"version": version, "saved_at": "2026-01-01T09:00:00+00:00", "note": f"k={top_k}",
                  "strategy": Strategy(name=f"k{top_k}", top_k=top_k).model_dump(mode="json")}
        (strategies / f"{version}.json").write_text(json.dumps(record, indent=2), encoding="utf-8")
    (strategies / "active").write_text(OLD_VERSIONS[0], encoding="utf-8")
    (strategies / "broken.json").write_text("{", encoding="utf-8")
    result = run_experiment(FakePipeline(reflection_respond), ["Odd?", "Even??"], *variant_pair("reflection"),
                            n_resamples=20)
    (data / "experiments").mkdir()
    (data / "experiments" / f"{result.id}.json").write_text(json.dumps(result.to_dict(), indent=1), encoding="utf-8")
    (data / "rollout.json").write_text(json.dumps({"share": 25.0, "updated_at": "2026-01-01T00:00:00+00:00"}))
    return result.id


def test_old_files_are_imported_once(database_url, tmp_path):
    data = tmp_path / "old-data"
    experiment_id = write_old_data_folder(data)
    before = {p: p.read_bytes() for p in data.rglob("*") if p.is_file()}
    url = None if database_url.startswith("sqlite") else database_url
    settings = load_settings(data_dir=data, database_url=url)

    first = Database(*location(settings))
    assert first.imported == {"traces": 2, "audit": 2, "strategies": 2, "experiments": 1, "rollout": 1}
    traces = TraceStore(first)
    assert [t.trace_id for t in traces.list()] == ["t1", "t0"] and traces.get("t0")["question"] == "old question 0"
    assert [t.trace_id for t in traces.list(readable={"manuals"}, user="bob")] == ["t0"]  # visibility kept
    audit = AuditLog(first)
    assert audit.steps("r1")[0]["user"] == "ada\ufffd" and audit.load_run("r1").status == "paused"
    assert audit.claim("r1")  # an imported paused run can still be approved
    strategies = StrategyStore(first)
    assert strategies.active() == (OLD_VERSIONS[0], Strategy(name="k8", top_k=8))
    assert [v.version for v in strategies.versions()] == list(reversed(OLD_VERSIONS))
    assert ExperimentStore(first).get(experiment_id).id == experiment_id
    assert RolloutStore(first).get().share == 25.0
    first.close()

    again = Database(*location(settings))  # the next start: nothing imported twice
    assert again.imported == {} and TraceStore(again).count() == 2 and len(AuditLog(again).steps()) == 1
    assert len(StrategyStore(again).versions()) == 2 and len(ExperimentStore(again).list()) == 1
    assert AuditLog(again).load_run("r1").status == "running"  # the claim above was not undone by a re-import
    again.close()
    assert {p: p.read_bytes() for p in before} == before  # old files untouched


def test_a_folder_without_old_files_imports_nothing(tmp_path):
    db = Database(*location(tmp_path / "data"))
    assert db.imported == {} and not (tmp_path / "data" / "traces.sqlite3").exists()
