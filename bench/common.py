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
