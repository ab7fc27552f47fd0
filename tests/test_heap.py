"""engine/heap.py: reference cycles freed by the engine's own clock, and the warmed-up objects frozen once.

Each case runs in a fresh interpreter (a freeze is for the whole process), with the automatic collector off, so
that only the engine's calls can free the cycle."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

PRELUDE = """
import gc, json, time, weakref
gc.disable()
from engine import heap

class Holder:
    pass

def cycle():
    a, b = Holder(), Holder()
    a.other, b.other = b, a
    return weakref.ref(a)
"""


def _run(body: str) -> dict:
    code = PRELUDE + textwrap.dedent(body)
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_upkeep_frees_a_cycle_only_when_due():
    result = _run("""
        ref = cycle()
        early = heap.upkeep()                      # the process has just started: not due
        alive_before = ref() is not None
        heap._state["last"] -= heap.COLLECT_EVERY_S  # as if the interval had passed
        due = heap.upkeep()
        print(json.dumps({"early": early, "alive_before": alive_before, "due": due, "alive_after": ref() is not None,
                          "frozen": gc.get_freeze_count()}))
    """)
    assert result == {"early": False, "alive_before": True, "due": True, "alive_after": False,
                      "frozen": result["frozen"]}
    assert result["frozen"] > 1000  # the first due upkeep settles: the modules loaded so far are frozen


def test_settle_freezes_once_and_later_cycles_are_still_freed():
    result = _run("""
        heap.settle()
        frozen = gc.get_freeze_count()
        heap.settle()
        again = gc.get_freeze_count()
        ref = cycle()
        heap._state["last"] -= heap.COLLECT_EVERY_S
        heap.upkeep()
        print(json.dumps({"frozen": frozen, "again": again, "alive_after": ref() is not None,
                          "frozen_after": gc.get_freeze_count()}))
    """)
    assert result["frozen"] > 1000 and result["again"] == result["frozen"]
    assert result["alive_after"] is False
    assert result["frozen_after"] == result["frozen"]  # only settle freezes; upkeep never adds to it
