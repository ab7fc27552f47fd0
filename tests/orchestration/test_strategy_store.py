"""Strategies are versioned documents: every save is a new version; any version loads and activates."""

from __future__ import annotations

import pytest

from engine.errors import ConfigError
from engine.orchestration import Strategy, StrategyStore

pytestmark = pytest.mark.unit


def test_versions_save_load_activate_and_diff(tmp_path):
    store = StrategyStore(tmp_path)
    first, default = store.active()
    assert default == Strategy()
    tuned = Strategy(name="tuned", top_k=12, search_weights={"vector": 1.0, "keyword": 1.5, "hybrid": 1.2})
    second = store.save(tuned, note="more keyword")
    assert second != first and store.active() == (second, tuned)
    assert [v.version for v in store.versions()] == [second, first]
    assert store.versions()[0].active and store.versions()[0].note == "more keyword"
    changes = {c["field"]: (c["a"], c["b"]) for c in store.diff(first, second)}
    assert changes == {"name": ("default", "tuned"), "top_k": (8, 12), "search_weights.keyword": (0.8, 1.5)}
    store.activate(first)
    assert StrategyStore(tmp_path).active() == (first, default)  # survives a new process


def test_rapid_saves_get_distinct_versions(tmp_path):
    store = StrategyStore(tmp_path)
    versions = {store.save(Strategy(top_k=k)) for k in range(1, 20)}
    assert len(versions) == 19


def test_unknown_or_malformed_versions_fail_clearly(tmp_path):
    store = StrategyStore(tmp_path)
    with pytest.raises(ConfigError, match="not a strategy version"):
        store.load("../../etc/passwd")
    with pytest.raises(ConfigError, match="does not exist"):
        store.load("20200101T000000000000Z")
