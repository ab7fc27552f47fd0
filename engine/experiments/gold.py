"""Gold-answer metrics of an experiment arm: answered accuracy, refusal recall and coverage, as ``eval qa`` scores them.

The per-question verdict (``contains_answer``) and the metrics (``score``) are those of
:mod:`engine.evaluation.qa`, so an experiment and ``python -m engine eval qa`` agree on the same answers.
A metric with nothing to measure (refusal recall without unanswerable questions) is None, not 0.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

import numpy as np

from engine.evaluation.qa import score

MIN_PAIRED_QUESTIONS = 20
"""Below this many paired questions no interval or verdict is given: a percentile bootstrap over fewer
questions gives intervals that are too narrow and calls noise a difference."""
GOLD_METRICS: tuple[tuple[str, str], ...] = (
    ("answered_accuracy", "answered accuracy (gold)"),
    ("refusal_recall", "refusal recall (gold)"),
    ("coverage", "coverage (gold)"),
)
"""(name, label) of the gold metrics an experiment reports; higher is better for each."""


class GoldRecord(Protocol):
    """What gold scoring reads of an answer record."""

    status: str
    answerable: bool | None
    correct: bool | None
    chars: int
    latency_ms: float | None


def has_gold(records: Sequence[GoldRecord]) -> bool:
    """Every record carries a gold verdict (and there is at least one)."""
    return bool(records) and all(r.answerable is not None for r in records)


def _rows(records: Sequence[GoldRecord]) -> list[dict[str, Any]]:
    return [{"answerable": bool(r.answerable), "answered": r.status == "success", "correct": bool(r.correct),
             "chars": r.chars, "seconds": (r.latency_ms or 0.0) / 1000} for r in records]


def gold_values(records: Sequence[GoldRecord]) -> dict[str, float | None]:
    """The gold metrics of one arm's records; None where a metric has no question to measure it on."""
    return _values(_rows(records))


def _values(rows: list[dict[str, Any]]) -> dict[str, float | None]:
    metrics = score(rows) if rows else {}
    answerable = [r for r in rows if r["answerable"]]
    defined = {
        "answered_accuracy": any(r["answered"] for r in answerable),
        "refusal_recall": len(answerable) < len(rows),
        "coverage": bool(answerable),
    }
    return {name: float(metrics[name]) if defined[name] else None for name, _ in GOLD_METRICS}


def gold_bootstrap(records_a: Sequence[GoldRecord], records_b: Sequence[GoldRecord],
                   indices: np.ndarray) -> dict[str, np.ndarray]:
    """B - A of each gold metric for each paired resample (rows of ``indices``); NaN where undefined."""
    out = {name: np.full(len(indices), np.nan) for name, _ in GOLD_METRICS}
    rows_a, rows_b = _rows(records_a), _rows(records_b)
    for n, index in enumerate(indices):
        a, b = _values([rows_a[i] for i in index]), _values([rows_b[i] for i in index])
        for name, _ in GOLD_METRICS:
            if a[name] is not None and b[name] is not None:
                out[name][n] = b[name] - a[name]
    return out


def interval_note(paired: bool, n_a: int, n_b: int, minimum: int) -> str:
    """Why intervals and verdicts are withheld (empty when they are shown)."""
    if paired and n_a < minimum:
        return (f"No intervals or verdicts: {n_a} paired questions, fewer than {minimum}. A bootstrap interval "
                f"over so few questions is too narrow to trust, so no difference is called significant; run at "
                f"least {minimum} questions.")
    if not paired and min(n_a, n_b) < minimum:
        return (f"No intervals or verdicts: the arms answered {n_a} and {n_b} questions, fewer than {minimum} "
                f"in an arm; run at least {minimum} questions.")
    return ""
