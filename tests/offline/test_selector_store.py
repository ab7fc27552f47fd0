"""Calibrated selectors kept per set of bases: saved as JSON, found for the bases an ask covers, listed, deleted."""

from __future__ import annotations

import json
import random

import pytest

from engine.config import load_settings
from engine.errors import EngineError
from engine.evaluation.calibrate import chosen_point, questions_from_text
from engine.offline.calibrate import Calibration, SelectorStore
from engine.offline.calibration import SelectorRow, fit_selector

pytestmark = pytest.mark.unit


def fitted(bases: tuple[str, ...]) -> Calibration:
    rng = random.Random(3)
    rows = []
    for i in range(120):
        signal = rng.random()
        rows.append(SelectorRow({"bias": 1.0, "top_probability": signal}, rng.random() < signal, True, f"q{i}"))
    model, report = fit_selector(rows, k=4, command="test")
    from engine.offline.model import LogisticModel

    return Calibration(LogisticModel(model.intercept, model.weights, {**model.trained, "bases": list(bases)}),
                       bases, len(rows), report)


def test_a_selector_is_used_for_the_bases_it_was_calibrated_on_and_their_subsets(tmp_path):
    store = SelectorStore(load_settings(data_dir=tmp_path))
    assert store.for_bases(["notes"]) is None
    path = store.save(fitted(("notes", "manuals")))
    assert json.loads(path.read_text())["kind"] == "logistic"  # plain JSON, no pickle
    assert store.for_bases(["notes"]).name == store.for_bases(["manuals", "notes"]).name == path.stem
    assert store.for_bases(["notes", "faq"]) is None  # a base it never saw: the default decides
    narrow = store.save(fitted(("notes",)))
    assert store.for_bases(["notes"]).name == narrow.stem  # the closest fit wins
    assert [s["name"] for s in store.list()] == sorted([path.stem, narrow.stem])
    assert store.delete(narrow.stem) and not store.delete(narrow.stem)


def test_the_chosen_point_lies_on_the_curve_at_the_target():
    calibration = fitted(("notes",))
    point = chosen_point(calibration, 0.8)
    assert point is not None and point in calibration.curve
    assert point[0] >= calibration.model.trained["thresholds"]["0.8"]


def test_an_uploaded_file_with_a_bad_line_says_which():
    good = '{"id": "a", "question": "Who?", "answers": ["X"], "answerable": true}'
    assert len(questions_from_text(good + "\n\n" + good.replace('"a"', '"b"'), "q.jsonl")) == 2
    with pytest.raises(EngineError, match="q.jsonl line 2 is not JSON"):
        questions_from_text(good + "\n{oops", "q.jsonl")
    with pytest.raises(EngineError, match="answerable"):
        questions_from_text('{"id": "a", "question": "Who?", "answers": [], "answerable": "yes"}', "q.jsonl")
