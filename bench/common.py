"""Shared helpers for benchmarks: percentiles, JSON + table output, a quiet engine import path."""

from __future__ import annotations

import json
import os
import platform
import sys
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
DATASETS = ROOT.parent / "shared" / "datasets"
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
for _name in ("WORKBENCH_STORE_URI", "WORKBENCH_STORAGE_OPTIONS"):
    os.environ.pop(_name, None)  # benchmarks index into scratch DATA_DIRs, never into a configured store


def pct(values: list[float], q: float) -> float:
    return round(float(np.percentile(values, q)), 2) if values else 0.0


def machine() -> dict[str, Any]:
    return {"cpus": os.cpu_count(), "python": platform.python_version(), "machine": platform.machine()}


def report(name: str, payload: dict[str, Any], rows: list[dict[str, Any]], columns: list[str]) -> None:
    """Print one JSON object, then a plain table of ``rows``."""
    print(json.dumps({"benchmark": name, "machine": machine(), **payload}, default=str))
    widths = {c: max(len(c), *(len(str(r.get(c, ""))) for r in rows)) for c in columns}
    print()
    print("  ".join(c.ljust(widths[c]) for c in columns))
    print("  ".join("-" * widths[c] for c in columns))
    for row in rows:
        print("  ".join(str(row.get(c, "")).ljust(widths[c]) for c in columns))


def paired_bench(description: str, rounds: int, arguments: tuple = ()):
    """What a paired benchmark over a store's asks starts from: its arguments (``--data-dir``, ``--rounds``,
    ``--questions``), the store and pipeline (offline provider; the store's active strategy with the default graph
    settings, fixed) and the sample questions, after every one of them was asked once, and three of them again after
    the wait for every base's graph to be held (as in a running app). Each question is asked once before the arms
    are: an ask reuses what an earlier ask of the same text parsed and embedded, so without it the arm asked first
    in the first round would pay every question's first reading. ``arguments``: the benchmark's own, as
    (flag, keyword arguments of ``add_argument``). Returns (args, store, pipeline, questions, options)."""
    import argparse

    from engine.config import load_settings
    from engine.orchestration.strategy import GraphSettings
    from engine.pipeline import AskOptions, Pipeline
    from engine.store import KnowledgeBaseStore, reading

    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--rounds", type=int, default=rounds)
    parser.add_argument("--questions", type=Path, default=ROOT / "sample_docs" / "questions.txt")
    for flag, keywords in arguments:
        parser.add_argument(flag, **keywords)
    args = parser.parse_args()
    backend = os.environ.get("WORKBENCH_EMBEDDING_BACKEND", "onnx-int8")
    store = KnowledgeBaseStore(load_settings(data_dir=args.data_dir, embedding_backend=backend))
    pipeline = Pipeline(store.settings, store)
    _, strategy = pipeline.strategies.active()
    pipeline.fixed_strategy = ("bench", strategy.model_copy(update={"graph": GraphSettings()}))
    questions = [q.strip() for q in args.questions.read_text().splitlines() if q.strip() and not q.startswith("#")]
    options = AskOptions(provider="offline")
    for question in questions:  # warm up, and start holding each base's graph
        pipeline.run(question, options)
    reading._HOLDING.submit(lambda: None).result()  # (the holds queued before this have run)
    for question in questions[:3]:
        pipeline.run(question, options)
    return args, store, pipeline, questions, options


def timed_ask(pipeline, question: str, options, into: dict[str, list[float]]) -> None:
    """Ask ``question`` and add to ``into`` (part -> values) its engine overhead (the wall time less the reflection
    loop's, as `bench_ask_overhead.py` counts it), the process's CPU time ("cpu") and each other part ``into`` names
    (a stage or part of the ask's timings), in ms."""
    import time

    cpu, wall = time.process_time(), time.perf_counter()
    timings = pipeline.run(question, options).timings
    wall, cpu = (time.perf_counter() - wall) * 1000, (time.process_time() - cpu) * 1000
    for part, values in into.items():
        values.append(wall - timings.get("reflection", 0.0) if part == "engine overhead"
                      else cpu if part == "cpu" else timings.get(part, 0.0))
