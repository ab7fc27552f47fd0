"""Stored traces by who may see them: every base a run touched must be readable; a run that touched none is the
asker's own. Stores made before these columns existed are filled in from their payloads."""

from __future__ import annotations

import json
import sqlite3

import pytest

from engine.errors import EngineError
from engine.tracing import TraceStore

pytestmark = pytest.mark.unit


def _payload(trace_id: str, bases: list[str], user: str | None = None) -> dict:
    return {"trace_id": trace_id, "question": f"q {trace_id}", "status": "success",
            "created_at": f"2025-01-0{trace_id[-1]}",
            "tasks": [{"knowledge_base": b} for b in bases], "evidence": [{"knowledge_base": b} for b in bases[:1]],
            "timings": {"total": 1.0}, "extra": {"user": user} if user else {}}


@pytest.fixture()
def traces(tmp_path):
    store = TraceStore(tmp_path)
    store.save(_payload("t1", ["manuals"], "alice"))
    store.save(_payload("t2", ["faq"], "bob"))
    store.save(_payload("t3", ["manuals", "faq"], "bob"))
    store.save(_payload("t4", [], "bob"))  # failed before planning
    return store


def test_a_reader_of_manuals_sees_only_runs_over_manuals(traces):
    ids = [t.trace_id for t in traces.list(readable=["manuals"], user="alice")]
    assert ids == ["t1"]
    assert traces.count(readable=["manuals"], user="alice") == 1
    assert traces.get("t1", readable=["manuals"], user="alice")["trace_id"] == "t1"
    for hidden in ("t2", "t3", "t4"):
        with pytest.raises(EngineError, match="not found"):
            traces.get(hidden, readable=["manuals"], user="alice")


def test_the_asker_sees_their_own_failed_run_and_no_limit_sees_all(traces):
    assert [t.trace_id for t in traces.list(readable=["faq"], user="bob")] == ["t4", "t2"]
    assert [t.trace_id for t in traces.list(readable=[], user="nobody")] == []
    assert [t.trace_id for t in traces.list()] == ["t4", "t3", "t2", "t1"]
    assert [t.trace_id for t in traces.list(limit=2, offset=2)] == ["t2", "t1"]
    assert traces.list(limit=1)[0].user == "bob"


def test_an_older_store_gets_the_columns_from_its_payloads(tmp_path):
    db = sqlite3.connect(tmp_path / "traces.sqlite3")
    db.execute("CREATE TABLE runs (trace_id TEXT PRIMARY KEY, created_at TEXT NOT NULL, question TEXT NOT NULL, "
               "status TEXT NOT NULL, provider TEXT, strategy_version TEXT, iterations INTEGER, total_ms REAL, "
               "reflection INTEGER, mode TEXT, issue_types TEXT, error TEXT, payload TEXT NOT NULL)")
    old = _payload("t1", ["faq"], "bob")
    db.execute("INSERT INTO runs VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
               ("t1", "2025-01-01", "q", "success", "", "", 0, 1.0, 1, "dual", "[]", None, json.dumps(old)))
    db.commit()
    db.close()
    store = TraceStore(tmp_path)
    assert store.list(readable=["manuals"], user="alice") == []
    assert [(t.trace_id, t.user, t.knowledge_bases) for t in store.list(readable=["faq"])] == [("t1", "bob", ("faq",))]
