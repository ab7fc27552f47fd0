"""Run the workbench with ``streamlit run`` on a free loopback port, for browser tests and screenshots."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import IO

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = Path("/usr/bin/chromium")
_NO_PROXY = urllib.request.build_opener(urllib.request.ProxyHandler({}))
CHROMIUM_ARGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync")


def free_port() -> int:
    """A TCP port nobody listens on right now (on 127.0.0.1)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class AppServer:
    """``streamlit run app.py`` over ``data_dir``; use as a context manager, or call start()/stop()."""

    def __init__(self, data_dir: Path, port: int | None = None, log: Path | None = None,
                 env: dict[str, str] | None = None, startup_timeout: float = 90.0) -> None:
        self.data_dir = Path(data_dir)
        self.port = port or free_port()
        self.log_path = log
        self.extra_env = env or {}
        self.startup_timeout = startup_timeout
        self.process: subprocess.Popen[bytes] | None = None
        self._log: IO[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> AppServer:
        env = {k: v for k, v in os.environ.items() if k not in ("ANTHROPIC_API_KEY", "WORKBENCH_DATA_DIR")}
        env.update({"DATA_DIR": str(self.data_dir), "PYTHONUNBUFFERED": "1"}, **self.extra_env)
        command = [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true",
                   "--server.port", str(self.port), "--server.address", "127.0.0.1",
                   "--browser.gatherUsageStats", "false"]  # the file watcher is off in .streamlit/config.toml
        self._log = open(self.log_path, "wb") if self.log_path else None  # noqa: SIM115 - closed in stop()
        self.process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=self._log or subprocess.DEVNULL,
                                        stderr=subprocess.STDOUT, start_new_session=True)
        self.wait_healthy()
        return self

    def wait_healthy(self) -> None:
        """Wait until /_stcore/health answers ok; raise if the server exits or the timeout passes."""
        deadline = time.monotonic() + self.startup_timeout
        while time.monotonic() < deadline:
            if self.process is not None and self.process.poll() is not None:
                raise RuntimeError(f"streamlit exited with {self.process.returncode}; see {self.log_path or 'its log'}")
            try:
                with _NO_PROXY.open(f"{self.url}/_stcore/health", timeout=2) as response:
                    if response.status == 200 and response.read().strip() == b"ok":
                        return
            except OSError:
                pass
            time.sleep(0.3)
        self.stop()
        raise TimeoutError(f"streamlit did not become healthy on {self.url} within {self.startup_timeout:.0f} s")

    def stop(self) -> None:
        """Stop the server (its whole process group) and close the log."""
        if self.process is not None and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(timeout=10)
        self.process = None
        if self._log is not None:
            self._log.close()
            self._log = None

    def __enter__(self) -> AppServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def launch_chromium(playwright):
    """Debian's headless Chromium through Playwright (``playwright install`` is not needed)."""
    return playwright.chromium.launch(executable_path=str(CHROMIUM), args=list(CHROMIUM_ARGS), headless=True)


def wait_for_app(page, timeout_ms: float = 60_000) -> None:
    """Wait until the page's script run finished (Streamlit marks it on the app root) and a title is shown."""
    page.wait_for_function(
        "() => { const app = document.querySelector('[data-testid=\"stApp\"]');"
        " return app && app.getAttribute('data-test-script-state') === 'notRunning'"
        " && document.querySelector('[data-testid=\"stMainBlockContainer\"] h1'); }",
        timeout=timeout_ms,
    )


def wait_for_uploads(page, timeout_ms: float = 120_000) -> None:
    """Wait until the file uploader lists at least one file and none is still being sent to the app (Streamlit shows
    a spinner on a file's chip until the app has it; a form submitted before then goes without that file)."""
    page.wait_for_function(
        "() => document.querySelector('[data-testid=\"stFileChip\"]')"
        " && !document.querySelector('[data-testid=\"stFileChipIconSpinner\"]')",
        timeout=timeout_ms,
    )


def full_page_screenshot(page, path: Path, width: int = 1500, settle_s: float = 1.5) -> None:
    """Screenshot the whole page: Streamlit scrolls inside its main block, so grow the viewport to fit it."""
    height = page.evaluate(
        "() => Math.max(document.body.scrollHeight,"
        " ...[...document.querySelectorAll('[data-testid=\"stMain\"], [data-testid=\"stMainBlockContainer\"],"
        " [data-testid=\"stSidebarContent\"]')].map(e => e.scrollHeight))"
    )
    page.set_viewport_size({"width": width, "height": int(height) + 80})
    time.sleep(settle_s)
    page.screenshot(path=str(path), full_page=True)
