"""Browser fixtures: the app served by ``streamlit run`` over a copy of the small store, and headless Chromium.

The tests skip only when /usr/bin/chromium is missing *and* the CI variable is unset; in CI a
missing browser is an error, so the suite cannot pass without running them.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from bench.app_server import CHROMIUM, AppServer, launch_chromium
from tests.ui.conftest import build_small_store


def _require_chromium() -> None:
    if CHROMIUM.exists():
        return
    if os.environ.get("CI"):
        pytest.fail(f"{CHROMIUM} is missing; install Debian's chromium package (.ci/run does) to run browser tests.")
    pytest.skip(f"{CHROMIUM} is missing (install the chromium package; in CI these tests must run)")


@pytest.fixture(scope="session")
def browser_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The small corpus, ingested once for all browser tests."""
    _require_chromium()
    return build_small_store(tmp_path_factory.mktemp("browser-store"))


@pytest.fixture(scope="module")
def app_server(browser_store: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[AppServer]:
    """A server over a copy of the store for this module's tests; stopped (process group killed) afterwards."""
    folder = tmp_path_factory.mktemp("browser-app")
    data, log = folder / "data", folder / "streamlit.log"
    shutil.copytree(browser_store, data)
    server = AppServer(data, log=log)
    try:
        server.start()
    except (RuntimeError, TimeoutError) as exc:
        pytest.fail(f"{exc}\n{log.read_text(errors='replace')[-4000:]}")
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="module")
def app_url(app_server: AppServer) -> str:
    return app_server.url


@pytest.fixture(scope="session")
def browser():
    _require_chromium()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = launch_chromium(playwright)
        yield chromium
        chromium.close()


@pytest.fixture()
def page(browser, app_url: str):
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    tab = context.new_page()
    tab.set_default_timeout(120_000)
    yield tab
    context.close()
