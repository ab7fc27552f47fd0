"""Property, 10,000 cases: hostile model turns never crash the runtime, never leave a run running,
and never store anything that ``audit list`` cannot print.

Each case is one run on a scripted model proposing one or two calls with random names (lone
surrogates, non-strings), ids and arguments (nesting up to 3,000 levels, long lists, surrogate
keys and values, non-dict inputs); a paused run is approved or denied. One runtime serves every
case, each with a fresh in-memory audit log, and the tools record their inputs instead of
working, so a case costs a few milliseconds.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.agent import AuditLog, Policy, RateLimiter, ToolRegistry, default_registry
from engine.identity.roles import ROLES
from engine.agent.limits import MAX_DEPTH
from engine.agent.run import FINISHED
from engine.llm.base import ChatResponse, TextBlock, ToolUseBlock
from tests.agent.fakes import QueueProvider, make_runtime

pytestmark = [pytest.mark.unit, pytest.mark.slow]
CASES = 10_000

BASE = default_registry()
NAMES = BASE.names()
GOOD = {"query": "brakes", "kb": "manuals", "mode": "keyword", "k": 5, "since": "2024-01-01",
        "doc_id": "brake-wear-1a2b3c4d", "question": "why?", "expression": "1+1", "entity_a": "A320",
        "entity_b": "B737", "attribute": "oil quantity", "title": "Q3 review", "body": "text", "to": "ops@example.com",
        "subject": "Summary", "value": 325.0, "from_unit": "N.m", "to_unit": "lbf.ft", "source": "SB 32-1457"}
SURROGATES = [chr(c) for c in (0xD800, 0xD83D, 0xDBFF, 0xDC00, 0xDE00, 0xDFFF)]
SURROGATE = st.sampled_from(SURROGATES)
ALPHABET = list("ab_-. 09") + ["é", "ß", "😀", "\u200b", "\x00", "\n", "<", ">", "[", "]", "(", ")", "!", ":", "/"] + SURROGATES
TEXT = st.text(st.sampled_from(ALPHABET), max_size=8)
LEAF = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), TEXT)


def nest(depth: int, shape: str, leaf: Any, key: str) -> Any:
    value = leaf
    for level in range(depth):
        value = [value] if shape == "list" or (shape == "mixed" and level % 2) else {key: value}
    return value


DEEP = st.builds(nest, st.integers(0, 3000), st.sampled_from(["list", "dict", "mixed"]), LEAF, TEXT)
WIDE = st.builds(lambda n, item: [item] * n, st.sampled_from([10, 6000, 60_000]), LEAF)
HOSTILE = st.one_of(LEAF, DEEP, WIDE, st.dictionaries(TEXT, LEAF, max_size=3), st.lists(LEAF, max_size=3))


def arguments_for(fields: list[str]) -> st.SearchStrategy[Any]:
    """Valid arguments, valid ones with one field spoiled, hostile objects, or anything."""
    valid = {f: GOOD[f] for f in fields}
    spoiled = st.builds(lambda f, v: {**valid, f: v}, st.sampled_from(fields or ["x"]), HOSTILE)
    return st.one_of(st.just(valid), spoiled, spoiled, st.dictionaries(TEXT, HOSTILE, max_size=3), HOSTILE)


ARGUMENTS = {name: arguments_for(sorted(BASE.get(name).input_schema["properties"])) for name in NAMES}
OTHER_ARGUMENTS = arguments_for(sorted(GOOD)[:3])
NAME = st.one_of(st.sampled_from(NAMES), st.sampled_from(NAMES), TEXT,
                 st.builds(lambda n, s: n + s, st.sampled_from(NAMES), SURROGATE),
                 st.sampled_from([None, 7, ["calculator"], {"x": 1}]))
CALL_ID = st.one_of(st.just("toolu_1"), TEXT)


@st.composite
def calls(draw) -> ToolUseBlock:
    name = draw(NAME)
    arguments = draw(ARGUMENTS.get(name, OTHER_ARGUMENTS) if isinstance(name, str) else OTHER_ARGUMENTS)
    return ToolUseBlock(draw(CALL_ID), name, arguments)


def recording_registry(seen: list[tuple[str, bool]]) -> ToolRegistry:
    """The default tools, each recording whether its inputs pass its schema instead of working."""
    def wrap(tool, prepare: bool = False):
        def body(*ctx: Any, **kwargs: Any) -> Any:
            seen.append((tool.name, tool.checker.is_valid(kwargs)))
            return {"arguments": kwargs, "summary": "checked"} if prepare else {"ran": tool.name}
        return body

    return ToolRegistry(dataclasses.replace(t, func=wrap(t), prepare=wrap(t, True) if t.prepare else None, warm=None)
                        for t in BASE)


@pytest.fixture(scope="module")
def harness(tmp_path_factory):
    seen: list[tuple[str, bool]] = []
    provider = QueueProvider()
    runtime, _ = make_runtime(tmp_path_factory.mktemp("fuzz"), provider, recording_registry(seen),
                              policy=Policy(max_tool_calls=50, rate_limiter=RateLimiter(limit=10**9)),
                              audit=AuditLog(":memory:"))
    return runtime, provider, seen


def depth(value: Any, limit: int = MAX_DEPTH + 2) -> int:
    """Levels of nesting of ``value``, counted up to ``limit`` (wide lists: their first 20 items)."""
    level, items = 0, [(value, 1)]
    while items and level <= limit:
        item, at = items.pop()
        level = max(level, at)
        children = list(item.values()) if isinstance(item, dict) else item if isinstance(item, list) else ()
        items.extend((child, at + 1) for child in children[:20])
    return level


@pytest.mark.timeout(900)  # 10,000 cases, each writing its audit rows through the SQL layer: 1.5-3.5 min here
@settings(max_examples=CASES, deadline=None, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow, HealthCheck.data_too_large])
@given(turn=st.lists(calls(), min_size=1, max_size=2), final=TEXT, request=TEXT, role=st.sampled_from(ROLES),
       approve=st.booleans())
def test_hostile_turns_never_crash_never_stick_and_stay_printable(harness, turn, final, request, role, approve):
    runtime, provider, seen = harness
    seen.clear()
    runtime.audit.close()
    runtime.audit = audit = AuditLog(":memory:")  # a fresh log per case keeps every case as cheap as the first
    provider.enqueue(ChatResponse(tuple(turn), "tool_use"), ChatResponse((TextBlock(final or "done"),), "end_turn"))
    run = runtime.start(f"do {request}", f"u{request[:3]}", role)
    while run.status == "paused":  # each high-risk call of the turn pauses in turn; the provider then says "done"
        run = runtime.resume(run.run_id, approve=approve)
    provider.queue.clear()  # a case that ended early leaves no reply for the next one

    assert run.status in FINISHED, run.status
    assert audit.load_run(run.run_id).status == run.status
    assert not audit.runs(status="running")
    assert all(valid for _, valid in seen), seen  # nothing unchecked reached a tool
    steps = audit.steps(run.run_id)
    json.dumps({"steps": steps, "runs": audit.runs()}, ensure_ascii=False).encode("utf-8")  # what audit list prints
    json.dumps(run.to_dict(), ensure_ascii=False).encode("utf-8")
    for step in run.steps:
        assert depth(step.arguments) <= MAX_DEPTH + 1
    for use in turn:
        tool = BASE.get(use.name) if isinstance(use.name, str) else None
        if depth(use.input) > MAX_DEPTH and tool is not None and runtime.policy.permits(tool, role):
            assert any(s.decision == "invalid" and s.result["error"] == "invalid_arguments" for s in run.steps), run.steps
