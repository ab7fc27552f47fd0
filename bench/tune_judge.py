"""Tune the offline judge's support blend on one half of review_dev and report it on the other half.

Rows are split by a hash of their id: ``sha256(id) % 2 == 0`` is the tuning half, ``== 1`` the
held-out half. Two commands (run from the project root):

    python bench/tune_judge.py grid                      # grid on the tuning half, prints the best settings
    python bench/tune_judge.py halves VERDICTS.jsonl     # metrics of `eval review --out` verdicts: full, tune, held-out

``grid`` reviews the tuning half once, recording each statement's coverage, similarity and
alignment, whether a hard check failed (figure, unit, subject, name, negation) and whether the
row has issues that do not depend on the blend (absolute wording, relevance, format); it then
scores every blend and threshold on those records without reviewing again.
"""

from __future__ import annotations

import argparse
import hashlib
import json
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path

from common import DATASETS

from engine.evaluation.review import detection_metrics, read_review_rows, review_rows
from engine.offline.judge import JudgeConfig, OfflineJudge
from engine.reflection.judgement import Judgement
from engine.offline.reviewer import OfflineReviewer

DEFAULT_FILE = DATASETS / "review_dev" / "begin_dev.jsonl"
HALVES = {"tune": 0, "held-out": 1}
_CONFLICT = "newer or more authoritative"  # the wording of the reviewer's contradicting-figure issues
_LISTED = "only among other values"


def half(row_id: str) -> int:
    """0 (tuning half) or 1 (held-out half), from the row id alone."""
    return int(hashlib.sha256(row_id.encode("utf-8")).hexdigest(), 16) % 2


class _Recorder:
    """Delegates to an offline judge and keeps (signals, failed hard check) per judged statement."""

    def __init__(self, judge: OfflineJudge) -> None:
        self.inner = judge
        self.threshold = judge.threshold
        self.records: list[tuple[float, float, float, bool]] = []

    def prepare(self, texts: Sequence[str]) -> None:
        self.inner.prepare(texts)

    def judge(self, statement: str, evidence_sentences: Sequence[str]) -> Judgement:
        found = self.inner.judge(statement, evidence_sentences)
        s = found.signals
        self.records.append((s["coverage"], s["similarity"], s["alignment"], bool(found.findings)))
        return found


def grid(path: Path) -> dict:
    rows = [r for r in read_review_rows(path) if half(r.id) == HALVES["tune"] and r.label is not None]
    recorder = _Recorder(OfflineJudge())
    reviewer = OfflineReviewer(require_citations=False, judge=recorder)
    per_row: list[tuple[int, list[tuple[float, float, float, bool]], bool]] = []
    for row, verdict in zip(rows, review_rows(rows, reviewer)):
        statements = recorder.records
        recorder.records = []
        other = any(i["type"] != "fact" or _CONFLICT in i["description"] or _LISTED in i["description"]
                    for i in verdict["issues"])  # issues the blend does not decide
        per_row.append((int(row.label), statements, other or not statements))
    labels = [label for label, _, _ in per_row]
    results = []
    steps = [round(x * 0.05, 2) for x in range(21)]
    for cw in steps:
        for aw in (a for a in steps if cw + a <= 1.0 + 1e-9):
            sw = round(1.0 - cw - aw, 2)
            for t in (round(0.5 + x * 0.01, 2) for x in range(41)):
                predictions = [int(other or any(failed or cw * c + sw * s + aw * a < t for c, s, a, failed in st))
                               for _, st, other in per_row]
                metrics, _ = detection_metrics(labels, predictions)
                results.append({"coverage_weight": cw, "similarity_weight": sw, "alignment_weight": aw,
                                "threshold": t, **metrics})
    results.sort(key=lambda r: (r["balanced_accuracy"], r["f1"]), reverse=True)
    current = JudgeConfig()
    now = next(r for r in results if (r["coverage_weight"], r["alignment_weight"], r["threshold"]) ==
               (current.coverage_weight, current.alignment_weight, current.threshold))
    return {"tune_rows": len(rows), "best": results[:5], "current": now}


def halves(path: Path, verdicts: Path) -> dict:
    labels = {r.id: r.label for r in read_review_rows(path) if r.label is not None}
    split: dict[str, list[tuple[int, int]]] = defaultdict(list)
    with verdicts.open(encoding="utf-8") as handle:
        for line in handle:
            verdict = json.loads(line)
            label = labels.get(str(verdict["id"]))
            if label is None:
                continue
            pair = (int(label), int(verdict["hallucinated"]))
            split["full"].append(pair)
            split["tune" if half(str(verdict["id"])) == HALVES["tune"] else "held-out"].append(pair)
    out = {}
    for name in ("full", "tune", "held-out"):
        pairs = split[name]
        metrics, confusion = detection_metrics([a for a, _ in pairs], [b for _, b in pairs])
        out[name] = {"rows": len(pairs), **metrics, **confusion}
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--file", type=Path, default=DEFAULT_FILE, help="JSONL of review rows")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("grid", help="grid over the blend and threshold on the tuning half")
    h = sub.add_parser("halves", help="metrics of a verdicts file on the full set and on each half")
    h.add_argument("verdicts", type=Path)
    args = parser.parse_args(argv)
    result = grid(args.file) if args.command == "grid" else halves(args.file, args.verdicts)
    print(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
