"""Stored runs: save, filter, read back, and aggregate."""

from __future__ import annotations

import pytest

from engine.errors import EngineError
from engine.tracing import RecordingTracer, TraceStore, trace_stats

pytestmark = pytest.mark.unit


def payload(trace_id: str, status: str = "success", iterations: int = 1, total: float = 100.0,
            issues: tuple[str, ...] = (), created_at: str = "2026-12-01T10:00:00+00:00") -> dict:
    return {
        "trace_id": trace_id, "created_at": created_at, "question": f"q {trace_id}", "status": status,
        "provider": "offline", "strategy_version": "v1", "iterations": iterations,
        "timings": {"perception": 5.0, "retrieval": total / 2, "answerability": total / 4, "total": total},
        "reviews": [{"issues": [{"type": t} for t in issues]}], "validation": {"issues": []},
        "extra": {"reflection": True, "mode": "dual"},
    }


def test_save_list_filter_and_get(tmp_path):
    store = TraceStore(tmp_path)
    store.save(payload("a", created_at="2026-11-01T00:00:00+00:00"))
    store.save(payload("b", status="refused", issues=("fact",)))
    store.save(payload("c", status="failure"), error="boom")
    assert [r.trace_id for r in store.list()] == ["c", "b", "a"]
    assert [r.trace_id for r in store.list(status="refused")] == ["b"]
    assert [r.trace_id for r in store.list(issue_type="fact")] == ["b"]
    assert [r.trace_id for r in store.list(since="2026-11-15")] == ["c", "b"]
    assert store.list(status="failure")[0].error == "boom"
    assert store.get("a")["question"] == "q a" and store.count() == 3
    with pytest.raises(EngineError, match="traces list"):
        store.get("zzz")


def test_stats_over_runs(tmp_path):
    store = TraceStore(tmp_path)
    for i, (status, total) in enumerate([("success", 100), ("success", 200), ("refused", 300), ("success", 400)]):
        store.save(payload(f"t{i}", status=status, total=total, iterations=i % 2, issues=("fact",) if i else ()))
    runs = store.list()
    stats = trace_stats(runs, [store.get(r.trace_id) for r in runs])
    assert stats.runs == 4 and stats.refusal_rate == 0.25
    assert stats.status_counts == {"success": 3, "refused": 1}
    assert stats.issue_counts == {"fact": 3} and stats.iterations == {0: 2, 1: 2}
    assert stats.stage_latency["total"] == {"p50": 250.0, "p95": 385.0, "n": 4}
    assert list(stats.stage_latency) == ["perception", "retrieval", "answerability", "total"]  # every stage an ask has
    assert trace_stats([], []).refusal_rate == 0.0


def test_recording_tracer_sums_spans_and_keeps_errors():
    tracer = RecordingTracer()
    with tracer.span("retrieval"):
        pass
    with pytest.raises(ValueError):
        with tracer.span("retrieval"):
            raise ValueError("x")
    assert list(tracer.timings()) == ["retrieval"] and tracer.spans[1].error == "ValueError: x"
