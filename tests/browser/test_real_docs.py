"""A new user's path in headless Chromium: the real public documents uploaded through the Documents page into a new
base beside the sample bases, listed under their own titles, and an answer over every base that still gives the
current value rather than a superseded one (documents about other things never flip an answer)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from playwright.sync_api import TimeoutError as PlaywrightTimeout

from bench.app_server import wait_for_app, wait_for_uploads
from bench.common import DATASETS

pytestmark = [pytest.mark.browser, pytest.mark.integration, pytest.mark.slow]

REAL_DOCS = DATASETS / "real_docs"
FILES = ("federal-register-2020-17221.pdf", "scotus-transcript-p1.pdf", "nics-background-checks-2015-11.pdf",
         "senate-expenditures.pdf", "pdfplumber-README.md", "pdfplumber-CHANGELOG.md")
NO_FILES_YET = "No file has reached the app yet"
"""The start of the Documents page's warning for "Index files" clicked with no file uploaded."""
CURRENT_TORQUE_QUESTION = "What is the current final torque for the A320 main gear axle nut?"


def _title_from_file_name(name: str) -> str:
    """The title a file name alone would give ("federal-register-2020-17221.pdf" -> "Federal register 2020 17221")."""
    stem = Path(name).stem.replace("-", " ").replace("_", " ")
    return stem[:1].upper() + stem[1:]


def _pick(page, label: str, option: str, tries: int = 4) -> None:
    """Choose ``option`` in the select box ``label``; a rerun of the page may close the list before it is clicked."""
    for attempt in range(tries):
        page.get_by_label(label, exact=True).click()
        try:
            page.get_by_role("option", name=option).click(timeout=15_000)
            return
        except PlaywrightTimeout:
            if attempt == tries - 1:
                raise
            page.keyboard.press("Escape")
            wait_for_app(page)


def _choose_files(page, paths: list[Path], tries: int = 3) -> None:
    """Give the uploader ``paths`` until it lists them, each sent to the app. The name box's Enter reruns the page,
    and a rerun that lands after the wait for the app may mount the uploader anew, so files given to the old one are
    lost; they are given again to the one in place. When none is ever listed, the page's text goes into the
    failure."""
    for _ in range(tries):
        page.wait_for_timeout(1_000)  # a rerun the last key press asked for has begun by now
        wait_for_app(page, timeout_ms=300_000)
        page.locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files([str(p) for p in paths])
        try:
            wait_for_uploads(page, timeout_ms=60_000)
            return
        except PlaywrightTimeout:
            continue
    pytest.fail(f"the uploader did not list the files as sent after {tries} tries; the page: "
                + page.locator("body").inner_text()[:2000])


def _index(page, paths: list[Path], tries: int = 3) -> None:
    """Click "Index files" until the ingest starts. A click that reaches the app before the files do submits the
    form without them, and the page says so, as a user who clicked too soon would see; a click may also be lost to a
    rerun of the page. Before each click the files are given again if the uploader no longer lists them. When no
    click starts the ingest, the page's text goes into the failure."""
    started = page.get_by_text(re.compile(r"Indexing \d+ file|^Last upload$"))
    too_soon = page.get_by_text(NO_FILES_YET)
    for _ in range(tries):
        wait_for_app(page, timeout_ms=300_000)
        if started.count():  # an earlier click's ingest, seen late
            return
        if not page.locator('[data-testid="stFileChip"]').count():
            _choose_files(page, paths)
        page.get_by_role("button", name="Index files").click()
        try:
            started.or_(too_soon).first.wait_for(timeout=60_000)
        except PlaywrightTimeout:
            continue
        if started.count():
            return
    pytest.fail(f"no ingest started in {tries} clicks of 'Index files'; the page: "
                + page.locator("body").inner_text()[:2000])


def _listed_cells(page, tries: int = 6) -> list[str]:
    """The outcome and documents tables' cells once the outcome lists every file. The tables are read after the
    page's last script run, and read again when a rerun (the documents list refreshing after the ingest) replaced them
    between the wait and the read; what was last read is returned either way, so a file that is never listed fails
    the test that asks for it."""
    cells: list[str] = []
    for _ in range(tries):
        wait_for_app(page, timeout_ms=300_000)
        outcome = page.locator('[data-testid="stDataFrame"]').filter(has_text="outcome").first.locator("table")
        try:
            outcome.filter(has_text="pdfplumber-CHANGELOG.md").wait_for(state="attached", timeout=60_000)
        except PlaywrightTimeout:
            continue
        documents = page.locator('[data-testid="stDataFrame"]').last.locator("table")
        cells = [*outcome.locator("th, td").all_inner_texts(), *documents.locator("th, td").all_inner_texts()]
        listed = {" ".join(c.split()) for c in cells}
        if all(name in listed for name in FILES):
            return cells
        page.wait_for_timeout(2_000)
    return cells


@pytest.fixture(scope="module")
def uploaded(browser, app_url: str) -> list[str]:
    """The real documents, uploaded once for this module into a new base ``public``; the upload outcome and documents
    tables' cells."""
    if not REAL_DOCS.is_dir():
        pytest.fail(f"{REAL_DOCS} is missing: the real_docs dataset is needed for these tests")
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    page.set_default_timeout(300_000)
    try:
        page.goto(f"{app_url}/documents")
        wait_for_app(page)
        _pick(page, "Knowledge base", "➕ new knowledge base…")
        box = page.get_by_role("textbox", name="New knowledge base name")
        box.fill("public")
        box.press("Enter")
        wait_for_app(page)
        _choose_files(page, [REAL_DOCS / f for f in FILES])
        _index(page, [REAL_DOCS / f for f in FILES])
        page.get_by_text("Last upload").wait_for()
        wait_for_app(page, timeout_ms=300_000)
        # the upload's outcome table lists every file with the title it was given; the documents table below it
        # mirrors only the rows in view into its accessible table
        return _listed_cells(page)
    finally:
        context.close()


def test_uploaded_real_documents_are_listed_under_their_own_titles(uploaded: list[str]):
    cells = [" ".join(c.split()) for c in uploaded]
    for name in FILES:
        assert name in cells, f"{name} is not listed"
    assert sum("added" in c for c in cells) >= len(FILES), "every file is reported as added to the new base"
    from_names = {_title_from_file_name(n).lower() for n in FILES if n.endswith(".pdf")}
    kept = sorted({c for c in cells if c.lower() in from_names})  # a title may show in both tables
    assert len(kept) <= 1, f"titles taken from file names instead of the documents: {kept}"
    assert "None" not in cells, "an unknown date is shown as None"


def test_current_value_holds_with_unrelated_documents_in_another_base(uploaded: list[str], page, app_url: str):
    page.goto(app_url)
    wait_for_app(page)
    page.get_by_role("textbox", name="Question").fill(CURRENT_TORQUE_QUESTION)
    page.get_by_text("best guess", exact=True).click()
    page.get_by_role("button", name="Ask").click()
    page.get_by_text("Draft and revised answer").wait_for()
    wait_for_app(page)
    assert re.search(r"Time\W+“current", page.locator("body").inner_text()), "'current' was not read as a time limit"
    revised = page.locator('[data-testid="stColumn"]').filter(has=page.get_by_text("Revised", exact=True)).last
    text = revised.inner_text()
    lead = text.split("Revised", 1)[-1].strip().split(". ")[0]
    assert "325 N.m" in lead, f"the first sentence does not state the current torque: {lead!r}"
    assert not re.search(r"\b(?:300|270) N\.m", lead), f"a superseded torque leads the answer: {lead!r}"
