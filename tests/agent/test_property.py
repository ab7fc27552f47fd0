"""Property: random arguments for any tool never crash the runtime and never reach a tool unchecked."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from pydantic_core import to_jsonable_python

from engine.agent import AuditLog, ToolRegistry, default_registry
from engine.identity.roles import ROLES
from engine.llm import ScriptedProvider
from engine.llm.base import ChatResponse, ToolUseBlock
from tests.agent.fakes import make_runtime

pytestmark = pytest.mark.unit

DECISIONS = {"allowed", "denied", "invalid", "confirmation_required", "approved", "rejected_by_user", "timed_out",
             "not_allowed", "rate_limited"}
INTERESTING = ["../x", "a/../../b", "manuals", "brake-wear-1a2b3c4d", "ops@example.com", "not@mail", "2024-01-01",
               "2024-02-30", "hybrid", "fuzzy", "1+1", "9 ** 9 ** 9", "", "x" * 300, "line\nbreak", 0, 5, 21, -1,
               2.5, True, None, [], {}]
JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=10,
)
BASE = default_registry()


def checked_registry(seen: list[tuple[str, bool]]) -> ToolRegistry:
    """The default tools with bodies that only record whether their inputs pass the tool's schema."""
    def wrap(tool, prepare: bool = False):
        def body(*ctx: Any, **kwargs: Any) -> Any:  # with or without the context, as the tool takes it
            seen.append((tool.name, tool.checker.is_valid(kwargs)))
            return {"arguments": to_jsonable_python(kwargs), "summary": "checked"} if prepare else {"ran": tool.name}
        return body

    return ToolRegistry(
        dataclasses.replace(t, func=wrap(t), prepare=wrap(t, prepare=True) if t.prepare else None) for t in BASE
    )


GOOD = {"query": "brakes", "kb": "manuals", "mode": "keyword", "k": 5, "since": "2024-01-01",
        "doc_id": "brake-wear-1a2b3c4d", "question": "why?", "expression": "1+1", "entity_a": "A320",
        "entity_b": "B737", "attribute": "oil quantity", "title": "Q3 review", "body": "text", "to": "ops@example.com",
        "subject": "Summary", "value": 325.0, "from_unit": "N.m", "to_unit": "lbf.ft", "source": "SB 32-1457"}


@st.composite
def tool_calls(draw) -> tuple[str, Any]:
    known = st.sampled_from(BASE.names() + ["no_such_tool"])
    name = draw(st.one_of(known, known, known, st.text(max_size=12)))
    tool = BASE.get(name)
    properties = sorted(tool.input_schema["properties"]) if tool else []
    values = JSON | st.sampled_from(INTERESTING)
    near_valid = st.fixed_dictionaries({}, optional={p: st.one_of(*[st.just(GOOD[p])] * 4, values) for p in properties})
    extra = st.dictionaries(st.text(max_size=6), values, max_size=2)
    valid = st.fixed_dictionaries({p: st.just(GOOD[p]) for p in properties})
    arguments = draw(st.one_of(valid, near_valid, near_valid.flatmap(lambda d: extra.map(lambda e: {**e, **d})), JSON))
    return name, arguments


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                  HealthCheck.too_slow])
@given(call=tool_calls(), role=st.sampled_from(ROLES), approve=st.booleans())
def test_random_arguments_never_crash_and_never_reach_a_tool_unchecked(tmp_path, call, role, approve):
    name, arguments = call
    seen: list[tuple[str, bool]] = []
    turn = ChatResponse((ToolUseBlock("toolu_1", name, arguments),), "tool_use")
    provider = ScriptedProvider([turn, "done"])
    runtime, _ = make_runtime(tmp_path, provider, checked_registry(seen), audit=AuditLog(":memory:"))
    run = runtime.start("do something", "prop", role)
    if run.status == "paused":
        run = runtime.resume(run.run_id, approve=approve)
    assert run.status == "completed", run
    assert all(valid for _, valid in seen), seen
    assert not any((s.result or {}).get("error") == "internal_error" for s in run.steps), run.steps
    assert {s.decision for s in run.steps} <= DECISIONS
    event(" -> ".join(s.decision for s in run.steps))
    ran = [n for n, _ in seen]
    if any(s.decision in ("allowed", "approved") for s in run.steps):
        assert ran and ran[-1] == name
    else:
        assert ran in ([], [name])  # at most the read-only prepare step of a high-risk call
