"""Metric math, bootstrap intervals, paired and unpaired comparisons."""

from __future__ import annotations

import math

import pytest

from engine.experiments import AnswerRecord, ExperimentError, arm_metrics, compare_arms
from tests.experiments.fakes import make_answer

pytestmark = pytest.mark.unit


def records(arm: str, answers) -> list[AnswerRecord]:
    return [AnswerRecord.from_answer(i, arm, a) for i, a in enumerate(answers)]


ARM_A = [
    make_answer("q1", "success", valid=True, issues=1, iterations=1, total_ms=100),
    make_answer("q2", "refused", valid=False, issues=2, iterations=2, total_ms=200),
    make_answer("q3", "failure", valid=None, issues=5, iterations=9, total_ms=5000, extra={"error": "boom"}),
    make_answer("q4", "success", valid=True, issues=0, iterations=3, total_ms=400),
]
ARM_B = [
    make_answer("q1", "success", valid=True, iterations=2, total_ms=300),
    make_answer("q2", "success", valid=True, iterations=2, total_ms=300),
    make_answer("q3", "success", valid=True, issues=3, iterations=2, total_ms=300),
    make_answer("q4", "refused", valid=False, issues=1, iterations=2, total_ms=300),
]


def test_record_keeps_what_metrics_need():
    rec = AnswerRecord.from_answer(2, "A", ARM_A[2])
    assert rec.status == "failure" and rec.error == "boom" and not rec.validation_passed
    assert rec.review_issues == 5 and rec.latency_ms == 5000 and rec.trace_id.startswith("t")
    assert AnswerRecord.from_answer(0, "A", make_answer(total_ms=None)).latency_ms is None


def test_metric_values_exact():
    m = arm_metrics("A", "control", records("A", ARM_A))
    assert (m.answers, m.successes, m.refusals, m.failures) == (4, 2, 1, 1)
    assert m.values == {
        "validation_pass_rate": 0.5,          # 2 of 4; the failure counts as not passing
        "review_issues_per_answer": 1.0,      # (1 + 2 + 0) / 3 completed answers
        "refusal_rate": 0.25,
        "mean_iterations": 2.0,               # (1 + 2 + 3) / 3
        "latency_p50_ms": 200.0,              # median of 100, 200, 400
        "latency_p95_ms": 380.0,              # linear interpolation: 200 + 0.9 * 200
        "failure_rate": 0.25,
        "cost_per_answer_usd": 0.0,           # offline-style answers: no billed model calls
        "tokens_per_answer": 0.0,
    }


def test_differences_exact_and_inside_their_interval():
    cmp = compare_arms(records("A", ARM_A), records("B", ARM_B), seed=7, n_resamples=500, min_questions=1)
    assert cmp.paired
    diffs = {d.metric: d for d in cmp.diffs}
    assert diffs["validation_pass_rate"].diff == 0.25
    assert diffs["review_issues_per_answer"].diff == 0.0
    assert diffs["refusal_rate"].diff == 0.0
    assert diffs["failure_rate"].diff == -0.25
    assert diffs["latency_p50_ms"].diff == 100.0
    for d in cmp.diffs:
        assert d.ci_low <= d.diff <= d.ci_high, d


def test_bootstrap_deterministic_for_a_seed():
    a, b = records("A", ARM_A), records("B", ARM_B)
    first = compare_arms(a, b, seed=3, n_resamples=300, min_questions=1)
    assert compare_arms(a, b, seed=3, n_resamples=300, min_questions=1).diffs == first.diffs
    other = compare_arms(a, b, seed=4, n_resamples=300, min_questions=1)
    assert [d.ci_low for d in other.diffs] != [d.ci_low for d in first.diffs] or \
        [d.ci_high for d in other.diffs] != [d.ci_high for d in first.diffs]


def _iteration_arms():
    spread = [0, 6, 1, 5, 2, 4, 3, 6, 0, 5, 1, 4]
    a = records("A", [make_answer(f"q{i}", iterations=k) for i, k in enumerate(spread)])
    b = records("B", [make_answer(f"q{i}", iterations=k + 1) for i, k in enumerate(spread)])
    return a, b


