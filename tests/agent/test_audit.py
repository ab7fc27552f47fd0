"""The audit log: redaction, steps, and runs that survive a new connection."""

from __future__ import annotations

import pytest

from engine.agent import AuditLog, redact
from engine.agent.run import RunState
from engine.database import Database

pytestmark = pytest.mark.unit


def test_redaction_of_secret_keys_and_key_like_values():
    value = {"password": "hunter2", "API_KEY": "x",
             "nested": {"authToken": "abc", "note": "key sk-ant-1234567890abcdef"},
             "list": ["Bearer abcdefghijklmnop", "ghp_" + "a" * 30, "plain"], "query": "brakes", "n": 3}
    out = redact(value)
    assert out["password"] == out["API_KEY"] == out["nested"]["authToken"] == "[REDACTED]"
    assert out["nested"]["note"] == "key [REDACTED]"
    assert out["list"] == ["[REDACTED]", "[REDACTED]", "plain"] and out["query"] == "brakes" and out["n"] == 3


def test_steps_and_runs_persist_across_connections(tmp_path):
    log = AuditLog.in_data_dir(tmp_path)
    log.record_step(run_id="r1", step=1, user="ana", role="viewer", tool="calculator",
                    arguments={"expression": "1+1", "secret": "s"}, decision="allowed", duration_ms=1.5,
                    result_status="ok")
    state = RunState(run_id="r1", user="ana", role="viewer", request="q", provider="offline", created_at="t",
                     status="paused", pending={"tool_use_id": "t1", "tool": "x", "arguments": {}, "risk": "high"})
    log.save_run(state)
    log.close()

    again = AuditLog(Database(f"sqlite:///{tmp_path / 'workbench.db'}"))  # a second engine on the same file
    (row,) = again.steps("r1")
    assert row["arguments"] == {"expression": "1+1", "secret": "[REDACTED]"} and row["decision"] == "allowed"
    loaded = again.load_run("r1")
    assert loaded.status == "paused" and loaded.pending["tool"] == "x"
    assert again.claim("r1") is True and again.claim("r1") is False
    assert again.load_run("r1").status == "running" and again.load_run("nope") is None
    assert [r["run_id"] for r in again.runs()] == ["r1"]
    assert again.steps(limit=0) == [] and len(again.steps()) == 1


def test_in_memory_log():
    log = AuditLog(":memory:")
    log.record_step(run_id="r", step=1, user="u", role="admin", tool="t", arguments=None, decision="invalid",
                    duration_ms=0, result_status="invalid_arguments")
    assert log.steps()[0]["arguments"] is None
