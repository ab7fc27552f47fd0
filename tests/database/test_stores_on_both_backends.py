"""Every store that is not vectors (traces, audit, agent runs, strategies, experiments, rollout) on SQLite and on
PostgreSQL, through the same calls the app makes."""

from __future__ import annotations

import threading

import pytest

from engine.agent import AuditLog
from engine.agent.run import RunState
from engine.errors import ConfigError, EngineError
from engine.experiments import ExperimentStore, RolloutStore, run_experiment, variant_pair
from engine.experiments.variants import ExperimentError
from engine.orchestration import Strategy, StrategyStore
from engine.tracing import TraceStore
from tests.experiments.fakes import FakePipeline, reflection_respond

pytestmark = pytest.mark.integration


def payload(trace_id: str, created_at: str, status: str = "success", bases: tuple[str, ...] = ("manuals",),
            user: str | None = "ana", issue: str | None = None) -> dict:
    reviews = [{"issues": [{"type": issue, "description": "d"}]}] if issue else []
    return {"trace_id": trace_id, "created_at": created_at, "question": f"q {trace_id}\x00", "status": status,
            "provider": "offline", "strategy_version": "v1", "iterations": 2, "timings": {"total": 12.5},
            "reviews": reviews, "tasks": [{"knowledge_base": b} for b in bases], "extra": {"user": user}}


def test_traces(database):
    store = TraceStore(database)
    store.save(payload("a", "2026-11-01T10:00:00+00:00"))
    store.save(payload("b", "2026-11-20T10:00:00+00:00", status="refused", bases=("manuals", "faq"), issue="fact"))
    store.save(payload("c", "2026-11-21T10:00:00+00:00", bases=(), user="bob"), error="boom sk-ant-api03-abcdefghijkl")
    store.save(payload("a", "2026-11-01T10:00:00+00:00", status="failure"))  # the same run again replaces it
    assert [r.trace_id for r in store.list()] == ["c", "b", "a"] and store.count() == 3
    assert [r.trace_id for r in store.list(status="refused")] == ["b"]
    assert [r.trace_id for r in store.list(issue_type="fact")] == ["b"]
    assert [r.trace_id for r in store.list(since="2026-11-15")] == ["c", "b"]
    assert [r.trace_id for r in store.list(limit=1, offset=1)] == ["b"]
    first = store.list(status="failure")[0]
    assert first.question == "q a\ufffd" and first.knowledge_bases == ("manuals",) and first.total_ms == 12.5
    assert "sk-ant" not in store.list()[0].error
    assert [r.trace_id for r in store.list(readable={"manuals"}, user="ana")] == ["a"]
    assert [r.trace_id for r in store.list(readable={"manuals", "faq"}, user="bob")] == ["c", "b", "a"]
    assert store.count(readable=set(), user="ana") == 0 and store.count(readable=set(), user="bob") == 1
    assert store.get("b")["status"] == "refused"
    with pytest.raises(EngineError, match="not found"):
        store.get("b", readable={"manuals"}, user="ana")


def test_audit_steps_runs_and_a_claim_raced_by_threads(database):
    log = AuditLog(database)
    for step in (1, 2):
        log.record_step(run_id="r1", step=step, user="ana\udc00", role="admin", tool="delete_document",
                        arguments={"doc_id": "x", "api_key": "k"}, decision="confirmation_required", duration_ms=1,
                        result_status="paused", message="token ghp_" + "a" * 30)
    steps = log.steps("r1")
    assert [s["step"] for s in steps] == [1, 2] and steps[0]["user"] == "ana\ufffd"
    assert steps[0]["arguments"] == {"doc_id": "x", "api_key": "[REDACTED]"} and "ghp_" not in steps[0]["message"]
    assert [s["step"] for s in log.steps(limit=1)] == [2]
    state = RunState(run_id="r1", user="ana", role="admin", request="delete x", provider="offline",
                     created_at="2026-01-01T00:00:00", status="paused", pending={"tool": "delete_document"})
    log.save_run(state)
    log.save_run(state)  # saving again updates the row
    assert log.load_run("r1").pending == {"tool": "delete_document"} and log.load_run("nope") is None
    wins: list[bool] = []
    threads = [threading.Thread(target=lambda: wins.append(log.claim("r1"))) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(wins) == [False] * 7 + [True]
    assert log.load_run("r1").status == "running"
    assert [(r["run_id"], r["status"], r["user"]) for r in log.runs()] == [("r1", "running", "ana")]
    assert log.runs(status="paused") == []


def test_strategies(database):
    store = StrategyStore(database)
    first, default = store.active()
    assert default == Strategy()
    tuned = Strategy(name="tuned", top_k=12)
    second = store.save(tuned, note="wider")
    versions = {store.save(Strategy(top_k=k), activate=False) for k in range(1, 6)}
    assert len(versions) == 5 and store.active() == (second, tuned)
    listed = store.versions()
    assert [v.version for v in listed] == sorted(versions | {first, second}, reverse=True)
    assert [v.version for v in listed if v.active] == [second]
    assert {c["field"] for c in store.diff(first, second)} == {"name", "top_k"}
    store.activate(first)
    assert StrategyStore(database).active() == (first, default)
    with pytest.raises(ConfigError, match="does not exist"):
        store.load("20200101T000000000000Z")


def test_experiments(database):
    store = ExperimentStore(database)
    assert store.list() == []
    result = run_experiment(FakePipeline(reflection_respond), ["Odd?", "Even??"], *variant_pair("reflection"),
                            n_resamples=20, store=store)
    assert store.get(result.id) == result
    store.save(result)  # saving again replaces it
    assert [s["id"] for s in store.list()] == [result.id]
    assert store.delete(result.id) and not store.delete(result.id)
    with pytest.raises(ExperimentError, match="not found"):
        store.get(result.id)


def test_rollout(database):
    store = RolloutStore(database)
    assert store.get().share == 100.0 and store.get().updated_at is None
    store.set(25)
    saved = store.set("30%")
    assert RolloutStore(database).get() == saved and saved.share == 30.0
