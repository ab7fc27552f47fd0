"""What looking a table's version up once a second saves an ask (engine/store/tables.py ``VERSION_TTL_S``): the same
questions asked in one process with the interval and without it (every lookup made), in turn.

    python bench/bench_version_lookups.py --data-dir DIR [--rounds 4] [--questions sample_docs/questions.txt]

DIR is any store (the 100k-chunk base that `bench_ask_overhead.py --keep` builds, for instance). Each question is
asked with the offline provider once per arm, the order alternating by round; the table gives the lookups per ask
(each a check of the table's latest manifest) and, per stage, each arm's p50 and the paired difference (median and
mean, without the interval minus with it).
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import numpy as np
from common import ROOT, report

from engine.config import load_settings
from engine.pipeline import AskOptions, Pipeline
from engine.store import KnowledgeBaseStore, reading, tables

PARTS = ("engine overhead", "cpu", "perception", "retrieval", "retrieval.search", "answerability")
ARMS = {"interval": tables.VERSION_TTL_S, "every lookup": 0.0}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--questions", type=Path, default=ROOT / "sample_docs" / "questions.txt")
    args = parser.parse_args()
    backend = os.environ.get("WORKBENCH_EMBEDDING_BACKEND", "onnx-int8")
    store = KnowledgeBaseStore(load_settings(data_dir=args.data_dir, embedding_backend=backend))
    pipeline = Pipeline(store.settings, store)
    questions = [q.strip() for q in args.questions.read_text().splitlines() if q.strip() and not q.startswith("#")]
    options = AskOptions(provider="offline")
    for question in questions[:3]:  # warm up, and start holding each base's graph
        pipeline.run(question, options)
    reading._HOLDING.submit(lambda: None).result()
    lookups = {arm: 0 for arm in ARMS}
    version = tables.Tables.version

    def counted(self, table):
        before = tables._VERSIONS.get((self.uri, table.name))
        got = version(self, table)
        lookups[arm] += tables._VERSIONS.get((self.uri, table.name)) is not before
        return got

    tables.Tables.version = counted
    got: dict[str, dict[str, list[float]]] = {a: {part: [] for part in PARTS} for a in ARMS}
    for at in range(args.rounds):
        for question in questions:
            for arm in list(ARMS) if at % 2 == 0 else list(ARMS)[::-1]:
                tables.VERSION_TTL_S = ARMS[arm]
                cpu, wall = time.process_time(), time.perf_counter()
                timings = pipeline.run(question, options).timings
                wall, cpu = (time.perf_counter() - wall) * 1000, (time.process_time() - cpu) * 1000
                got[arm]["engine overhead"].append(wall - timings.get("reflection", 0.0))
                got[arm]["cpu"].append(cpu)
                for part in PARTS[2:]:
                    got[arm][part].append(timings.get(part, 0.0))
    asks = len(got["interval"]["cpu"])
    rows = [{"part": "version lookups per ask", "interval": round(lookups["interval"] / asks, 2),
             "every lookup": round(lookups["every lookup"] / asks, 2)}]
    for part in PARTS:
        saved = np.array(got["every lookup"][part]) - np.array(got["interval"][part])
        rows.append({"part": f"{part} p50 ms", "interval": round(float(np.median(got["interval"][part])), 1),
                     "every lookup": round(float(np.median(got["every lookup"][part])), 1),
                     "saved median ms": round(float(np.median(saved)), 1),
                     "saved mean ms": round(float(np.mean(saved)), 1)})
    report("version_lookups", {"data_dir": str(args.data_dir), "pairs": asks, "rows": rows},
           rows, ["part", "interval", "every lookup", "saved median ms", "saved mean ms"])


if __name__ == "__main__":
    main()
