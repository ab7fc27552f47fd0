"""`make run`'s start-up in headless Chromium: over an empty store with WORKBENCH_BOOTSTRAP_DIR, the first page is
drawn while the sample documents are indexed, the indexing bar moves with the work, and the bases appear in the
sidebar once indexed, without a reload."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from bench.app_server import AppServer, wait_for_app
from tests.test_bootstrap import sample_folder

pytestmark = [pytest.mark.browser, pytest.mark.integration, pytest.mark.slow]

BAR_TEXT = """() => [...document.querySelectorAll('[data-testid="stProgress"]')].map(b => b.innerText.trim())"""


def test_the_app_is_usable_while_the_samples_are_indexed(browser, tmp_path: Path):
    sample = sample_folder(tmp_path / "sample", sections=600)
    server = AppServer(tmp_path / "data", log=tmp_path / "streamlit.log",
                       env={"WORKBENCH_BOOTSTRAP_DIR": str(sample)})
    server.start()
    context = browser.new_context(viewport={"width": 1440, "height": 1000})
    page = context.new_page()
    page.set_default_timeout(120_000)
    try:
        page.goto(server.url)
        wait_for_app(page)
        page.get_by_role("heading", name="Ask", exact=True).wait_for()
        texts: list[str] = []
        deadline = time.monotonic() + 240
        while time.monotonic() < deadline:
            bars = [t for t in page.evaluate(BAR_TEXT) if t.startswith("Indexing") or "embedding model" in t]
            if bars and (not texts or texts[-1] != bars[0]):
                texts.append(bars[0])
            if "manuals:" in page.locator('[data-testid="stSidebarContent"]').inner_text() and not bars:
                break
            time.sleep(0.5)
        indexing = [t for t in texts if t.startswith("Indexing the sample documents")]
        assert len(indexing) >= 3, texts  # the bar moved while the long file was embedded
        embedded = [int(t.split(" · ")[1].split()[0]) for t in indexing if "3 of 3" not in t]
        assert len(set(embedded)) >= 3 and embedded == sorted(embedded), texts  # chunks counted as they went
        for count in ("manuals: 2 documents", "notes: 1 documents"):  # the sidebar redraws after the last file lands
            page.locator('[data-testid="stSidebarContent"]').get_by_text(count).first.wait_for()
        sidebar = page.locator('[data-testid="stSidebarContent"]').inner_text()
        assert "manuals: 2 documents" in sidebar and "notes: 1 documents" in sidebar, sidebar
        page.locator('[data-testid="stSidebarNav"] a').filter(has_text="Documents").click()
        page.get_by_role("heading", name="Documents", exact=True).wait_for()
        wait_for_app(page)
        page.get_by_text("3 documents in 2 knowledge bases").wait_for()
    finally:
        context.close()
        server.stop()
