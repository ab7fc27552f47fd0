"""What the entity graph adds to an ask: the same questions asked in one process with the graph task (the default
settings) and without it (weight 0), in turn; with ``--against no-synonyms``, what its synonym edges add (the
graph walking them against the default graph, which does not).

    python bench/bench_graph_cost.py --data-dir DIR [--rounds 3] [--questions sample_docs/questions.txt]
                                     [--against graph-off|no-synonyms]

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

import time

import numpy as np
from common import paired_bench, report, timed_ask

from engine.orchestration.strategy import GraphSettings

PARTS = ("engine overhead", "cpu", "retrieval", "retrieval.search", "retrieval.fuse", "retrieval.links",
         "retrieval.graph", "retrieval.sentences", "answerability", "perception")


def main() -> None:
    args, store, pipeline, questions, options = paired_bench(
        __doc__.splitlines()[0], rounds=3,
        arguments=(("--against", {"choices": ("graph-off", "no-synonyms"), "default": "graph-off"}),))
    strategy = pipeline.fixed_strategy[1]
    if args.against == "no-synonyms":
        strategy = strategy.model_copy(update={"graph": GraphSettings(synonyms=True)})
    without = GraphSettings(weight=0) if args.against == "graph-off" else GraphSettings(synonyms=False)
    arms = {"on": ("graph on", strategy), "off": (args.against, strategy.model_copy(update={"graph": without}))}
    held = {kb: v[2] is not None for kb, v in store._graph_counts.items()}
    got: dict[str, dict[str, list[float]]] = {arm: {part: [] for part in PARTS} for arm in arms}
    started = time.perf_counter()
    for at in range(args.rounds):
        for question in questions:
            for arm in ("on", "off") if at % 2 == 0 else ("off", "on"):
                pipeline.fixed_strategy = arms[arm]
                timed_ask(pipeline, question, options, got[arm])
    rows = []
    for part in PARTS:
        added = np.array(got["on"][part]) - np.array(got["off"][part])
        rows.append({"part": part, "on p50 ms": round(float(np.median(got["on"][part])), 1),
                     "off p50 ms": round(float(np.median(got["off"][part])), 1),
                     "added median ms": round(float(np.median(added)), 1),
                     "added mean ms": round(float(np.mean(added)), 1)})
    report("graph_cost", {"data_dir": str(args.data_dir), "against": args.against, "pairs": len(got["on"]["cpu"]),
                          "held": held,
                          "seconds": round(time.perf_counter() - started, 1), "rows": rows},
           rows, ["part", "on p50 ms", "off p50 ms", "added median ms", "added mean ms"])


if __name__ == "__main__":
    main()
