"""Measure the offline reviewer as a hallucination detector on review_dev (BEGIN dev, 1,148 rows).

Prints one JSON object (accuracy, balanced_accuracy, precision, recall, f1 for label 1 =
hallucinated, rows_per_s, per-source breakdown) and then a table.
Run from the project root: ``python bench/bench_review.py [--limit N] [--provider offline]``.
"""

from __future__ import annotations

import argparse
import json
import time
from collections import defaultdict
from pathlib import Path

from common import DATASETS, report

from engine.evaluation.review import METRIC_KEYS, detection_metrics, evaluate_review
from engine.assemble import eval_reviewer

DEFAULT_FILE = DATASETS / "review_dev" / "begin_dev.jsonl"


def _sources(path: Path, limit: int | None) -> dict[str, str]:
    """Row id -> its "source" field (when present), for a per-source breakdown."""
    found: dict[str, str] = {}
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                row = json.loads(line)
                found[str(row["id"])] = str(row.get("source", "all"))
                if limit is not None and len(found) >= limit:
                    break
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--file", type=Path, default=DEFAULT_FILE, help="JSONL of review rows")
    parser.add_argument("--limit", type=int, default=None, help="first N rows only")
    parser.add_argument("--provider", default="offline", help="'offline' or 'anthropic[:model]'")
    parser.add_argument("--out", default=None, help="also write the verdicts here (JSONL)")
    args = parser.parse_args(argv)

    started = time.perf_counter()
    reviewer = eval_reviewer(args.provider)
    evaluated = evaluate_review(args.file, reviewer, limit=args.limit, out=args.out)
    total_s = time.perf_counter() - started

    labels: dict[str, int | None] = {}
    with args.file.open(encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                row = json.loads(line)
                labels[str(row["id"])] = row.get("label")
    source_of = _sources(args.file, args.limit)
    by_source: dict[str, list[tuple[int, int]]] = defaultdict(list)
    for verdict in evaluated.verdicts:
        label = labels.get(verdict["id"])
        if label is not None:
            by_source[source_of.get(verdict["id"], "all")].append((int(label), int(verdict["hallucinated"])))
    breakdown = {
        source: {"n": len(pairs), **detection_metrics([a for a, _ in pairs], [b for _, b in pairs])[0]}
        for source, pairs in sorted(by_source.items())
    }
    summary = {k: v for k, v in evaluated.to_dict().items() if k not in ("metrics", "out")}
    payload = {
        **summary,
        **(evaluated.metrics or {}),
        "rows_per_s": evaluated.rows_per_s,
        "total_s_with_model_load": round(total_s, 2),
        "by_source": breakdown,
    }
    table_rows = [{"subset": "all", "n": evaluated.labelled, **(evaluated.metrics or {})}]
    table_rows += [{"subset": source, **values} for source, values in breakdown.items()]
    report("review", payload, table_rows, ["subset", "n", *METRIC_KEYS])
    print(f"\nrows/s {evaluated.rows_per_s}  ({evaluated.rows} rows in {evaluated.seconds:.1f} s, reviewer "
          f"{evaluated.reviewer})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
