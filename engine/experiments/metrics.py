"""Per-answer records, per-arm metrics, and B - A differences with bootstrap confidence intervals.

Rates (validation pass, refusal, failure) are over all answers; a failed run counts
as not passing validation. Review issues, iterations and latency are over completed
(non-failure) answers only, so a crash does not look like a fast, issue-free answer.
Review issues are summed over every review round of an answer (none without reflection).
Model cost and tokens per answer are over all answers (a failed run was billed too); an answer whose
model has no price counts as unknown cost, not as free. Offline answers cost 0, so an A/B of reflection
on against off on Claude says what the review costs.
With gold answers (an ``eval qa`` question file) each arm also gets answered accuracy, refusal
recall and coverage (:mod:`engine.experiments.gold`). Below ``MIN_PAIRED_QUESTIONS`` paired
questions no interval and no verdict is given.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from engine.evaluation.qa import QARow, contains_answer
from engine.experiments.gold import (
    GOLD_METRICS, MIN_PAIRED_QUESTIONS, gold_bootstrap, gold_values, has_gold, interval_note,
)
from engine.experiments.variants import ExperimentError
from engine.llm.usage import usage_of
from engine.results import Answer

Stat = Literal["mean", "p50", "p95"]


@dataclass(frozen=True)
class AnswerRecord:
    """What an experiment keeps of one Answer (the full run stays in the trace ``trace_id``)."""

    index: int
    arm: str
    question: str
    status: str
    validation_passed: bool
    review_issues: int
    iterations: int
    latency_ms: float | None
    trace_id: str = ""
    error: str | None = None
    answerable: bool | None = None
    correct: bool | None = None
    chars: int = 0
    cost_usd: float | None = 0.0
    tokens: int = 0

    @classmethod
    def from_answer(cls, index: int, arm: str, answer: Answer, gold: QARow | None = None) -> AnswerRecord:
        """The record of ``answer``; with ``gold``, also whether the question was answerable and answered right."""
        total = answer.timings.get("total")
        answered = answer.status == "success"
        error = str(answer.extra.get("error") or answer.final or "failure") if answer.status == "failure" else None
        used = usage_of(answer).total
        return cls(
            index=index, arm=arm, question=answer.question, status=answer.status,
            validation_passed=bool(answer.validation is not None and answer.validation.is_valid
                                   and answer.status != "failure"),
            review_issues=sum(len(review.issues) for review in answer.reviews), iterations=int(answer.iterations),
            latency_ms=float(total) if total is not None else None, trace_id=answer.trace_id,
            error=error, answerable=None if gold is None else gold.answerable,
            correct=None if gold is None else answered and contains_answer(answer.final, gold.answers),
            chars=len(answer.final) if answered else 0, cost_usd=used.cost_usd, tokens=used.tokens,
        )

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> AnswerRecord:
        return cls(**{k: data.get(k) for k in cls.__dataclass_fields__ if k in data})


@dataclass(frozen=True)
class MetricSpec:
    """How one metric is computed from records: a per-answer value and a statistic over answers."""

    name: str
    label: str
    value: Callable[[AnswerRecord], float]
    stat: Stat = "mean"
    completed_only: bool = False
    better: Literal["higher", "lower"] = "lower"

    def values(self, records: Sequence[AnswerRecord]) -> np.ndarray:
        """Per-answer values; NaN marks answers this metric leaves out."""
        return np.array([math.nan if self.completed_only and r.status == "failure" else float(self.value(r))
                         for r in records], dtype=float)


def _latency(record: AnswerRecord) -> float:
    return math.nan if record.latency_ms is None else record.latency_ms


def _cost(record: AnswerRecord) -> float:
    return math.nan if record.cost_usd is None else record.cost_usd


METRICS: tuple[MetricSpec, ...] = (
    MetricSpec("validation_pass_rate", "validation pass rate", lambda r: r.validation_passed, better="higher"),
    MetricSpec("review_issues_per_answer", "review issues per answer", lambda r: r.review_issues,
               completed_only=True),
    MetricSpec("refusal_rate", "refusal rate", lambda r: r.status == "refused"),
    MetricSpec("mean_iterations", "mean iterations", lambda r: r.iterations, completed_only=True),
    MetricSpec("latency_p50_ms", "latency p50 (ms)", _latency, stat="p50", completed_only=True),
    MetricSpec("latency_p95_ms", "latency p95 (ms)", _latency, stat="p95", completed_only=True),
    MetricSpec("failure_rate", "failure rate", lambda r: r.status == "failure"),
    MetricSpec("cost_per_answer_usd", "model cost per answer (USD)", _cost),
    MetricSpec("tokens_per_answer", "model tokens per answer", lambda r: r.tokens),
)
USAGE_METRICS = ("cost_per_answer_usd", "tokens_per_answer")
"""Metrics in dollars and tokens, on scales of their own (not charted beside the rates)."""
METRIC_NAMES = tuple(m.name for m in METRICS)


def statistic(values: np.ndarray, stat: Stat) -> np.ndarray | float:
    """Mean / median / 95th percentile along the last axis, ignoring NaN (all-NaN gives NaN)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        if stat == "mean":
            return np.nanmean(values, axis=-1)
        return np.nanpercentile(values, 50 if stat == "p50" else 95, axis=-1)


