"""The background warm-up runs its steps in order and reports each one's state, failures included."""

from __future__ import annotations

import threading

import pytest

from engine.warmup import Warmup

pytestmark = pytest.mark.unit


def test_steps_report_pending_loading_ready_and_failed():
    gate = threading.Event()
    calls: list[str] = []

    def slow() -> None:
        calls.append("slow")
        gate.wait(5)

    def broken() -> None:
        raise RuntimeError("model folder missing")

    warmup = Warmup([("store", lambda: calls.append("store")), ("model", slow), ("parser", broken)]).start()
    for _ in range(500):
        if warmup.states()[1].status == "loading":
            break
        threading.Event().wait(0.01)
    assert [s.status for s in warmup.states()] == ["ready", "loading", "pending"] and not warmup.done
    gate.set()
    assert warmup.wait(5)
    states = warmup.states()
    assert [s.status for s in states] == ["ready", "ready", "failed"] and calls == ["store", "slow"]
    assert states[2].error == "model folder missing"


def test_a_warmup_needs_steps():
    with pytest.raises(ValueError):
        Warmup([])
