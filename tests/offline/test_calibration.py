"""Selective question answering: risk-coverage, thresholds for a target accuracy, fitting on folds."""

from __future__ import annotations

import random

import numpy as np
import pytest

from engine.errors import EngineError
from engine.offline.calibration import (
    MIN_ROWS,
    SelectorRow,
    fit_selector,
    nested_decisions,
    risk_coverage,
    selective_figures,
    threshold_for,
)
from engine.offline.model import LogisticModel
from engine.offline.selector import Selector

pytestmark = pytest.mark.unit


def test_the_curve_answers_the_most_confident_first():
    curve = risk_coverage([0.9, 0.8, 0.3, 0.2], [True, False, True, False])
    assert [(round(c, 2), round(a, 2)) for _, c, a in curve] == [(0.25, 1.0), (0.5, 0.5), (0.75, 0.67), (1.0, 0.5)]
    assert threshold_for([0.9, 0.8, 0.3, 0.2], [True, False, True, False], 0.9) == 0.9
    assert threshold_for([0.9, 0.8], [False, False], 0.5) == 1.01  # nothing is right enough: answer nothing


def test_figures_count_an_answered_unanswerable_question_as_wrong():
    figures = selective_figures([0.9, 0.8, 0.7, 0.1], [True, False, False, False], [True, True, False, False], 0.75)
    assert figures["coverage"] == 1.0 and figures["answered_accuracy"] == 0.5 and figures["refusal_recall"] == 1.0
    assert figures["selective_accuracy"] == 0.5 and 0 <= figures["aurc"] <= 1


def rows(n: int, seed: int = 7) -> list[SelectorRow]:
    rng = random.Random(seed)
    out = []
    for i in range(n):
        signal = rng.random()
        right = rng.random() < signal  # the signal predicts the label
        out.append(SelectorRow({"bias": 1.0, "signal": signal}, right, True, f"q{i}"))
    return out


def test_too_few_questions_are_refused_with_how_many_are_needed():
    with pytest.raises(EngineError, match=f"at least {MIN_ROWS} labelled questions"):
        fit_selector(rows(MIN_ROWS - 1))


def test_a_fitted_selector_learns_the_signal_and_keeps_thresholds_per_target():
    model, fitted = fit_selector(rows(300), k=5, command="test")
    assert model.weights["signal"] > 0
    assert fitted["thresholds"]["0.6"] <= fitted["thresholds"]["0.8"] <= fitted["thresholds"]["0.9"]
    assert fitted["cross_validated"]["0.8"]["roc_auc"] > 0.6
    selector = Selector.of(LogisticModel.from_json(model.to_json()), "test")
    assert selector.threshold == fitted["thresholds"]["0.8"]
    assert selector.threshold_for(0.9) == fitted["thresholds"]["0.9"]
    assert selector.probability({"bias": 1.0, "signal": 0.95}) > selector.probability({"bias": 1.0, "signal": 0.05})


def test_nested_decisions_never_see_the_held_out_fold():
    data = rows(200)
    p, answered = nested_decisions(data, 4)
    assert len(p) == len(answered) == 200
    right = np.array([r.right for r in data])
    assert right[answered].mean() > right.mean()  # answering the confident ones is more often right


def test_a_model_file_round_trips_as_plain_json(tmp_path):
    model = LogisticModel(-0.5, {"a": 1.25, "b": -2.0}, {"command": "x"})
    path = tmp_path / "m.json"
    model.save(path)
    from engine.offline.model import load

    again = load(path)
    assert again == model and abs(again.probability({"a": 1.0}) - 1 / (1 + np.exp(-0.75))) < 1e-9
    path.write_text("{}")
    with pytest.raises(EngineError, match="not a logistic model"):
        load(path)