def test_paired_interval_is_tighter_than_unpaired():
    a, b = _iteration_arms()
    paired = {d.metric: d for d in compare_arms(a, b, seed=1, n_resamples=1000, min_questions=1).diffs}[
        "mean_iterations"]
    assert (paired.diff, paired.ci_low, paired.ci_high) == (1.0, 1.0, 1.0)
    assert paired.significant and paired.verdict == "B worse"  # more iterations is worse
    loose = compare_arms(a, b, seed=1, n_resamples=1000, paired=False, min_questions=1)
    unpaired = {d.metric: d for d in loose.diffs}["mean_iterations"]
    assert not loose.paired and unpaired.diff == 1.0
    assert unpaired.ci_low < 0 < unpaired.ci_high and unpaired.ci_low <= 1.0 <= unpaired.ci_high


def test_different_questions_are_compared_unpaired():
    a, b = _iteration_arms()
    cmp = compare_arms(a, b[:-2], seed=0, n_resamples=200, min_questions=1)
    assert not cmp.paired and cmp.arms[1].answers == 10
    with pytest.raises(ExperimentError, match="paired=False"):
        compare_arms(a, b[:-2], paired=True)


def test_verdict_follows_direction():
    a = records("A", [make_answer(f"q{i}", valid=False) for i in range(10)])
    b = records("B", [make_answer(f"q{i}", valid=True) for i in range(10)])
    diffs = {d.metric: d for d in compare_arms(a, b, n_resamples=200, min_questions=1).diffs}
    diff = diffs["validation_pass_rate"]
    assert diff.diff == 1.0 and diff.verdict == "B better"
    assert diff.to_dict()["significant"] is True


def test_missing_values_give_none_not_nan():
    a = records("A", [make_answer("q", status="failure", valid=None, total_ms=None)])
    cmp = compare_arms(a, [], n_resamples=50, min_questions=1)
    assert cmp.arms[0].values["latency_p50_ms"] is None and cmp.arms[1].answers == 0
    assert all(d.ci_low is None and d.diff is None for d in cmp.diffs)
    assert not any(isinstance(v, float) and math.isnan(v) for v in cmp.arms[0].values.values())


def test_bad_bootstrap_settings_say_what_to_use():
    with pytest.raises(ExperimentError, match="2000"):
        compare_arms([], [], n_resamples=0)
    with pytest.raises(ExperimentError, match="0.95"):
        compare_arms([], [], confidence=95)


def test_model_cost_and_tokens_per_answer_come_from_the_recorded_usage():
    """Reflection on vs off on Claude: the arm that reviews pays for its review calls, and it shows."""
    from engine.llm.base import Usage
    from engine.llm.usage import UsageMeter

    def billed(question: str, *stages: str):
        meter = UsageMeter()
        for stage in stages:
            meter.record(stage, "claude-sonnet-5-5" if stage != "review" else "claude-haiku-5-5", Usage(2000, 300))
        answer = make_answer(question)
        return answer.model_copy(update={"extra": {**answer.extra, "usage": meter.summary().model_dump()}})

    off = records("A", [billed(f"q{i}", "draft") for i in range(3)])
    on = records("B", [billed(f"q{i}", "draft", "review") for i in range(3)])
    cmp = compare_arms(off, on, seed=1, n_resamples=200, min_questions=1)
    cost = next(d for d in cmp.diffs if d.metric == "cost_per_answer_usd")
    tokens = next(d for d in cmp.diffs if d.metric == "tokens_per_answer")
    assert cost.a == 0.007 and cost.b == round(0.007 + 0.00035, 6)  # Sonnet 5.5 draft; + Haiku 5.5 review
    assert tokens.diff == 2300 and cost.better == "lower"
    unpriced = make_answer("q").model_copy(update={"extra": {"usage": {"total": {"calls": 1, "cost_usd": None}}}})
    assert AnswerRecord.from_answer(0, "A", unpriced).cost_usd is None  # unknown, never counted as free
