"""Fit the packaged answer selector (see tools/train_reader.py): the ranker's scores come from rankers fitted on the
other folds, so every question's selector features are what the shipped reader would give on unseen text."""

from __future__ import annotations

import json
import math
from collections import defaultdict

import numpy as np

from tools.train_reader import FOLDS, OUT_OF_DOMAIN_WEIGHT, fit, folds, _int32


class _Reading:
    def __init__(self, data: dict) -> None:
        self.answer_type = data["type"]
        self.wh = data["wh"]


class _Cand:
    def __init__(self, data: dict, score: float) -> None:
        self.features = data["features"]
        self.score = score
        self.right = data["right"]
        self.sentence_right = data.get("sentence_right", data["right"])


def ranker_scores(rows: list[dict], c: float) -> list[list[float]]:
    """Each candidate's ranker logit from a ranker fitted on the other folds (answerable questions only)."""
    fold_of = folds(rows)
    scores = [[0.0] * len(r["candidates"]) for r in rows]
    for fold in range(FOLDS):
        train = [(c_["features"], int(c_["right"]), 1.0 if r["set"] == "squad2" else OUT_OF_DOMAIN_WEIGHT)
                 for r, f in zip(rows, fold_of) if f != fold and r["answerable"] for c_ in r["candidates"]]
        vec, model = fit([t[0] for t in train], [t[1] for t in train], [t[2] for t in train], c)
        for q, (r, f) in enumerate(zip(rows, fold_of)):
            if f == fold and r["candidates"]:
                scores[q] = list(model.decision_function(_int32(vec.transform([x["features"] for x in r["candidates"]]))))
    return scores


def selector(rows: list[dict], command: str, dry_run: bool) -> int:
    """Fit two selectors on the same out-of-fold ranker scores: ``selector`` (is the best candidate the asked value?)
    and ``passage`` (does the best candidate's sentence hold the answer?). An answer leads with the value when the
    first is sure enough, else with the sentence when the second is, else it is refused."""
    from engine.offline.model import packaged

    c = float(packaged("ranker").trained.get("C", 0.3))
    scores = ranker_scores(rows, c)
    report = {}
    for part in ("selector", "passage"):
        report[part] = _fit_part(part, rows, scores, command, dry_run)
    return 0


def _fit_part(part: str, rows: list[dict], scores: list[list[float]], command: str, dry_run: bool) -> dict:
    from engine.offline.calibration import SelectorRow, fit_selector, selective_figures
    from engine.offline.model import MODELS
    from engine.language.question import VALUE_TYPES
    from engine.offline.selector import selector_features

    sel_rows, raw = [], defaultdict(list)
    for row, cand_scores in zip(rows, scores):
        ranked = sorted((_Cand(x, s) for x, s in zip(row["candidates"], cand_scores)), key=lambda k: -k.score)
        features = selector_features(_Reading(row["reading"]), row["signals"], ranked)
        # a question that asks for a value is answered by the value; any other by the value's sentence
        value = part == "selector" and row["reading"]["type"] in VALUE_TYPES
        right = bool(ranked and row["answerable"] and (ranked[0].right if value else ranked[0].sentence_right))
        group = row["group"] if row["set"] == "squad2" else f"{row['set']}:{row['group']}"
        sel_rows.append(SelectorRow(features, right, row["answerable"], group,
                                    1.0 if row["set"] == "squad2" else OUT_OF_DOMAIN_WEIGHT))
        raw["top_probability"].append(features.get("top_probability", 0.0))
        raw["best_similarity"].append(features["best_similarity"])
        raw["subject_coverage"].append(features["subject_coverage"])
    report = {}
    model, fitted = fit_selector(sel_rows, k=FOLDS, command=command, data=", ".join(sorted({r["set"] for r in rows})))
    p = fitted["p"]
    for name in sorted({r["set"] for r in rows}):
        idx = [i for i, r in enumerate(rows) if r["set"] == name]
        right = [sel_rows[i].right for i in idx]
        ans = [sel_rows[i].answerable for i in idx]
        figures = {t: selective_figures(p[idx], right, ans, th) for t, th in fitted["thresholds"].items()
                   if t in ("0.7", "0.8", "0.9")}
        figures["raw signals roc_auc"] = {k: selective_figures(np.asarray(v)[idx], right, ans, 0.5)["roc_auc"]
                                          for k, v in raw.items()}
        figures["best candidate right / answerable"] = round(sum(right) / max(sum(ans), 1), 4)
        report[name] = figures
    print(json.dumps({"part": part, "thresholds": fitted["thresholds"], "C": fitted["C"], "by_set": report},
                     indent=1))
    if not dry_run:
        trained = dict(model.trained)
        trained["by_set"] = report
        trained["label"] = ("the best candidate is the asked value (any candidate for a question that asks no value)"
                            if part == "selector" else "the best candidate's sentence holds the answer")
        from engine.offline.model import LogisticModel

        LogisticModel(model.intercept, model.weights, trained).save(MODELS / f"{part}.json")
        print(f"wrote {MODELS / (part + '.json')}")
    return report
