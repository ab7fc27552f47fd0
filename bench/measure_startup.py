"""Time ``make run`` on a fresh clone until its first page is drawn in headless Chromium.

    python bench/measure_startup.py [--repo .] [--dest /tmp/fresh] [--cold-model] [--after-page 0]
                                    [--until-indexed]

Clones ``--repo`` into ``--dest`` (removed first), runs ``make run PORT=<free port>`` there and polls
the app until a page has finished its script run and shows its title (the same test the browser
tests use). It prints, in seconds from the start of ``make run``: when the virtualenv was installed
(the stamp file appears), when the server answered its health check, and when the first page was
drawn; with ``--after-page N`` it keeps the page open N more seconds and reports what the page said
about indexing then; with ``--until-indexed`` it keeps the page open until the start-up indexing's progress box
is gone (every sample document indexed) and reports when. ``--cold-model`` removes the exported ONNX model from the shared model cache
first, so the export is timed too. The pip cache is left as it is (a fresh clone on a developer's
machine has one). The server's process group is stopped at the end.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.app_server import free_port, launch_chromium  # noqa: E402

NO_PROXY = urllib.request.build_opener(urllib.request.ProxyHandler({}))
INDEXING_BOX = '[class*="st-key-bootstrap"]'
"""The start-up indexing's progress box (components/bootstrap_view.py), on every page while it runs."""
FIRST_PAGE = ("() => { const app = document.querySelector('[data-testid=\"stApp\"]');"
              " return app && app.getAttribute('data-test-script-state') === 'notRunning'"
              " && document.querySelector('[data-testid=\"stMainBlockContainer\"] h1'); }")


def healthy(url: str) -> bool:
    try:
        with NO_PROXY.open(f"{url}/_stcore/health", timeout=2) as response:
            return response.status == 200
    except OSError:
        return False


def measure(repo: Path, dest: Path, timeout: float, after_page: float, until_indexed: bool = False) -> dict:
    shutil.rmtree(dest, ignore_errors=True)
    subprocess.run(["git", "clone", "--quiet", str(repo), str(dest)], check=True)
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    env = {k: v for k, v in os.environ.items()
           if k not in ("ANTHROPIC_API_KEY", "DATA_DIR", "WORKBENCH_DATA_DIR", "VIRTUAL_ENV")}
    log = open(dest / "make-run.log", "wb")  # noqa: SIM115 - closed below
    started = time.monotonic()
    process = subprocess.Popen(["make", "run", f"PORT={port}"], cwd=dest, env=env, stdout=log,
                               stderr=subprocess.STDOUT, start_new_session=True)
    times: dict[str, float | None] = {"installed": None, "healthy": None, "first_page": None}
    if until_indexed:
        times["indexed"] = None
    note = ""
    try:
        from playwright.sync_api import sync_playwright

        with sync_playwright() as playwright:
            browser = launch_chromium(playwright)
            page = browser.new_page(viewport={"width": 1440, "height": 1000})
            while time.monotonic() - started < timeout:
                if process.poll() is not None:
                    raise RuntimeError(f"make run exited with {process.returncode}; see {dest / 'make-run.log'}")
                if times["installed"] is None and (dest / ".venv" / ".installed").exists():
                    times["installed"] = time.monotonic() - started
                if times["healthy"] is None:
                    if healthy(url):
                        times["healthy"] = time.monotonic() - started
                    else:
                        time.sleep(0.5)
                        continue
                try:
                    page.goto(url, timeout=30_000)
                    page.wait_for_function(FIRST_PAGE, timeout=120_000, polling=250)
                except Exception:  # noqa: BLE001 - not drawn yet: try again
                    time.sleep(0.5)
                    continue
                times["first_page"] = time.monotonic() - started
                break
            while until_indexed and times["first_page"] is not None and time.monotonic() - started < timeout:
                if page.locator(INDEXING_BOX).count() == 0 and page.evaluate(FIRST_PAGE):
                    times["indexed"] = time.monotonic() - started
                    break
                time.sleep(0.5)
            if times["first_page"] is not None and after_page > 0:
                time.sleep(after_page)
                note = page.locator('[data-testid="stSidebarContent"]').inner_text()[-600:]
            browser.close()
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGTERM)
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
        log.close()
    return {"seconds": {k: None if v is None else round(v, 1) for k, v in times.items()},
            "commit": subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=dest, capture_output=True,
                                     text=True).stdout.strip(),
            "load_average": os.getloadavg(), "sidebar_after": note}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repo", default=str(ROOT), help="repository to clone (default: this one)")
    parser.add_argument("--dest", default="/tmp/fresh", help="where to clone it (removed first)")
    parser.add_argument("--timeout", type=float, default=900.0, help="give up after this many seconds")
    parser.add_argument("--after-page", type=float, default=0.0, help="seconds to stay on the page afterwards")
    parser.add_argument("--until-indexed", action="store_true",
                        help="stay on the page until the sample documents are indexed, and report when")
    parser.add_argument("--cold-model", action="store_true",
                        help="remove the shared exported embedding model first, so the export is timed too")
    args = parser.parse_args()
    if args.cold_model:
        cache = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "reflective-rag-workbench"
        shutil.rmtree(cache, ignore_errors=True)
    result = measure(Path(args.repo), Path(args.dest), args.timeout, args.after_page, args.until_indexed)
    print(json.dumps(result, indent=1))
    return 0 if result["seconds"]["first_page"] is not None else 1


if __name__ == "__main__":
    raise SystemExit(main())
