"""End to end in headless Chromium: ask a question and see the answer; upload a file and find it listed."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from playwright.sync_api import expect

from bench.app_server import wait_for_app, wait_for_uploads
from tests.ui.conftest import SAMPLE_QUESTION

pytestmark = [pytest.mark.browser, pytest.mark.integration, pytest.mark.slow]


def test_ask_shows_revised_answer_and_timing_chart(page, app_url: str):
    page.goto(app_url)
    wait_for_app(page)
    page.get_by_role("textbox", name="Question").fill(SAMPLE_QUESTION)
    page.get_by_text("best guess", exact=True).click()  # answer with the reader's best candidate
    page.get_by_role("button", name="Ask").click()
    page.get_by_text("Draft and revised answer").wait_for()
    wait_for_app(page)
    # the innermost column holding the "Revised" heading (the page layout is itself in columns)
    revised = page.locator('[data-testid="stColumn"]').filter(has=page.get_by_text("Revised", exact=True)).last
    expect(revised).to_contain_text("N.m")  # the revised answer quotes a torque figure
    expect(page.locator('[data-testid="stPlotlyChart"]').first).to_contain_text("Time per stage")
    page.get_by_role("button", name=re.compile(r"^\[\d+\]$")).first.click()  # a citation opens its evidence
    page.get_by_test_id("stPopoverBody").get_by_text("Authority").first.wait_for()


def test_uploaded_markdown_appears_in_documents_table(page, app_url: str, tmp_path: Path):
    note = tmp_path / "apu-start-note.md"
    note.write_text("---\ntitle: APU start limits note\nupdate_date: 2025-05-01\nauthority: 3\n---\n"
                    "# APU start limits\n\nWait 60 seconds between APU start attempts.\n")
    page.goto(f"{app_url}/documents")
    wait_for_app(page)
    page.locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files(str(note))
    page.get_by_text("apu-start-note.md").first.wait_for()
    wait_for_uploads(page)
    page.get_by_role("button", name="Index files").click()
    page.get_by_text("Last upload").wait_for()
    # Streamlit's grid draws on a canvas and mirrors its cells in an accessible table, read here.
    documents = page.locator('[data-testid="stDataFrame"]').last.locator("table")
    documents.filter(has_text="APU start limits note").wait_for(state="attached")
    assert "apu-start-note.md" in documents.inner_text()
