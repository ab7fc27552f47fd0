"""Full-page screenshots of the six pages, taken in headless Chromium against a temp copy of the sample store.

    python bench/screenshots.py [--store DATA_DIR] [--out docs/screenshots] [--widths 1024,1440]

Each page is shot at each width (``<page>-<width>.png``), on its own copy of the store. Headless Chromium draws
the pages' icons (status marks, "➕ new knowledge base…") only with an emoji font installed: on Debian,
``apt-get install fonts-noto-color-emoji`` first.

The store is copied first, so the source is never changed. Without ``--store`` the script
uses ``$DATA_DIR`` or ``./data`` when it holds knowledge bases, else indexes ``sample_docs/``
into a temporary folder (a minute or two). On the Ask page it answers sample questions before
the shot, so Ask and Traces show real runs; on Documents it uploads a file into a new base; on
Agent it sends a two-step request; on Experiments it runs a reflection A/B over a gold question file.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.app_server import AppServer, full_page_screenshot, launch_chromium, wait_for_app  # noqa: E402

QUESTIONS = (
    "Compare the fuel efficiency of A320 and B737, focusing on data from 2023 reports.",
    "Compare the maximum engine oil consumption limits of the CFM56-5B, LEAP-1A, CFM56-7B and LEAP-1B engines.",
    "What is the current final torque for the A320 main landing gear wheel axle nut according to the AMM?",
)
"""Asked in this order; the Ask shot shows the last answer, the Traces shot opens TRACE_TO_OPEN."""
TRACE_TO_OPEN = "engine oil consumption limits"
PAGES = ("documents", "strategy", "agent", "experiments")
AGENT_REQUEST = "search axle nut torque in manuals and export the results"
UPLOAD = ROOT / "sample_docs" / "faq" / "maintenance-faq-wheels-brakes.md"
UPLOAD_BASE = "hangar-notes"
GOLD_QUESTIONS = ROOT / "bench" / "questions" / "sample_new.jsonl"
EXPERIMENT_QUESTIONS = 2
WIDTHS = (1024, 1440)
"""Window widths the pages are shot at: a laptop's and a desktop's."""


def has_knowledge_bases(data_dir: Path) -> bool:
    folder = data_dir / "lancedb"
    return folder.is_dir() and any(p.name.startswith("kb_") or p.suffix == ".lance" for p in folder.iterdir())


def source_store(explicit: str | None, scratch: Path) -> Path:
    """The store to copy: --store, else $DATA_DIR / ./data with knowledge bases, else a fresh sample index."""
    if explicit:
        return Path(explicit)
    default = Path(os.environ.get("DATA_DIR", ROOT / "data"))
    if has_knowledge_bases(default):
        return default
    fresh = scratch / "sample-store"
    print(f"indexing sample_docs/ into {fresh} ...", flush=True)
    subprocess.run([sys.executable, "-m", "engine", "bootstrap", "--data-dir", str(fresh)], cwd=ROOT, check=True,
                   stdout=subprocess.DEVNULL)
    return fresh


def ask(page, question: str) -> None:
    page.get_by_role("textbox", name="Question").fill(question)
    # best guesses: at the default target the offline reader refuses (docs/benchmarks.md), and the shots show the
    # whole pipeline: draft, review, validation
    page.get_by_text("best guess", exact=True).click()
    page.get_by_role("button", name="Ask").click()
    page.get_by_role("heading", name=question).wait_for()
    page.locator('[data-testid="stPlotlyChart"]').first.wait_for()
    wait_for_app(page)


def open_run(page, text: str, tries: int = 3) -> None:
    """Pick the run whose entry contains ``text`` in the Traces page's "Open a run" box; wait for its panels."""
    picker = page.get_by_role("combobox", name="Open a run")
    for attempt in range(tries):
        picker.click()
        try:
            page.get_by_role("option").filter(has_text=text).first.click(timeout=10_000)
            break
        except Exception:  # noqa: BLE001 - the list closed under a rerun; try again
            page.keyboard.press("Escape")
            if attempt == tries - 1:
                raise
    page.get_by_text("Draft and revised answer").wait_for()


def wait_for_rerun(page) -> None:
    """After an action: let the rerun start (if it does), then wait for it to finish."""
    try:
        page.wait_for_function("() => document.querySelector('[data-testid=\"stApp\"]')"
                               ".getAttribute('data-test-script-state') !== 'notRunning'", timeout=5_000)
    except Exception:  # noqa: BLE001 - a fast rerun may finish before we look
        pass
    wait_for_app(page, timeout_ms=300_000)


