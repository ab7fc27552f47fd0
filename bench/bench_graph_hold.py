"""What holding a base's entity graph in memory saves an ask: the same questions asked in one process with the
held graph and with the walk reading the store, in turn.

    python bench/bench_graph_hold.py --data-dir DIR [--rounds 3] [--questions sample_docs/questions.txt]

DIR is a store whose bases have entity graphs (the 100k-chunk base that `bench_ask_overhead.py` builds and keeps, or
any other). Each question is asked with the offline provider and the default graph settings, once with every
base's held graph (loaded first) and once with none, the order alternating by round, so that both arms see the same
questions under the same load; the table gives the wait for the walks (`retrieval.graph`) and the retrieval stage,
and the paired differences.
"""

from __future__ import annotations

import time

import numpy as np
from common import paired_bench, report



def main() -> None:
    args, store, pipeline, questions, options = paired_bench(__doc__.splitlines()[0], rounds=3)
    started = time.perf_counter()
    held = dict(store._graph_counts)
    arms: dict[str, dict[str, list[float]]] = {a: {"graph": [], "retrieval": []} for a in ("held", "store")}
    for at in range(args.rounds):
        for question in questions:
            for arm in ("held", "store") if at % 2 == 0 else ("store", "held"):
                store._graph_counts.update({kb: (v[0], v[1], v[2] if arm == "held" else None)
                                            for kb, v in held.items()})
                timings = pipeline.run(question, options).timings
                arms[arm]["graph"].append(timings.get("retrieval.graph", 0.0))
                arms[arm]["retrieval"].append(timings.get("retrieval", 0.0))
    rows = []
    for part in ("graph", "retrieval"):
        saved = np.array(arms["store"][part]) - np.array(arms["held"][part])
        rows.append({"part": f"retrieval.{part}" if part == "graph" else part,
                     "held p50 ms": round(float(np.median(arms["held"][part])), 1),
                     "store p50 ms": round(float(np.median(arms["store"][part])), 1),
                     "saved median ms": round(float(np.median(saved)), 1),
                     "saved mean ms": round(float(np.mean(saved)), 1)})
    payload = {"data_dir": str(args.data_dir), "pairs": len(arms["held"]["graph"]),
               "held": {kb: v[2] is not None for kb, v in held.items()},
               "rows_held": {kb: len(v[2].rows) for kb, v in held.items() if v[2] is not None},
               "seconds": round(time.perf_counter() - started, 1), "rows": rows}
    report("graph_hold", payload, rows, ["part", "held p50 ms", "store p50 ms", "saved median ms", "saved mean ms"])


if __name__ == "__main__":
    main()
