"""Per-stage latency of the whole pipeline on sample_docs with the offline provider.

    python bench/bench_pipeline.py [--n 50] [--data-dir DIR]

Questions: sample_docs/questions.txt (repeated with small rewordings to reach --n).
Engine overhead = total time minus the provider's own time (the reflection stage:
drafting and reviewing), i.e. perception + orchestration + retrieval + validation + tracing.
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
from pathlib import Path

from common import ROOT, pct, report

from engine.cli import main as cli_main
from engine.config import load_settings
from engine.pipeline import AskOptions, Pipeline

REWORDINGS = ["{q}", "Please answer: {q}", "{q} Cite the documents."]


def questions(n: int) -> list[str]:
    base = [l.strip() for l in (ROOT / "sample_docs" / "questions.txt").read_text().splitlines()
            if l.strip() and not l.startswith("#")]
    out = []
    for form in REWORDINGS:
        out.extend(form.format(q=q) for q in base)
    return out[:n]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=50)
    parser.add_argument("--data-dir", default=None, help="an indexed store to copy (default: index sample_docs)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "data"
        if args.data_dir:
            shutil.copytree(args.data_dir, data)
        else:
            cli_main(["bootstrap", "--data-dir", str(data), "--json"])
        pipeline = Pipeline(load_settings(data_dir=data))
        pipeline.run("warm up: what is the A320 tyre pressure?", AskOptions(provider="offline"))
        rows, stages = [], {}
        overheads, overheads5 = [], []
        statuses: dict[str, int] = {}
        for q in questions(args.n):
            answer = pipeline.run(q, AskOptions(provider="offline"))
            t = answer.timings
            statuses[answer.status] = statuses.get(answer.status, 0) + 1
            for stage, ms in t.items():
                stages.setdefault(stage, []).append(ms)
            overhead = t["total"] - t.get("reflection", 0.0)
            overheads.append(overhead)
            if len(answer.tasks) == 5:
                overheads5.append(overhead)
            stages.setdefault("tasks", []).append(len(answer.tasks))
        for stage, values in stages.items():
            rows.append({"stage": stage, "p50": pct(values, 50), "p95": pct(values, 95), "n": len(values)})
        rows.append({"stage": "engine_overhead", "p50": pct(overheads, 50), "p95": pct(overheads, 95),
                     "n": len(overheads)})
        rows.append({"stage": "engine_overhead@5_tasks", "p50": pct(overheads5, 50), "p95": pct(overheads5, 95),
                     "n": len(overheads5)})
    report("pipeline_stages", {"results": rows, "statuses": statuses, "unit": "ms (tasks: count)"},
           rows, ["stage", "p50", "p95", "n"])


if __name__ == "__main__":
    main()
