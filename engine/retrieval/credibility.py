"""Evidence credibility: task weight, source authority and recency, per the strategy's formula.

Every term runs from 0 to 1 with 0.5 as neutral: default authority 3 and an unknown date (by default) score 0.5,
so documents that say nothing about their date or authority are neither rewarded nor penalised.
"""

from __future__ import annotations

import math
from datetime import date

from engine.orchestration.strategy import CredibilityFormula
from engine.results import TimeConstraint


def recency(update: date | None, formula: CredibilityFormula, window: TimeConstraint | None, today: date) -> float:
    """1.0 inside the question's time window (or for a brand-new document), halving every half-life away.

    An unknown date scores ``formula.unknown_date_recency`` (0.5 by default: neutral, not old).
    """
    if update is None:
        return formula.unknown_date_recency
    if window is not None and (window.start or window.end):
        if (window.start is None or update >= window.start) and (window.end is None or update <= window.end):
            return 1.0
        edge = window.start if window.start and update < window.start else window.end or window.start
        distance = abs((edge - update).days)
    else:
        distance = max((today - update).days, 0)
    return math.pow(0.5, distance / formula.half_life_days)


def credibility(
    task_weight: float, max_weight: float, authority: int, update: date | None,
    formula: CredibilityFormula, window: TimeConstraint | None, today: date,
) -> float:
    """A score in [0, 1]; higher means more trustworthy evidence for this question, 0.5 is neutral."""
    task_term = task_weight / max_weight if max_weight > 0 else 0.0
    authority_term = (min(max(authority, 1), 5) - 1) / 4
    value = (formula.w_task * task_term + formula.w_authority * authority_term
             + formula.w_recency * recency(update, formula, window, today))
    return round(min(max(value, 0.0), 1.0), 4)
