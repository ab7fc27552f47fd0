"""The project's .streamlit/config.toml: no file watcher when serving, and what the watcher skips in development."""

from __future__ import annotations

import pytest

from tests.ui.conftest import ROOT

pytestmark = pytest.mark.unit


def test_the_served_app_runs_without_a_file_watcher(monkeypatch):
    from streamlit import config

    monkeypatch.chdir(ROOT)
    config.get_config_options(force_reparse=True)
    assert config.get_option("server.fileWatcherType") == "none"
    assert {".venv", "data"} <= set(config.get_option("server.folderWatchBlacklist"))
    assert config.get_option("browser.gatherUsageStats") is False
