"""Time Perception.run over a few hundred questions after warm-up.

Prints one JSON object (p50_ms, p95_ms, mean_ms, n, ...) and then a small table.
Run from the project root: ``python bench/bench_perception.py [--repeat 5]``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from engine.perception import Perception  # noqa: E402

QUESTIONS = [
    "Compare the fuel efficiency of A320 and B737, focusing on data from 2023 reports.",
    "What is the torque value for the main landing gear axle nut on the Boeing 737-800?",
    "Why does fault code E4027 appear on the CFM56-5B after engine start?",
    "According to the FAA, how many ADs were issued for the Airbus A321neo since 2024?",
    "List the inspection intervals for the LEAP-1A fan blades in the AMM.",
    "How do I replace the fuel pump on a B 737 MAX 8 per the CMM?",
    "CFM56-5B vs LEAP-1A: which has the lower EGT margin deterioration rate?",
    "What changed in AD 2021-12-05 between 2021 and 2023?",
    "Summarize bird strike reports from March 2022 to June 2023.",
    "Which parts with P/N 201-587-3 were replaced in the last 12 months?",
    "What is the maximum torque for the 737 MAX 8 wheel nut before 2020?",
    "Explain what ATA chapter 32 covers",
    "What percentage of A320 delays were caused by F2210 last year?",
    "Show the PW1100G borescope findings 2021-2023",
    "How many engine removals were recorded for the CFM56-7B in the last 2 years?",
    "What are the differences between the CFM56-5B and the LEAP-1A?",
    "A320neo or A321neo, which has the longer C-check interval?",
    "Which ADs apply to the B787 fuel quantity indication system?",
    "What causes high EGT on the PW1100G during takeoff?",
    "Give me an overview of corrosion findings on the A330 since March 2023.",
    "When was SB 737-32-1234 released?",
    "What's the torque for P/N 123-456 per the CMM?",
    "What is the average oil consumption of the LEAP-1B within the past 6 months?",
    "How much hydraulic fluid does the A321 green system hold?",
    "What is the minimum tire pressure for the B737-800 nose gear?",
    "Tell me about the E190 brake wear rate this year.",
    "Describe the MEL relief for an inoperative APU on the A319.",
    "Summarize the EASA airworthiness directives issued between 2024-01-01 and 2024-06-30.",
    "How should a technician perform a borescope inspection of the LEAP-1A combustor?",
    "What does the FAA require for ETOPS maintenance on the B777?",
    "Steps to reset the ECAM fault F2210 on the A350",
    "How many cycles since the last shop visit on ESN 779-123?",
    "Show findings from the CMM for P/N 201-587-3 during the past 18 months",
    "What is the mean time between unscheduled removals for the V2500-A5?",
    "According to Lufthansa Technik, what is the typical shop visit interval for the CFM56-5B?",
    "Which is better for short haul, the A220 or the E195-E2?",
    "Paris or London: which airport handles more flights?",
    "Who is the CEO of Airbus?",
    "Explain photosynthesis in simple terms.",
    "hello there",
]


def _questions(repeat: int) -> list[str]:
    extra_file = ROOT / "sample_docs" / "questions.txt"
    extra = []
    if extra_file.is_file():
        lines = extra_file.read_text(encoding="utf-8").splitlines()
        extra = [q.strip() for q in lines if q.strip() and not q.lstrip().startswith("#")]
    return QUESTIONS * repeat + extra


def _percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(share * (len(ordered) - 1))))]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="times the built-in question list is repeated")
    parser.add_argument("--warmup", type=int, default=20, help="untimed runs before measuring")
    args = parser.parse_args(argv)

    started = time.perf_counter()
    perception = Perception()
    load_ms = (time.perf_counter() - started) * 1000
    questions = _questions(args.repeat)
    for question in questions[: args.warmup]:
        perception.run(question)

    timings: list[float] = []
    for question in questions:
        started = time.perf_counter()
        perception.run(question)
        timings.append((time.perf_counter() - started) * 1000)

    result = {
        "p50_ms": round(statistics.median(timings), 3),
        "p95_ms": round(_percentile(timings, 0.95), 3),
        "mean_ms": round(statistics.fmean(timings), 3),
        "max_ms": round(max(timings), 3),
        "n": len(timings),
        "load_ms": round(load_ms, 1),
        "model": perception.model,
    }
    print(json.dumps(result))
    print()
    print(f"{'metric':<10}{'ms':>10}")
    for name in ("p50_ms", "p95_ms", "mean_ms", "max_ms"):
        print(f"{name[:-3]:<10}{result[name]:>10.3f}")
    print(f"{'n':<10}{result['n']:>10}")
    print(f"{'load':<10}{result['load_ms']:>10.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