@dataclass(frozen=True)
class ArmMetrics:
    """Counts and metric values for one arm."""

    arm: str
    variant: str
    answers: int
    successes: int
    refusals: int
    failures: int
    values: dict[str, float | None] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {**{k: v for k, v in self.__dict__.items() if k != "values"}, "values": dict(self.values)}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ArmMetrics:
        return cls(**{**data, "values": dict(data.get("values", {}))})


@dataclass(frozen=True)
class MetricDiff:
    """B - A for one metric, with a bootstrap confidence interval (None where it cannot be computed)."""

    metric: str
    label: str
    a: float | None
    b: float | None
    diff: float | None
    ci_low: float | None
    ci_high: float | None
    better: str
    withheld: bool = False

    @property
    def significant(self) -> bool:
        """The interval excludes zero."""
        return self.ci_low is not None and self.ci_high is not None and (self.ci_low > 0 or self.ci_high < 0)

    @property
    def verdict(self) -> str:
        """'B better', 'B worse', 'no clear difference', or 'too few questions to judge' when intervals are withheld."""
        if self.withheld:
            return "too few questions to judge"
        if not self.significant or self.diff is None:
            return "no clear difference"
        improved = self.diff > 0 if self.better == "higher" else self.diff < 0
        return "B better" if improved else "B worse"

    def to_dict(self) -> dict[str, Any]:
        return {**self.__dict__, "significant": self.significant, "verdict": self.verdict}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> MetricDiff:
        return cls(**{k: data.get(k) for k in cls.__dataclass_fields__})


@dataclass(frozen=True)
class Comparison:
    """Both arms' metrics and the differences B - A."""

    arms: tuple[ArmMetrics, ArmMetrics]
    diffs: tuple[MetricDiff, ...]
    paired: bool
    n_resamples: int
    confidence: float
    seed: int
    interval_note: str = ""


def _clean(value: Any) -> float | None:
    value = float(value)
    return None if math.isnan(value) else round(value, 6)


def arm_metrics(arm: str, variant: str, records: Sequence[AnswerRecord]) -> ArmMetrics:
    """Counts and every metric in METRICS for one arm's records (and the gold metrics when they carry gold)."""
    statuses = [r.status for r in records]
    values = {m.name: _clean(statistic(m.values(records), m.stat)) for m in METRICS}
    if has_gold(records):
        values.update(gold_values(records))
    return ArmMetrics(arm, variant, len(records), statuses.count("success"), statuses.count("refused"),
                      statuses.count("failure"), values)


def same_questions(a: Sequence[AnswerRecord], b: Sequence[AnswerRecord]) -> bool:
    """Both arms ran the same questions in the same order (so a paired bootstrap applies)."""
    return len(a) == len(b) and all(x.question == y.question for x, y in zip(a, b, strict=True))


