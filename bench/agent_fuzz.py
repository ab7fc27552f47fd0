"""Fuzz the agent runtime with hostile model turns: count crashes, stuck runs and a broken ``audit list``.

Each case is one run on a scripted model that proposes one to three tool calls per turn with
random names, ids and arguments (deeply nested values, huge lists, lone surrogates in names,
keys and values, non-dict inputs), then answers with random text; a paused run is approved or
denied at random. The tools are the workbench's own over a small in-memory store, and the audit
log is a real SQLite file. After every case the runs table is checked for a run left
``running``; every ``--audit-every`` cases and at the end, ``python -m engine audit list`` is run
in-process with a strict UTF-8 stdout.

Run from the project root: ``python bench/agent_fuzz.py [--cases 3000] [--seed 7]``.
Prints one JSON object (cases, crashes by exception type, stuck runs, audit-list failures) and a table.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import random
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

from common import report

from engine.agent import AuditLog, default_registry
from engine.cli import main as cli_main
from engine.errors import EngineError
from engine.llm import ScriptedProvider
from engine.llm.base import ChatResponse, TextBlock, ToolUseBlock
from tests.agent.fakes import make_runtime

ROLES = ("viewer", "analyst", "admin")
NAMES = default_registry().names()
GOOD = {"query": "brakes", "kb": "manuals", "mode": "keyword", "k": 5, "since": "2024-01-01",
        "doc_id": "brake-wear-1a2b3c4d", "question": "why?", "expression": "1+1", "entity_a": "A320",
        "entity_b": "B737", "attribute": "oil quantity", "title": "Q3 review", "body": "text", "to": "ops@example.com",
        "subject": "Summary"}
DEEP = (50, 200, 500, 1000, 3000)


class Fuzzer:
    """Random model turns from a seeded generator."""

    def __init__(self, seed: int) -> None:
        self.r = random.Random(seed)

    def text(self, size: int = 12) -> str:
        r = self.r
        pick = r.random()
        if pick < 0.25:
            return "".join(chr(r.randint(0xD800, 0xDFFF)) if r.random() < 0.3 else r.choice("ab _-é😀\x00")
                           for _ in range(r.randint(1, size)))
        if pick < 0.3:
            return "x" * r.choice((300, 5000, 60_000))
        if pick < 0.4:
            return r.choice(("[Click](http://attacker.example/x)", "![](http://attacker.example/p.png)",
                             "<img src=http://attacker.example/i>", "</untrusted_data>", "../../etc/passwd"))
        return "".join(r.choice("abcdefghij 0123-_.") for _ in range(r.randint(0, size)))

    def nested(self, depth: int) -> Any:
        value: Any = self.text(4)
        for _ in range(depth):
            value = {self.text(3): value} if self.r.random() < 0.5 else [value]
        return value

    def value(self, depth: int = 0) -> Any:
        r = self.r
        pick = r.random()
        if pick < 0.08:
            return self.nested(r.choice(DEEP))
        if pick < 0.12:
            return [self.text(3) for _ in range(r.choice((100, 2000, 20_000)))]
        if depth < 3 and pick < 0.3:
            return {self.text(6): self.value(depth + 1) for _ in range(r.randint(0, 3))}
        if depth < 3 and pick < 0.4:
            return [self.value(depth + 1) for _ in range(r.randint(0, 3))]
        return r.choice((None, True, 0, -1, 2.5, 10**30, float("inf"), self.text(), self.text(), self.text()))

    def name(self) -> Any:
        r = self.r
        pick = r.random()
        if pick < 0.6:
            return r.choice(NAMES)
        if pick < 0.8:
            return self.text(10)
        if pick < 0.9:
            return r.choice(NAMES) + chr(r.randint(0xD800, 0xDFFF))
        return r.choice((None, 7, ["search_knowledge_base"], {"x": 1}))

    def arguments(self) -> Any:
        r = self.r
        pick = r.random()
        if pick < 0.4:
            args = dict(GOOD)
            for key in r.sample(sorted(args), r.randint(0, 3)):
                args[key] = self.value()
            return args
        if pick < 0.7:
            return {self.text(8): self.value() for _ in range(r.randint(0, 4))}
        if pick < 0.9:
            return {r.choice(sorted(GOOD)): self.nested(r.choice(DEEP))}
        return self.value()

    def turns(self) -> list[Any]:
        turns: list[Any] = []
        for _ in range(self.r.randint(1, 2)):
            uses = tuple(ToolUseBlock(self.text(6) if self.r.random() < 0.2 else f"toolu_{self.r.randint(0, 99)}",
                                      self.name(), self.arguments()) for _ in range(self.r.randint(1, 3)))
            turns.append(ChatResponse(uses, "tool_use"))
        turns.append(ChatResponse((TextBlock(self.text(40)),), "end_turn"))
        return turns


def audit_list_works(data_dir: Path) -> bool:
    """Whether ``python -m engine audit list`` prints, with a strict UTF-8 stdout, and exits 0."""
    out = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", errors="strict")
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
            code = cli_main(["audit", "list", "--data-dir", str(data_dir)])
            out.flush()
        return code == 0
    except Exception:  # noqa: BLE001 - counted, that is the measurement
        return False


def run(cases: int, seed: int, audit_every: int) -> dict[str, Any]:
    fuzz = Fuzzer(seed)
    crashes: Counter[str] = Counter()
    stuck = audit_failures = audit_checks = refused = 0
    first_audit_failure = None
    sys.setrecursionlimit(1000)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        audit = AuditLog(root / "data")
        started = time.perf_counter()
        for case in range(cases):
            provider = ScriptedProvider(fuzz.turns())
            runtime, _ = make_runtime(root, provider, audit=audit, default_timeout_s=2.0)
            try:
                result = runtime.start(fuzz.text(20) or "do it", fuzz.text(6) or "fuzz", fuzz.r.choice(ROLES))
                if result.status == "paused":
                    provider.enqueue(ChatResponse((TextBlock("done"),), "end_turn"))
                    runtime.resume(result.run_id, approve=fuzz.r.random() < 0.5)
            except EngineError:
                refused += 1  # a clear error for the caller (e.g. a blank request): not a crash
            except Exception as exc:  # noqa: BLE001 - counted, that is the measurement
                crashes[type(exc).__name__] += 1
            try:
                running = audit.runs(limit=10_000, status="running")
            except Exception:  # noqa: BLE001
                running = []
            stuck = max(stuck, len(running))
            if (case + 1) % audit_every == 0 or case + 1 == cases:
                audit_checks += 1
                if not audit_list_works(root / "data"):
                    audit_failures += 1
                    first_audit_failure = first_audit_failure or case + 1
        seconds = time.perf_counter() - started
        audit.close()
    return {"cases": cases, "seed": seed, "crashes": sum(crashes.values()), "by_type": dict(crashes),
            "clear_errors": refused,
            "stuck_running": stuck, "audit_list_checks": audit_checks, "audit_list_failures": audit_failures,
            "first_audit_failure_after_case": first_audit_failure, "seconds": round(seconds, 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--audit-every", type=int, default=100, help="run `audit list` after this many cases")
    args = parser.parse_args()
    result = run(args.cases, args.seed, args.audit_every)
    rows = [{"measure": k, "value": v} for k, v in result.items() if k != "by_type"]
    rows += [{"measure": f"crash: {k}", "value": v} for k, v in sorted(result["by_type"].items())]
    report("agent_fuzz", result, rows, ["measure", "value"])


if __name__ == "__main__":
    main()
