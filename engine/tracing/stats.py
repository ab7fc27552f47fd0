"""Aggregates over stored runs: stage latency percentiles, issue counts, iterations, outcomes."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from engine.tracing.store import TraceSummary

STAGES = ("perception", "orchestration", "retrieval", "answerability", "reflection", "validation")
"""The pipeline's stages in order (engine.pipeline re-exports them)."""


@dataclass(frozen=True)
class TraceStats:
    runs: int
    stage_latency: dict[str, dict[str, float]]  # stage -> {p50, p95, n}
    issue_counts: dict[str, int]                 # issue type -> runs with it, most frequent first
    iterations: dict[int, int]                   # review rounds -> runs
    status_counts: dict[str, int]
    refusal_rate: float

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def trace_stats(runs: Sequence[TraceSummary], payloads: Sequence[dict[str, Any]] = ()) -> TraceStats:
    """Statistics over ``runs``; stage latencies come from the full ``payloads`` (their ``timings``)."""
    per_stage: dict[str, list[float]] = {}
    for payload in payloads:
        for stage, ms in (payload.get("timings") or {}).items():
            if stage in STAGES or stage == "total":
                per_stage.setdefault(stage, []).append(float(ms))
    latency = {stage: {"p50": round(float(np.percentile(v, 50)), 2), "p95": round(float(np.percentile(v, 95)), 2),
                       "n": len(v)}
               for stage in (*STAGES, "total") if (v := per_stage.get(stage))}
    issues = Counter(t for r in runs for t in r.issue_types)
    statuses = Counter(r.status for r in runs)
    return TraceStats(
        runs=len(runs), stage_latency=latency, issue_counts=dict(issues.most_common()),
        iterations=dict(sorted(Counter(r.iterations for r in runs).items())), status_counts=dict(statuses),
        refusal_rate=round(statuses.get("refused", 0) / len(runs), 4) if runs else 0.0,
    )