def compare_arms(records_a: Sequence[AnswerRecord], records_b: Sequence[AnswerRecord], *,
                 names: tuple[str, str] = ("A", "B"), seed: int = 0, n_resamples: int = 2000,
                 confidence: float = 0.95, paired: bool | None = None,
                 min_questions: int = MIN_PAIRED_QUESTIONS) -> Comparison:
    """Metrics per arm and B - A per metric with a percentile bootstrap interval.

    Paired (questions resampled together in both arms) when both arms ran the same
    questions, unless ``paired`` says otherwise; else each arm is resampled alone.
    The same resamples serve every metric, so the result is deterministic for a seed.
    With fewer than ``min_questions`` questions (per arm) intervals and verdicts are withheld,
    and ``Comparison.interval_note`` says why. Gold metrics are compared when both arms carry
    gold verdicts for the same questions.
    """
    if n_resamples < 1:
        raise ExperimentError(f"n_resamples must be at least 1 (got {n_resamples}); 2000 is a good default.")
    if not 0 < confidence < 1:
        raise ExperimentError(f"confidence must be between 0 and 1 (got {confidence}); use e.g. 0.95.")
    if paired is None:
        paired = same_questions(records_a, records_b)
    elif paired and len(records_a) != len(records_b):
        raise ExperimentError("A paired comparison needs the same questions in both arms; use paired=False.")
    rng = np.random.default_rng(seed)
    n_a, n_b = len(records_a), len(records_b)
    idx_a = rng.integers(0, n_a, size=(n_resamples, n_a)) if n_a else None
    idx_b = idx_a if paired else (rng.integers(0, n_b, size=(n_resamples, n_b)) if n_b else None)
    alpha = (1 - confidence) / 2
    note = interval_note(bool(paired), n_a, n_b, min_questions)
    if note:
        idx_a = idx_b = None
    diffs = []
    for metric in METRICS:
        va, vb = metric.values(records_a), metric.values(records_b)
        a, b = statistic(va, metric.stat), statistic(vb, metric.stat)
        low = high = math.nan
        if idx_a is not None and idx_b is not None:
            boot = statistic(vb[idx_b], metric.stat) - statistic(va[idx_a], metric.stat)
            boot = boot[~np.isnan(boot)]
            if boot.size:
                low, high = np.quantile(boot, [alpha, 1 - alpha])
        diffs.append(MetricDiff(metric.name, metric.label, _clean(a), _clean(b), _clean(b - a),
                                _clean(low), _clean(high), metric.better, withheld=bool(note)))
    arms = (arm_metrics("A", names[0], records_a), arm_metrics("B", names[1], records_b))
    if paired and has_gold(records_a) and has_gold(records_b):
        diffs += _gold_diffs(arms, records_a, records_b, idx_a, alpha, bool(note))
    return Comparison(arms, tuple(diffs), bool(paired), n_resamples, confidence, seed, note)


def _gold_diffs(arms: tuple[ArmMetrics, ArmMetrics], records_a: Sequence[AnswerRecord],
                records_b: Sequence[AnswerRecord], indices: np.ndarray | None, alpha: float,
                withheld: bool) -> list[MetricDiff]:
    """B - A of each gold metric, with a paired percentile interval when ``indices`` are given."""
    boot = gold_bootstrap(records_a, records_b, indices) if indices is not None else {}
    diffs = []
    for name, label in GOLD_METRICS:
        a, b = arms[0].values[name], arms[1].values[name]
        low = high = math.nan
        samples = boot.get(name, np.array([]))
        samples = samples[~np.isnan(samples)]
        if samples.size:
            low, high = np.quantile(samples, [alpha, 1 - alpha])
        diff = None if a is None or b is None else round(b - a, 6)
        diffs.append(MetricDiff(name, label, a, b, diff, _clean(low), _clean(high), "higher", withheld=withheld))
    return diffs
