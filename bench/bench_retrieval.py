"""recall@5/10, nDCG@10 and MRR@10 of each search mode on retrieval_dev (via `eval retrieval`).

    python bench/bench_retrieval.py [--modes vector,keyword,hybrid]
"""

from __future__ import annotations

import argparse

from common import DATASETS, report

from engine.evaluation.retrieval import evaluate_retrieval


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--modes", default="vector,keyword,hybrid")
    args = parser.parse_args()
    d = DATASETS / "retrieval_dev"
    rows = []
    for mode in args.modes.split(","):
        r = evaluate_retrieval(d / "corpus.jsonl", d / "queries.jsonl", d / "qrels.tsv", k=10, mode=mode)
        rows.append({"mode": mode, **{k: r.metrics[k] for k in ("recall@5", "recall@10", "ndcg@10", "mrr@10")},
                     "p50_ms": r.p50_ms, "p95_ms": r.p95_ms})
    report("retrieval_quality", {"results": rows}, rows, list(rows[0]))


if __name__ == "__main__":
    main()
