"""What the entity graph adds to an ask: the same questions asked in one process with the graph task (the default
settings) and without it (weight 0), in turn.

    python bench/bench_graph_cost.py --data-dir DIR [--rounds 3] [--questions sample_docs/questions.txt]

DIR is a store whose bases have entity graphs (the 100k-chunk base that `bench_ask_overhead.py --keep` builds, or any
other). Each question is asked with the offline provider twice, once per arm, the order alternating by round, so
that both arms see the same questions under the same load: between processes on a shared machine the engine's
overhead moves by more than the graph costs, and only paired differences measured in one process show it. Every
base's mention table is held in memory first (engine/store/reading.py), as it is in a running app. The table
gives, per stage, each arm's p50 and the paired difference (median and mean, graph on minus off), with the engine
overhead (an ask's wall time less the reflection loop's, as `bench_ask_overhead.py` counts it) and the process's CPU
time per ask.
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

import numpy as np
from common import ROOT, report

from engine.config import load_settings
from engine.orchestration.strategy import GraphSettings
from engine.pipeline import AskOptions, Pipeline
from engine.store import KnowledgeBaseStore, reading

PARTS = ("engine overhead", "cpu", "retrieval", "retrieval.search", "retrieval.fuse", "retrieval.links",
         "retrieval.graph", "retrieval.sentences", "answerability", "perception")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--questions", type=Path, default=ROOT / "sample_docs" / "questions.txt")
    args = parser.parse_args()
    backend = os.environ.get("WORKBENCH_EMBEDDING_BACKEND", "onnx-int8")
    store = KnowledgeBaseStore(load_settings(data_dir=args.data_dir, embedding_backend=backend))
    pipeline = Pipeline(store.settings, store)
    _, strategy = pipeline.strategies.active()
    arms = {"on": ("graph on", strategy.model_copy(update={"graph": GraphSettings()})),
            "off": ("graph off", strategy.model_copy(update={"graph": GraphSettings(weight=0)}))}
    questions = [q.strip() for q in args.questions.read_text().splitlines() if q.strip() and not q.startswith("#")]
    options = AskOptions(provider="offline")
    pipeline.fixed_strategy = arms["on"]
    for question in questions[:3]:  # warm up, and start holding each base's graph
        pipeline.run(question, options)
    reading._HOLDING.submit(lambda: None).result()  # (the holds queued before this have run)
    for question in questions[:3]:
        pipeline.run(question, options)
    held = {kb: v[2] is not None for kb, v in store._graph_counts.items()}
    got: dict[str, dict[str, list[float]]] = {arm: {part: [] for part in PARTS} for arm in arms}
    started = time.perf_counter()
    for at in range(args.rounds):
        for question in questions:
            for arm in ("on", "off") if at % 2 == 0 else ("off", "on"):
                pipeline.fixed_strategy = arms[arm]
                cpu, wall = time.process_time(), time.perf_counter()
                timings = pipeline.run(question, options).timings
                wall, cpu = (time.perf_counter() - wall) * 1000, (time.process_time() - cpu) * 1000
                got[arm]["engine overhead"].append(wall - timings.get("reflection", 0.0))
                got[arm]["cpu"].append(cpu)
                for part in PARTS[2:]:
                    got[arm][part].append(timings.get(part, 0.0))
    rows = []
    for part in PARTS:
        added = np.array(got["on"][part]) - np.array(got["off"][part])
        rows.append({"part": part, "on p50 ms": round(float(np.median(got["on"][part])), 1),
                     "off p50 ms": round(float(np.median(got["off"][part])), 1),
                     "added median ms": round(float(np.median(added)), 1),
                     "added mean ms": round(float(np.mean(added)), 1)})
    report("graph_cost", {"data_dir": str(args.data_dir), "pairs": len(got["on"]["cpu"]), "held": held,
                          "seconds": round(time.perf_counter() - started, 1), "rows": rows},
           rows, ["part", "on p50 ms", "off p50 ms", "added median ms", "added mean ms"])


if __name__ == "__main__":
    main()
