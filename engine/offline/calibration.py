"""Fitting the answer selector and measuring selective question answering: risk-coverage, coverage at a target
accuracy, thresholds, all on folds the model was not fitted on.

A row is one question: ``SelectorRow(features, right, answerable, group)`` where ``right`` says the reader's best
candidate holds a gold answer (never for an unanswerable question). Answered accuracy counts every answered
question, answerable or not: answering an unanswerable question is a wrong answer.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date

import numpy as np

from engine.errors import EngineError
from engine.offline.model import LogisticModel

MIN_ROWS = 40
"""Fewest labelled questions a selector is fitted on; fewer give thresholds that move with every question."""
MIN_EACH = 10
"""Fewest right and fewest wrong best answers among them: a curve needs both."""
TARGETS = (0.6, 0.7, 0.8, 0.9, 0.95)
"""Answered accuracies a threshold is kept for."""
C_GRID = (0.01, 0.03, 0.1, 0.3, 1.0)


@dataclass(frozen=True)
class SelectorRow:
    features: Mapping[str, float]
    right: bool
    answerable: bool
    group: str
    weight: float = 1.0


def risk_coverage(p: Sequence[float], right: Sequence[bool]) -> list[tuple[float, float, float]]:
    """(threshold, share answered, accuracy of the answered) at every distinct score, most confident first."""
    order = np.argsort(-np.asarray(p, dtype=float), kind="stable")
    ps = np.asarray(p, dtype=float)[order]
    rs = np.asarray(right, dtype=float)[order]
    out = []
    hits = 0.0
    for n, (score, r) in enumerate(zip(ps, rs), start=1):
        hits += r
        if n == len(ps) or ps[n] != score:
            out.append((float(score), n / len(ps), hits / n))
    return out


def threshold_for(p: Sequence[float], right: Sequence[bool], accuracy: float) -> float:
    """The lowest threshold whose answered accuracy is at least ``accuracy`` (1.01: answer nothing)."""
    best = 1.01
    for score, _, acc in risk_coverage(p, right):
        if acc >= accuracy:
            best = score
    return best


def selective_figures(p: Sequence[float], right: Sequence[bool], answerable: Sequence[bool],
                      threshold: float, answered: Sequence[bool] | None = None) -> dict[str, float]:
    """Coverage, answered accuracy and refusal recall at ``threshold``; coverage at 80/90 % accuracy; accuracy at
    coverage 0.2 and 0.4; the area under the risk-coverage curve; ROC AUC of P for "the best answer is right"."""
    p = np.asarray(p, dtype=float)
    right = np.asarray(right, dtype=bool)
    answerable = np.asarray(answerable, dtype=bool)
    answered = p >= threshold if answered is None else np.asarray(answered, dtype=bool)
    curve = risk_coverage(p, right)
    out = {
        "questions": int(len(p)),
        "coverage": _share(answered & answerable, answerable),
        "answered_accuracy": _share(answered & right & answerable, answered & answerable),
        "selective_accuracy": _share(answered & right, answered),
        "refusal_recall": _share(~answered & ~answerable, ~answerable),
        "answered": int(answered.sum()),
        "aurc": round(float(np.mean([1 - acc for _, _, acc in curve])) if curve else 1.0, 4),
        "roc_auc": _auc(p, right),
    }
    for target in (0.8, 0.9):
        ok = [cov for _, cov, acc in curve if acc >= target]
        out[f"coverage_at_{int(target * 100)}"] = round(max(ok), 4) if ok else 0.0
    for cov in (0.2, 0.4):
        at = [acc for _, c, acc in curve if c >= cov]
        out[f"accuracy_at_coverage_{cov}"] = round(at[0], 4) if at else 0.0
    return out


def _share(part: np.ndarray, whole: np.ndarray) -> float:
    return round(float(part.sum() / whole.sum()), 4) if whole.sum() else 0.0


def _auc(p: np.ndarray, right: np.ndarray) -> float:
    if right.all() or (~right).all():
        return 0.5
    from sklearn.metrics import roc_auc_score

    return round(float(roc_auc_score(right, p)), 4)


def _fit(rows: Sequence[SelectorRow], c: float):
    from sklearn.feature_extraction import DictVectorizer
    from sklearn.linear_model import LogisticRegression

    vec = DictVectorizer(sparse=False)
    x = vec.fit_transform([r.features for r in rows])
    model = LogisticRegression(C=c, max_iter=5000)
    model.fit(x, [int(r.right) for r in rows], sample_weight=[r.weight for r in rows])
    return vec, model


def _predict(fitted, rows: Sequence[SelectorRow]) -> np.ndarray:
    vec, model = fitted
    return model.predict_proba(vec.transform([r.features for r in rows]))[:, 1]


def fold_of(rows: Sequence[SelectorRow], k: int) -> list[int]:
    """A fold per row, never splitting a group (an article, a document, or one question)."""
    groups = sorted({r.group for r in rows})
    order = {g: i % k for i, g in enumerate(groups)}
    return [order[r.group] for r in rows]


def out_of_fold(rows: Sequence[SelectorRow], k: int, c: float) -> np.ndarray:
    folds = fold_of(rows, k)
    p = np.zeros(len(rows))
    for fold in range(k):
        train = [r for r, f in zip(rows, folds) if f != fold]
        test = [i for i, f in enumerate(folds) if f == fold]
        if not test or len({r.right for r in train}) < 2:
            continue
        p[test] = _predict(_fit(train, c), [rows[i] for i in test])
    return p


def check_rows(rows: Sequence[SelectorRow], k: int) -> None:
    """EngineError when ``rows`` are too few to fit and measure a selector, saying how many more are needed."""
    right = sum(1 for r in rows if r.right)
    wrong = len(rows) - right
    if len(rows) < MIN_ROWS or right < MIN_EACH or wrong < MIN_EACH:
        raise EngineError(
            f"Calibration needs at least {MIN_ROWS} labelled questions with at least {MIN_EACH} answered right and "
            f"{MIN_EACH} not (got {len(rows)}: {right} right, {wrong} not); add "
            f"{max(MIN_ROWS - len(rows), MIN_EACH - right, MIN_EACH - wrong, 0)} or more questions to the file.")
    if k < 2 or k > len({r.group for r in rows}):
        raise EngineError(f"--folds must be between 2 and the number of questions ({len(rows)}).")


def fit_selector(rows: Sequence[SelectorRow], *, k: int = 5, c_grid: Sequence[float] = C_GRID,
                 score: Sequence[bool] | None = None, command: str = "", data: str = "") -> tuple[LogisticModel, dict]:
    """Fit a selector on ``rows`` with ``k``-fold cross-validation: C is chosen on the folds, the thresholds for each
    target accuracy are read from the out-of-fold risk-coverage curve, and the figures reported are out-of-fold.

    ``score`` picks the rows the figures and thresholds are measured on (default: all).
    """
    check_rows(rows, k)
    mask = np.ones(len(rows), dtype=bool) if score is None else np.asarray(score, dtype=bool)
    best = None
    for c in c_grid:
        p = out_of_fold(rows, k, c)
        aurc = selective_figures(p[mask], [r.right for r, m in zip(rows, mask) if m],
                                 [r.answerable for r, m in zip(rows, mask) if m], 0.5)["aurc"]
        if best is None or aurc < best[0]:
            best = (aurc, c, p)
    _, c, p = best
    right = [r.right for r, m in zip(rows, mask) if m]
    answerable = [r.answerable for r, m in zip(rows, mask) if m]
    thresholds = {str(t): round(threshold_for(p[mask], right, t), 4) for t in TARGETS}
    figures = {str(t): selective_figures(p[mask], right, answerable, thresholds[str(t)]) for t in (0.8, 0.9)}
    curve = [(round(s, 4), round(cov, 4), round(acc, 4)) for s, cov, acc in risk_coverage(p[mask], right)]
    vec, model = _fit(rows, c)
    weights = {name: round(float(w), 6) for name, w in zip(vec.get_feature_names_out(), model.coef_[0])}
    trained = {"command": command, "data": data, "date": date.today().isoformat(), "questions": len(rows),
               "folds": k, "C": c, "thresholds": thresholds, "cross_validated": figures,
               "curve": curve[:: max(len(curve) // 200, 1)]}
    return LogisticModel(round(float(model.intercept_[0]), 6), weights, trained), {"p": p, **trained}


def nested_decisions(rows: Sequence[SelectorRow], k: int, accuracy: float = 0.8) -> tuple[np.ndarray, np.ndarray]:
    """(P, answered) for every row from a selector fitted on the other folds, answering at the threshold those folds'
    own cross-validation chose for ``accuracy``: nothing about a held-out row is seen when deciding it."""
    check_rows(rows, k)
    folds = fold_of(rows, k)
    p = np.zeros(len(rows))
    answered = np.zeros(len(rows), dtype=bool)
    for fold in range(k):
        train = [r for r, f in zip(rows, folds) if f != fold]
        test = [i for i, f in enumerate(folds) if f == fold]
        if not test:
            continue
        inner = min(k, max(2, len({r.group for r in train})))
        model, fitted = fit_selector(train, k=inner)
        threshold = fitted["thresholds"][str(accuracy)] if str(accuracy) in fitted["thresholds"] else \
            threshold_for(fitted["p"], [r.right for r in train], accuracy)
        for i in test:
            p[i] = model.probability(rows[i].features)
            answered[i] = p[i] >= threshold
    return p, answered
