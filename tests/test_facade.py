"""The engine facade: one Workbench builds each part once, for the pages and the API alike."""

from __future__ import annotations

import threading

import pytest

from engine.config import load_settings
from engine.facade import TraceView, Workbench
from engine.identity import Identity

pytestmark = pytest.mark.unit


@pytest.fixture()
def workbench(tmp_path) -> Workbench:
    return Workbench(load_settings(data_dir=tmp_path / "data"), provider_id="offline")


def test_each_part_is_built_once_even_when_asked_for_at_once(workbench):
    found: list[object] = []
    threads = [threading.Thread(target=lambda: found.append(workbench.traces)) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len({id(part) for part in found}) == 1
    assert workbench.store is workbench.store and workbench.directory is workbench.directory


def test_views_for_an_identity_are_limited_and_the_ingestor_has_the_settings(workbench):
    alice = Identity("alice", "analyst", {"manuals": frozenset({"read", "write"})}, "token")
    assert workbench.store_for(alice).identity is alice and workbench.store_for(alice).inner is workbench.store
    assert workbench.ingestor_for(alice).settings is workbench.settings
    view = workbench.traces_for(alice)
    assert isinstance(view, TraceView) and view.user == "alice" and view.readable == []
    assert view.count() == 0


def test_warm_up_loads_the_store_the_embedding_model_and_spacy(workbench):
    assert [name for name, _ in workbench.warm_steps()] == ["knowledge bases", "embedding model",
                                                            "question parser (spaCy)",
                                                            "sentence vectors left to fill",
                                                            "unit conversions (pint)"]


def test_settings_must_be_a_settings_object():
    with pytest.raises(TypeError, match="Settings"):
        Workbench({"data_dir": "x"})  # type: ignore[arg-type]


def test_the_api_and_the_pages_serve_from_the_facade(tmp_path, monkeypatch):
    from engine.api import create_app

    app = create_app(load_settings(data_dir=tmp_path / "api"), warm=False)
    assert isinstance(app.state.services, Workbench)

    monkeypatch.setenv("DATA_DIR", str(tmp_path / "ui"))
    monkeypatch.delenv("WORKBENCH_DATA_DIR", raising=False)
    import streamlit as st

    from components import factories
    from engine.config import default_settings

    st.cache_resource.clear()
    default_settings.cache_clear()
    try:
        engine = factories.get_workbench()
        assert isinstance(engine, Workbench) and factories.get_store() is engine.store
        assert factories.get_agent_gate() is engine.gate and factories.get_trace_store() is engine.traces
    finally:
        st.cache_resource.clear()
        default_settings.cache_clear()
