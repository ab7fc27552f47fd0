"""Every page answers at its own URL, and the sidebar lists the pages by their titles from the first moment of a
fresh server's first session (never the raw, lower-case names of the files in pages/)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.app_server import AppServer, wait_for_app

pytestmark = [pytest.mark.browser, pytest.mark.integration, pytest.mark.slow]

TITLES = ["Ask", "Documents", "Strategy", "Agent", "Traces", "Experiments"]
# The sidebar's page links, sampled every 50 ms from the first paint until the page's script has finished.
SAMPLE_NAV = """async () => {
  const seen = [];
  const deadline = Date.now() + 90000;
  while (Date.now() < deadline) {
    const links = [...document.querySelectorAll('[data-testid="stSidebarNav"] a')]
      .map(a => a.innerText.trim().split('\\n').pop().trim());
    if (links.length) seen.push(links.join('|'));
    const app = document.querySelector('[data-testid="stApp"]');
    if (app && app.getAttribute('data-test-script-state') === 'notRunning'
        && document.querySelector('[data-testid="stMainBlockContainer"] h1')) break;
    await new Promise(r => setTimeout(r, 50));
  }
  return seen;
}"""


def test_a_fresh_server_lists_page_titles_and_serves_every_page_at_its_url(browser, browser_store: Path,
                                                                          tmp_path: Path):
    import shutil

    data = tmp_path / "data"
    shutil.copytree(browser_store, data)
    with AppServer(data, log=tmp_path / "streamlit.log") as server:
        context = browser.new_context(viewport={"width": 1440, "height": 900})
        page = context.new_page()
        page.set_default_timeout(120_000)
        try:
            page.goto(f"{server.url}/documents", wait_until="commit")
            seen = page.evaluate(SAMPLE_NAV)
            assert seen and all(entry == "|".join(TITLES) for entry in seen), sorted(set(seen))
            for title in TITLES:
                page.goto(f"{server.url}/{title.lower()}")
                wait_for_app(page)
                page.get_by_role("heading", name=title, exact=True).wait_for()
                assert not page.get_by_text("Page not found").count(), title
                assert page.url.endswith(f"/{title.lower()}")
            page.goto(server.url)  # the root opens Ask, at its own address
            wait_for_app(page)
            page.get_by_role("heading", name="Ask", exact=True).wait_for()
            assert page.url.rstrip("/").endswith("/ask")
        finally:
            context.close()
        log = (tmp_path / "streamlit.log").read_text(errors="replace")
        assert "Traceback" not in log, log[-3000:]
