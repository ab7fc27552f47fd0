"""What each A/B metric means and why the arms differ or not (engine/experiments/explain.py)."""

from __future__ import annotations

import pytest

from engine.experiments import QuestionSet, run_experiment, variant_pair
from engine.experiments.explain import MEANINGS, explain
from engine.experiments.gold import GOLD_METRICS
from engine.experiments.metrics import METRICS
from tests.experiments.fakes import FakePipeline, make_answer

pytestmark = pytest.mark.unit

QUESTIONS = QuestionSet("file:qs.txt", tuple(f"Question {n}?" for n in range(24)))


def test_every_metric_says_what_it_measures():
    assert {m.name for m in METRICS} | {name for name, _ in GOLD_METRICS} <= set(MEANINGS)
    assert all(MEANINGS.values())


def test_reflection_off_versus_on_explains_the_zeros_and_the_clear_differences(fake_pipeline):
    result = run_experiment(fake_pipeline, QUESTIONS, *variant_pair("reflection"), seed=1, n_resamples=200)
    lines = explain(result)
    assert any("review issues and iterations are 0 by design" in line for line in lines)
    assert any(line.startswith("On ") and "of 24 question(s) both arms ended the same way" in line for line in lines)
    assert any(line.startswith("B better: validation pass rate") and "excludes 0" in line for line in lines), lines
    assert any("Without gold answers" in line for line in lines)


def test_identical_arms_are_said_to_change_no_outcome():
    same = FakePipeline(lambda question, options: make_answer(question))
    result = run_experiment(same, QUESTIONS, *variant_pair("mode"), seed=1, n_resamples=200)
    lines = explain(result)
    assert any("the variants changed no outcome here" in line for line in lines), lines
    assert any(line.startswith("Equal in both arms:") and "validation pass rate" in line for line in lines), lines


def test_differences_on_too_few_questions_are_named_but_not_judged(fake_pipeline):
    few = QuestionSet("file:qs.txt", tuple(f"Question {n}?" for n in range(6)))
    lines = explain(run_experiment(fake_pipeline, few, *variant_pair("reflection"), seed=1, n_resamples=200))
    assert any(line.startswith("Different, but not judged on so few questions: validation pass rate") for line in lines)
