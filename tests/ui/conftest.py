"""Fixtures for page tests: a small ingested store as DATA_DIR, and AppTest on app.py over it.

``ui_store_template`` ingests a few sample documents once per session (the A320 axle-nut
revisions, the fleet fuel-efficiency reports, two low-authority FAQ notes). ``ui_data_dir``
gives each test its own copy as ``DATA_DIR`` and clears every cached engine object, so pages
see that copy. ``app`` is an ``AppTest`` of ``app.py``; switch pages with ``open_page``.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SAMPLE_DOCS = ROOT / "sample_docs"
SMALL_CORPUS: dict[str, tuple[str, ...]] = {
    "manuals": (
        "a320-amm-32-41-rev10.pdf", "a320-amm-32-41-rev10.meta.yaml",
        "a320-amm-32-41-rev11.docx", "a320-amm-32-41-rev11.meta.yaml",
        "a320-amm-32-41-rev12.pdf", "a320-amm-32-41-rev12.meta.yaml",
        "fleet-fuel-efficiency-report-2022.html", "fleet-fuel-efficiency-report-2022.meta.yaml",
        "fleet-fuel-efficiency-report-2023.pdf", "fleet-fuel-efficiency-report-2023.meta.yaml",
        "fleet-fuel-efficiency-report-2024.docx", "fleet-fuel-efficiency-report-2024.meta.yaml",
    ),
    "faq": ("shop-note-2019-mlg-axle-nut.txt", "faq-fuel-efficiency-quick-facts.md"),
}
SAMPLE_QUESTION = "What is the current final torque for the A320 main landing gear wheel axle nut according to the AMM?"
APP_TIMEOUT = 180.0
"""Seconds an AppTest run may take: the first question loads the embedding and spaCy models."""


def build_small_store(root: Path) -> Path:
    """Copy the small corpus under ``root/src`` and ingest it into ``root/data``; returns the data folder."""
    from engine.config import load_settings
    from engine.ingest import Ingestor
    from engine.store import KnowledgeBaseStore

    data = root / "data"
    store = KnowledgeBaseStore(load_settings(data_dir=data))
    for kb, names in SMALL_CORPUS.items():
        folder = root / "src" / kb
        folder.mkdir(parents=True, exist_ok=True)
        for name in names:
            shutil.copy2(SAMPLE_DOCS / kb / name, folder / name)
        report = Ingestor(store).ingest_paths([folder], kb)
        rejected = [f for f in report.files if f.status == "rejected"]
        assert not rejected, f"sample files rejected: {rejected}"
    assert store.sentence_filler.wait(300)  # a template copied whole: its sentence vectors stored too
    return data


def reset_engine_caches() -> None:
    """Forget every cached engine object so the next run builds them for the current DATA_DIR."""
    import streamlit as st

    from engine.config import default_settings

    st.cache_resource.clear()
    st.cache_data.clear()
    default_settings.cache_clear()


@pytest.fixture(scope="session")
def ui_store_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A data folder holding the small corpus, ingested once per session. Copy it; do not change it."""
    return build_small_store(tmp_path_factory.mktemp("ui-store"))


@pytest.fixture()
def ui_data_dir(ui_store_template: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """This test's own copy of the small store, set as DATA_DIR, with engine caches cleared around it."""
    data = tmp_path / "data"
    shutil.copytree(ui_store_template, data)
    monkeypatch.delenv("WORKBENCH_DATA_DIR", raising=False)
    monkeypatch.setenv("DATA_DIR", str(data))
    reset_engine_caches()
    yield data
    reset_engine_caches()


@pytest.fixture()
def app(ui_data_dir: Path):
    """``AppTest`` of app.py (not yet run) over this test's store, on the offline provider."""
    from streamlit.testing.v1 import AppTest

    return AppTest.from_file(str(ROOT / "app.py"), default_timeout=APP_TIMEOUT)


def open_page(at, page: str):
    """Run app.py (the Ask page), then switch to ``views/<page>.py`` and run that."""
    at.run()
    return at.switch_page(f"views/{page}.py").run()


def ask(at, question: str = SAMPLE_QUESTION, reflection: str = "on", accuracy: str | None = None):
    """Type ``question`` on the Ask page, choose the reflection setting (and how sure an answer must be) and submit."""
    at.text_area(key="ask.question").input(question)
    at.segmented_control(key="ask.reflection").set_value(reflection)
    if accuracy is not None:
        at.segmented_control(key="ask.accuracy").set_value(accuracy)
    next(b for b in at.button if b.label == "Ask").click()
    return at.run()
