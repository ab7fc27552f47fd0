"""Fit the reader's learned parts on labelled rows (tools/reader_rows.py) and report cross-validated figures.

    python tools/train_reader.py sentences bench/results/rows_squad2.jsonl bench/results/rows_qa_dev.jsonl
    python tools/train_reader.py ranker    bench/results/rows_squad2.jsonl bench/results/rows_qa_dev.jsonl
    python tools/train_reader.py selector  bench/results/rows_squad2.jsonl bench/results/rows_qa_dev.jsonl

Each writes engine/offline/models/<part>.json (plain JSON, see engine/offline/model.py) with the command, the data
and the figures measured on folds never fitted on: squad2 is split by article (GroupKFold), qa_dev by question,
and qa_dev's figures are those of models fitted on squad2 plus the other qa_dev folds.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import defaultdict
from datetime import date
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

FOLDS = 5
C_GRID = (0.03, 0.1, 0.3)
OUT_OF_DOMAIN_WEIGHT = 10.0
"""Weight of a qa_dev row against a squad2 row when fitting: qa_dev is 91 questions beside 6,078, and it is the
kind of corpus (many short documents, evidence that may be about something else) the product meets."""


def read(paths: list[str]) -> list[dict]:
    rows = []
    for path in paths:
        name = re.sub(r"^rows\d*_|_[A-Z]$", "", Path(path).stem)  # rows_squad2, rows3_squad2_A -> squad2
        for line in open(path):
            row = json.loads(line)
            row["set"] = name
            row["file"] = Path(path).stem
            add_text_features(row)
            rows.append(row)
    return rows


def add_text_features(row: dict) -> None:
    """Features the reader computes from a candidate's text and the question's reading alone (its shape), added to
    the stored rows so they need not be dumped again when these change (engine/offline/shapes.py)."""
    from engine.offline.shapes import shape_features

    reading = row["reading"]
    for cand in row["candidates"]:
        cand["features"].update(shape_features(cand["text"], reading["type"], reading.get("head") or "",
                                               reading.get("wh") or "", " ".join(row["question"].split())))


def folds(rows: list[dict], k: int = FOLDS) -> list[int]:
    """A fold per row: squad2 by article (its group), other sets by question, never splitting a group."""
    out = []
    groups = sorted({r["group"] for r in rows})
    order = {g: i for i, g in enumerate(groups)}
    for r in rows:
        out.append(order[r["group"]] % k)
    return out


def fit(features: list[dict], labels: list[int], weights: list[float], c: float):
    from sklearn.feature_extraction import DictVectorizer
    from sklearn.linear_model import LogisticRegression

    vec = DictVectorizer(sparse=True)
    x = _int32(vec.fit_transform(features))
    model = LogisticRegression(C=c, max_iter=3000, solver="liblinear")
    model.fit(x, labels, sample_weight=weights)
    return vec, model


def _int32(x):
    """liblinear takes sparse matrices with 32-bit indices only."""
    x = x.tocsr()
    x.indices = x.indices.astype(np.int32)
    x.indptr = x.indptr.astype(np.int32)
    return x


def to_model(vec, model, trained: dict):
    from engine.offline.model import LogisticModel

    weights = {name: round(float(w), 6) for name, w in zip(vec.get_feature_names_out(), model.coef_[0]) if abs(w) > 1e-9}
    return LogisticModel(round(float(model.intercept_[0]), 6), weights, trained)


def out_of_fold(items: list[tuple[int, dict, int, float]], c: float) -> np.ndarray:
    """Scores of each item from a model fitted on the other folds: items are (fold, features, label, weight)."""
    scores = np.zeros(len(items))
    for fold in sorted({i[0] for i in items}):
        train = [i for i in items if i[0] != fold]
        test = [n for n, i in enumerate(items) if i[0] == fold]
        vec, model = fit([i[1] for i in train], [i[2] for i in train], [i[3] for i in train], c)
        scores[test] = model.decision_function(_int32(vec.transform([items[n][1] for n in test])))
    return scores


def weight_of(row: dict) -> float:
    return 1.0 if row["set"] == "squad2" else OUT_OF_DOMAIN_WEIGHT


# -- sentences ----------------------------------------------------------------------------------------------------

def _items(rows: list[dict], use: str, part: str) -> tuple[list, list[int]]:
    """(fold, features, label, weight) of each ``part`` ("sentences", "candidates") of the rows whose ``use`` flag is
    set, and the row each came from."""
    fold_of = folds(rows)
    items, owner = [], []
    for q, (row, fold) in enumerate(zip(rows, fold_of)):
        if row[use]:
            for unit in row[part]:
                items.append((fold, unit["features"], int(unit["right"]), weight_of(row)))
                owner.append(q)
    return items, owner


def _scored(items: list, owner: list[int], c: float) -> dict[int, list[tuple[float, int]]]:
    """(out-of-fold score, label) of each item, by row."""
    scores = out_of_fold(items, c)
    by_q = defaultdict(list)
    for n, q in enumerate(owner):
        by_q[q].append((scores[n], items[n][2]))
    return by_q


def sentences(rows: list[dict], c_grid=C_GRID) -> dict:
    items, owner = _items(rows, "in_evidence", "sentences")
    report = {}
    best = None
    for c in c_grid:
        by_q = _scored(items, owner, c)
        figures = {}
        for name in sorted({r["set"] for r in rows}):
            qs = [q for q in by_q if rows[q]["set"] == name]
            for k in (1, 3, 6, 8, 10):
                hit = sum(1 for q in qs if any(lab for _, lab in sorted(by_q[q], key=lambda t: -t[0])[:k]))
                figures[f"{name} recall@{k}"] = round(hit / max(len(qs), 1), 4)
            base = sum(1 for q in qs if any(lab for _, lab in by_q[q][:6]))
            figures[f"{name} recall@6 before"] = round(base / max(len(qs), 1), 4)
        report[str(c)] = figures
        key = figures.get("qa_dev recall@6", 0) + figures.get("squad2 recall@6", 0)
        if best is None or key > best[0]:
            best = (key, c)
    return {"by_c": report, "c": best[1], "items": items}


# -- candidates ---------------------------------------------------------------------------------------------------

def ranker(rows: list[dict], c_grid=C_GRID) -> dict:
    items, owner = _items(rows, "answerable", "candidates")
    report, best = {}, None
    for c in c_grid:
        by_q = _scored(items, owner, c)
        figures = {}
        for name in sorted({r["set"] for r in rows}):
            qs = [q for q, r in enumerate(rows) if r["set"] == name and r["answerable"]]
            held = [q for q in qs if rows[q]["in_evidence"]]
            top1 = sum(1 for q in qs if by_q.get(q) and max(by_q[q])[1])
            recall = sum(1 for q in held if any(lab for _, lab in by_q.get(q, [])))
            figures[f"{name} top1/answerable"] = round(top1 / max(len(qs), 1), 4)
            figures[f"{name} top3/answerable"] = round(sum(1 for q in qs if any(
                lab for _, lab in sorted(by_q.get(q, []), key=lambda t: -t[0])[:3])) / max(len(qs), 1), 4)
            figures[f"{name} candidate recall (gold in evidence)"] = round(recall / max(len(held), 1), 4)
            files = sorted({rows[q]["file"] for q in qs})
            for stem_ in files if len(files) > 1 else ():  # a set given in parts (squad2's two halves): each part
                part = [q for q in qs if rows[q]["file"] == stem_]
                figures[f"{stem_} top1/answerable"] = round(sum(1 for q in part if by_q.get(q) and max(by_q[q])[1])
                                                            / max(len(part), 1), 4)
        report[str(c)] = figures
        key = sum(figures[f"{name} top1/answerable"] for name in {r["set"] for r in rows})  # every set alike
        if best is None or key > best[0]:
            best = (key, c)
    return {"by_c": report, "c": best[1], "items": items}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("part", choices=("sentences", "ranker", "selector"))
    parser.add_argument("rows", nargs="+")
    parser.add_argument("--dry-run", action="store_true", help="report only; write no model")
    parser.add_argument("--c", type=float, action="append", default=None,
                        help="regularisation strength(s) to try instead of the default grid (repeatable)")
    args = parser.parse_args(argv)
    rows = read(args.rows)
    command = "python tools/train_reader.py " + " ".join(argv if argv is not None else sys.argv[1:])
    if args.part == "selector":
        from tools.train_selector import selector

        return selector(rows, command, args.dry_run)
    result = {"sentences": sentences, "ranker": ranker}[args.part](rows, tuple(args.c or C_GRID))
    print(json.dumps(result["by_c"], indent=1))
    items = result["items"]
    vec, model = fit([i[1] for i in items], [i[2] for i in items], [i[3] for i in items], result["c"])
    trained = {"command": command, "date": date.today().isoformat(), "rows": len(items), "C": result["c"],
               "sets": sorted({r["set"] for r in rows}), "cross_validated": result["by_c"][str(result["c"])],
               "folds": f"{FOLDS} folds; squad2 by article, qa_dev by question"}
    if not args.dry_run:
        from engine.offline.model import MODELS

        to_model(vec, model, trained).save(MODELS / f"{args.part}.json")
        print(f"wrote {MODELS / (args.part + '.json')}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
