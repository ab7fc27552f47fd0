"""The API's /docs (Swagger UI) and /redoc render in headless Chromium with every request outside the server
refused: their scripts and styles are served by the API itself, not loaded from a CDN. (ReDoc's "powered by" logo
still points at its maker's site; it is the one thing missing offline, and /docs asks for nothing outside.)"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from bench.app_server import free_port

pytestmark = [pytest.mark.browser, pytest.mark.integration, pytest.mark.slow]


@pytest.fixture()
def api_url(tmp_path: Path) -> Iterator[str]:
    import uvicorn

    from engine.api import create_app
    from engine.config import load_settings

    app = create_app(load_settings(data_dir=tmp_path / "data"), warm=False)
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.1)
    try:
        yield url
    finally:
        server.should_exit = True
        thread.join(timeout=10)


def _offline_page(browser, url: str):
    context = browser.new_context()
    outside: list[str] = []

    def route(request_route):
        if request_route.request.url.startswith(url):
            request_route.continue_()
        else:
            outside.append((request_route.request.resource_type, request_route.request.url))
            request_route.abort()

    context.route("**/*", route)
    page = context.new_page()
    page.set_default_timeout(30_000)
    return context, page, outside


def test_docs_render_without_any_request_outside_the_server(browser, api_url: str):
    html = httpx.get(f"{api_url}/docs").text
    assert "cdn.jsdelivr.net" not in html and "/docs-assets/swagger-ui-bundle.js" in html
    context, page, outside = _offline_page(browser, api_url)
    try:
        page.goto(f"{api_url}/docs")
        page.locator(".swagger-ui .info .title").filter(has_text="Reflective RAG workbench API").wait_for()
        page.locator(".opblock-summary-path").filter(has_text="/v1/ask").first.wait_for()
        assert not outside, outside
        page.goto(f"{api_url}/redoc")
        page.get_by_role("heading", name="Reflective RAG workbench API").first.wait_for()
        assert all(kind == "image" for kind, _ in outside), outside
    finally:
        context.close()
