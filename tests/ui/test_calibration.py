"""Experiments page, calibration: too few questions say how many more are needed; kept selectors are listed."""

from __future__ import annotations

import pytest

from tests.offline.test_selector_store import fitted
from tests.ui.conftest import open_page

pytestmark = pytest.mark.integration


def test_too_few_questions_are_refused_before_anything_is_asked(app, ui_data_dir):
    at = open_page(app, "experiments")
    line = b'{"id": "q1", "question": "What is the final torque?", "answers": ["325 N.m"], "answerable": true}\n'
    at.file_uploader(key="calibration.file").set_value(("gold.jsonl", line * 3, "application/json")).run()
    at.button(key="calibration.fit").click().run()
    assert not at.exception
    assert any("at least 40 labelled questions" in e.value and "add 37" in e.value for e in at.error)


def test_a_kept_selector_is_listed_with_its_bases(app, ui_data_dir):
    from engine.config import load_settings
    from engine.offline.calibrate import SelectorStore

    SelectorStore(load_settings(data_dir=ui_data_dir)).save(fitted(("manuals",)))
    at = open_page(app, "experiments")
    assert not at.exception
    frames = [d.value for d in at.dataframe if "bases" in d.value.columns]
    assert frames and "manuals" in frames[0]["bases"].tolist()
