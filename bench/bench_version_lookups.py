"""What looking a table's version up once a second saves an ask (engine/store/tables.py ``VERSION_TTL_S``): the same
questions asked in one process with the interval and without it (every lookup made), in turn.

    python bench/bench_version_lookups.py --data-dir DIR [--rounds 4] [--questions sample_docs/questions.txt]

DIR is any store (the 100k-chunk base that `bench_ask_overhead.py --keep` builds, for instance). Each question is
asked with the offline provider once per arm, the order alternating by round; the table gives the lookups per ask
(each a check of the table's latest manifest) and, per stage, each arm's p50 and the paired difference (median and
mean, without the interval minus with it).
"""

from __future__ import annotations


import numpy as np
from common import paired_bench, report, timed_ask

from engine.store import tables

PARTS = ("engine overhead", "cpu", "perception", "retrieval", "retrieval.search", "answerability")
ARMS = {"interval": tables.VERSION_TTL_S, "every lookup": 0.0}


def main() -> None:
    args, store, pipeline, questions, options = paired_bench(__doc__.splitlines()[0], rounds=4)
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
                timed_ask(pipeline, question, options, got[arm])
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