def drive_agent(page) -> None:
    """Send the agent one request so the conversation and audit log have content."""
    page.get_by_role("textbox", name="Ask the agent").or_(page.locator("textarea").last).first.fill(AGENT_REQUEST)
    page.keyboard.press("Enter")
    wait_for_rerun(page)


def drive_documents(page) -> None:
    """Upload one file into a new knowledge base so the page shows the upload's per-file outcome."""
    page.locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files(str(UPLOAD))
    for attempt in range(4):  # a rerun of the page may close the list before the option is clicked
        page.get_by_label("Knowledge base", exact=True).click()
        try:
            page.get_by_role("option", name="➕ new knowledge base…").click(timeout=15_000)
            break
        except Exception:  # noqa: BLE001
            page.keyboard.press("Escape")
            if attempt == 3:
                raise
    page.get_by_role("textbox", name="New knowledge base name").fill(UPLOAD_BASE)
    page.get_by_role("textbox", name="New knowledge base name").press("Enter")
    wait_for_app(page)
    page.get_by_role("button", name="Index files").click()
    page.get_by_text("Last upload").wait_for()
    wait_for_app(page)


def drive_experiments(page) -> None:
    """Run a small reflection off/on experiment over a gold question file so every result panel has content."""
    # the experiment's controls come first; the calibration section below has an uploader and limits of its own
    page.get_by_text("Upload a file", exact=True).first.click()
    wait_for_rerun(page)
    page.locator('[data-testid="stFileUploaderDropzoneInput"]').first.set_input_files(str(GOLD_QUESTIONS))
    wait_for_rerun(page)
    limit = page.get_by_role("spinbutton", name="Question limit").first
    limit.fill(str(EXPERIMENT_QUESTIONS))
    limit.press("Enter")
    wait_for_rerun(page)
    page.get_by_role("button", name="Run experiment").click()
    wait_for_rerun(page)


DRIVERS = {"documents": drive_documents, "agent": drive_agent, "experiments": drive_experiments}


def shoot(page, url: str, path: Path, width: int) -> None:
    page.set_viewport_size({"width": width, "height": 1000})
    page.goto(url)
    wait_for_app(page)
    driver = DRIVERS.get(path.stem.rsplit("-", 1)[0])
    if driver is not None:
        try:
            driver(page)
        except Exception as exc:  # noqa: BLE001 - another page's controls changed: shoot it as it is
            print(f"note: could not drive the {path.stem} page ({type(exc).__name__}: {str(exc)[:300]}); shooting it as loaded")
    time.sleep(2)
    full_page_screenshot(page, path, width=width)
    report(path)


def report(path: Path) -> None:
    print(f"saved {path.relative_to(ROOT) if path.is_relative_to(ROOT) else path}", flush=True)


def take(store: Path, out: Path, scratch: Path, width: int) -> None:
    from playwright.sync_api import sync_playwright

    data = scratch / "data"
    shutil.copytree(store, data)
    out.mkdir(parents=True, exist_ok=True)
    with AppServer(data, log=scratch / "streamlit.log") as server, sync_playwright() as playwright:
        browser = launch_chromium(playwright)
        page = browser.new_page(viewport={"width": width, "height": 1000})
        page.set_default_timeout(180_000)

        page.goto(server.url)
        wait_for_app(page)
        for question in QUESTIONS:
            ask(page, question)
        time.sleep(2)
        full_page_screenshot(page, out / f"ask-{width}.png", width=width)
        report(out / f"ask-{width}.png")

        for name in PAGES:
            shoot(page, f"{server.url}/{name}", out / f"{name}-{width}.png", width)

        page.set_viewport_size({"width": width, "height": 1000})
        page.goto(f"{server.url}/traces")
        wait_for_app(page)
        open_run(page, TRACE_TO_OPEN)
        wait_for_app(page)
        time.sleep(2)
        full_page_screenshot(page, out / f"traces-{width}.png", width=width)
        report(out / f"traces-{width}.png")
        browser.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--store", help="data folder to copy (default: $DATA_DIR or ./data, else index sample_docs)")
    parser.add_argument("--out", default=str(ROOT / "docs" / "screenshots"), help="folder for the PNG files")
    parser.add_argument("--widths", default=",".join(map(str, WIDTHS)), help="window widths in pixels, comma-separated")
    args = parser.parse_args()
    widths = [int(w) for w in args.widths.split(",") if w.strip()]
    with tempfile.TemporaryDirectory(prefix="workbench-shots-") as tmp:
        scratch = Path(tmp)
        store = source_store(args.store, scratch)
        for width in widths:
            take(store, Path(args.out).resolve(), scratch / f"w{width}", width)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
