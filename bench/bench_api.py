"""Latency of the HTTP API in-process (TestClient) on the small sample corpus with the offline provider.

    python bench/bench_api.py [--rounds 2]

Start-up (the app built and warmed; the embedding model is already loaded by the corpus ingest in this
process), then warm ``/v1/ask``, ``/v1/search`` and ``/healthz`` requests; the first question is asked once
before timing.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections import Counter
from pathlib import Path

from common import pct, report

from tests.ui.conftest import build_small_store

QUESTIONS = [
    "What is the final torque for the A320 main landing gear wheel axle nut?",
    "What was the fleet fuel burn per block hour in 2023?",
    "What does the shop note say about the MLG axle nut torque?",
    "How often must the hangar cat be fed?",
    "Compare A320 and B737 fuel burn per block hour in 2024.",
]


def timed(call) -> float:
    started = time.perf_counter()
    call()
    return (time.perf_counter() - started) * 1000


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=2, help="times each question is asked")
    args = parser.parse_args()
    from fastapi.testclient import TestClient

    from engine.api import create_app
    from engine.config import load_settings

    with tempfile.TemporaryDirectory() as tmp:
        data = build_small_store(Path(tmp))
        started = time.perf_counter()
        app = create_app(load_settings(data_dir=data))
        with TestClient(app) as client:
            startup_s = time.perf_counter() - started
            client.post("/v1/ask", json={"question": QUESTIONS[0]})
            asks, statuses = [], Counter()
            for question in QUESTIONS * args.rounds:
                box = {}
                asks.append(timed(lambda: box.update(client.post("/v1/ask", json={"question": question}).json())))
                statuses[box["status"]] += 1
            searches = [timed(lambda: client.post("/v1/search", json={"query": "axle nut torque", "k": 5}))
                        for _ in range(20)]
            health = [timed(lambda: client.get("/healthz")) for _ in range(20)]
    rows = [{"endpoint": name, "n": len(v), "p50_ms": pct(v, 50), "p95_ms": pct(v, 95), "max_ms": round(max(v), 1)}
            for name, v in (("/v1/ask", asks), ("/v1/search", searches), ("/healthz", health))]
    report("api", {"startup_s": round(startup_s, 2), "ask_statuses": dict(statuses), "rows": rows}, rows,
           ["endpoint", "n", "p50_ms", "p95_ms", "max_ms"])


if __name__ == "__main__":
    main()
