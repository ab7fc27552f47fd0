"""Soak: a bounded mixed loop of uploads and questions on one engine, as a busy analyst would drive it.

Runs for ``SOAK_SECONDS`` (600 by default; marked ``soak``, so ``make test`` leaves it out and
``make soak`` / CI run it). Asserts no call failed, resident memory grew at most 10 % from the
warmed-up baseline, and the p95 of question latency in the last third is no worse than 1.5x the
first third's. The figures are printed as JSON (docs/reliability.md quotes them).
"""

from __future__ import annotations

import json
import os
import random
import time
from pathlib import Path

import pytest

from tests.ui.conftest import build_small_store

SECONDS = float(os.environ.get("SOAK_SECONDS", "600"))
pytestmark = [pytest.mark.soak, pytest.mark.slow, pytest.mark.integration,
              pytest.mark.timeout(int(SECONDS) + 600)]  # the loop plus building the store and warming up

QUESTIONS = (
    "What is the current final torque for the A320 main landing gear wheel axle nut according to the AMM?",
    "How often must tyre pressures be checked?",
    "What is the capital of France?",
    "Which service bulletin covers the brake wear pin?",
    "What does the hangar note say about towing?",
    "qzx vbnm plokij",
)
MEMORY_GROWTH_MAX = 0.10
WARM_UPLOADS = 4
P95_DRIFT_MAX = 1.5


def _rss_mb() -> float:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def _p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(0.95 * (len(ordered) - 1))))]


def _note(i: int, rng: random.Random) -> bytes:
    words = " ".join(rng.choice(["panel", "bracket", "torque", "inspect", "zone", "fastener", "sealant", "card"])
                     for _ in range(60))
    return f"# Shift note {i}\n\nTask card {i:05d}: {words}.\n".encode()


def test_mixed_ingest_and_ask_loop_stays_flat(tmp_path: Path):
    from engine import heap
    from engine.config import load_settings
    from engine.ingest import Ingestor
    from engine.pipeline import AskOptions, Pipeline

    seconds = SECONDS
    data = build_small_store(tmp_path)
    settings = load_settings(data_dir=data)
    pipeline = Pipeline(settings)
    ingestor = Ingestor(pipeline.store)
    rng = random.Random(7)
    for question in QUESTIONS:  # warm every model, cache and the write path before the baseline
        pipeline.run(question, AskOptions(provider="offline"))
    for n in range(WARM_UPLOADS):
        ingestor.ingest_bytes([(f"warm-{n}.md", _note(-1 - n, rng))], "soak")
    heap.settle()  # as the app and the API do when their warm-up ends (engine/heap.py)
    baseline = _rss_mb()
    latencies: list[float] = []
    errors: list[str] = []
    uploads = 0
    started = time.monotonic()
    i = 0
    while time.monotonic() - started < seconds:
        i += 1
        try:
            if i % 4 == 0:
                report = ingestor.ingest_bytes([(f"note-{i}.md", _note(i, rng))], "soak")
                uploads += 1
                if any(f.status == "rejected" for f in report.files):
                    errors.append(f"upload {i} rejected: {report.files}")
            else:
                t0 = time.monotonic()
                answer = pipeline.run(rng.choice(QUESTIONS), AskOptions(provider="offline"))
                latencies.append(time.monotonic() - t0)
                if answer.status == "failure":
                    errors.append(f"question {i} failed: {answer.final[:200]}")
        except Exception as exc:  # noqa: BLE001 - the soak counts every failure
            errors.append(f"call {i}: {type(exc).__name__}: {exc}")
    final = _rss_mb()
    third = max(1, len(latencies) // 3)
    figures = {
        "seconds": round(time.monotonic() - started, 1), "calls": i, "questions": len(latencies),
        "uploads": uploads, "errors": len(errors), "rss_baseline_mb": round(baseline, 1),
        "rss_final_mb": round(final, 1), "rss_growth": round(final / baseline - 1, 4),
        "p95_first_third_s": round(_p95(latencies[:third]), 3), "p95_last_third_s": round(_p95(latencies[-third:]), 3),
        "p50_s": round(sorted(latencies)[len(latencies) // 2], 3),
    }
    print(json.dumps(figures))
    assert not errors, errors[:5]
    assert figures["rss_growth"] <= MEMORY_GROWTH_MAX, figures
    assert figures["p95_last_third_s"] <= P95_DRIFT_MAX * max(figures["p95_first_third_s"], 0.5), figures
