"""Every decision the runtime can take on a proposed tool call, driven by the scripted provider."""

from __future__ import annotations

import json
import re
import time

import pytest

from engine.agent import (
    AgentError, AuditLog, Policy, RateLimiter, ToolError, ToolRegistry, TransientToolError, default_registry, make_tool,
)
from engine.agent.actions import delete_document
from engine.agent.context import ToolContext
from engine.config import load_settings
from engine.errors import KnowledgeBaseError, ProviderError
from engine.llm import ScriptedProvider
from engine.llm.base import ChatResponse, ToolUseBlock
from tests.agent.fakes import last_results, make_runtime, sample_store, use

pytestmark = pytest.mark.unit
ENVELOPE = re.compile(r'<untrusted_data source="tool:([^"]*)">\n(.*)\n</untrusted_data>', re.DOTALL)


def envelope(block: dict) -> dict:
    """The {ok, result|error, message} envelope inside a tool_result block."""
    match = ENVELOPE.fullmatch(block["content"])
    assert match, block["content"]
    return json.loads(match.group(2))


def counting(registry, name: str, func=None):
    """A registry whose ``name`` tool counts its invocations (and runs ``func`` or the real tool)."""
    calls = []
    real = func or registry.get(name).func

    def wrapper(*args, **kwargs):
        calls.append(kwargs)
        return real(*args, **kwargs)

    return registry.override(**{name: wrapper}), calls


def test_allowed_call_result_goes_back_wrapped_as_untrusted(tmp_path):
    provider = ScriptedProvider([use("calculator", expression="2 * (3 + 4)"), "It is 14."])
    runtime, _ = make_runtime(tmp_path, provider)
    run = runtime.start("what is 2 * (3 + 4)?", "ana", "viewer")
    assert run.status == "completed" and run.final_text == "It is 14."
    (step,) = run.steps
    assert (step.tool, step.decision, step.result["ok"], step.result["result"]["value"]) == ("calculator", "allowed",
                                                                                            True, 14)
    (block,) = last_results(provider)
    assert block["type"] == "tool_result" and block["is_error"] is False
    assert block["tool_use_id"] == step.tool_use_id
    assert set(envelope(block)) == {"ok", "result", "message"}
    assert "untrusted_data" in provider.calls[0]["system"]
    rows = runtime.audit.steps(run.run_id)
    assert [(r["tool"], r["decision"], r["result_status"], r["user"], r["role"]) for r in rows] == [
        ("calculator", "allowed", "ok", "ana", "viewer")]


def test_unknown_tool_is_not_allowed(tmp_path):
    provider = ScriptedProvider([use("rm_rf", path="/"), "Sorry."])
    runtime, _ = make_runtime(tmp_path, provider)
    run = runtime.start("clean up", "ana", "admin")
    assert run.steps[0].decision == "not_allowed"
    result = envelope(last_results(provider)[0])
    assert result["ok"] is False and result["error"] == "tool_not_allowed" and "calculator" in result["message"]


def test_role_too_low_is_denied_and_the_tool_is_not_offered(tmp_path):
    registry, calls = counting(default_registry(), "export_report")
    provider = ScriptedProvider([use("export_report", title="T", body="B"), "Denied."])
    runtime, _ = make_runtime(tmp_path, provider, registry)
    run = runtime.start("export a report", "vic", "viewer")
    assert run.steps[0].decision == "denied" and calls == []
    assert envelope(last_results(provider)[0])["error"] == "permission_denied"
    offered = {tool["name"] for tool in provider.calls[0]["tools"]}
    assert "export_report" not in offered and "delete_document" not in offered and "calculator" in offered


INVALID = [
    ("search_knowledge_base", {"query": "brakes", "k": "five"}, "'five' is not of type 'integer'"),
    ("search_knowledge_base", {"k": 3}, "'query' is a required property"),
    ("search_knowledge_base", {"query": "brakes", "limit": 3}, "Additional properties are not allowed"),
    ("search_knowledge_base", {"query": "brakes", "mode": "fuzzy"}, "'fuzzy' is not one of"),
    ("search_knowledge_base", {"query": "brakes", "since": "yesterday"}, "'yesterday' is not a 'date'"),
    ("search_knowledge_base", {"query": "brakes", "k": 99}, "99 is greater than the maximum of 20"),
    ("search_knowledge_base", {"query": ""}, "should be non-empty"),
    ("send_report", {"to": "not-an-email", "subject": "S", "body": "B"}, "does not match"),
    ("send_report", {"to": "a@b.co", "subject": "S\nBcc: x@evil.test", "body": "B"}, "does not match"),
    ("get_document", {"doc_id": "../etc/passwd"}, "does not match"),
    ("get_document", {"doc_id": "a/../../b"}, "does not match"),
    ("get_document", {"doc_id": "abc\n"}, "should match pattern"),
    ("list_documents", {"kb": "../x"}, "does not match"),
    ("list_documents", {"kb": 5}, "5 is not of type 'string'"),
    ("calculator", {"expression": 42}, "42 is not of type 'string'"),
]


@pytest.mark.parametrize("tool, arguments, expected", INVALID)
def test_invalid_arguments_never_run_and_the_validator_message_goes_back(tmp_path, tool, arguments, expected):
    registry, calls = counting(default_registry(), tool)
    provider = ScriptedProvider([use(tool, **arguments), "Fixed nothing."])
    runtime, _ = make_runtime(tmp_path, provider, registry)
    run = runtime.start("do it", "ana", "admin")
    assert calls == []
    assert run.steps[0].decision == "invalid"
    block = last_results(provider)[0]
    result = envelope(block)
    assert block["is_error"] and result["error"] == "invalid_arguments"
    assert expected in result["message"], result["message"]
    assert runtime.audit.steps(run.run_id)[0]["decision"] == "invalid"


def test_non_object_input_is_invalid(tmp_path):
    bad = ChatResponse((ToolUseBlock("t1", "calculator", ["1+1"]),), "tool_use")  # type: ignore[arg-type]
    provider = ScriptedProvider([bad, "ok"])
    runtime, _ = make_runtime(tmp_path, provider)
    run = runtime.start("x", "ana", "viewer")
    assert run.steps[0].decision == "invalid" and "is not of type 'object'" in run.steps[0].result["message"]


def test_high_risk_call_pauses_and_an_approved_call_runs_exactly_once(tmp_path):
    registry, calls = counting(default_registry(), "delete_document")
    provider = ScriptedProvider([use("delete_document", title="old wheel manual")])
    runtime, store = make_runtime(tmp_path, provider, registry)
    run = runtime.start("delete the old wheel manual", "ada", "admin")
    assert run.status == "paused" and run.decision == "confirmation_required" and calls == []
    assert run.pending.tool == "delete_document"
    assert run.pending.arguments == {"doc_id": "old-manual-0badc0de", "kb": "archive", "title": "Old wheel manual"}
    assert "Old wheel manual" in run.pending.summary

    # a new process: fresh runtime, audit log opened again from the same file
    provider2 = ScriptedProvider(["Deleted."])
    audit2 = AuditLog.in_data_dir(tmp_path / "data")
    runtime2, _ = make_runtime(tmp_path, provider2, registry, store=store, audit=audit2)
    done = runtime2.resume(run.run_id, approve=True, approver="boss")
    assert done.status == "completed" and len(calls) == 1
    assert store.deleted == [("old-manual-0badc0de", "archive")]
    assert [s.decision for s in done.steps] == ["confirmation_required", "approved"]
    result = envelope(last_results(provider2)[0])
    assert result["ok"] and result["result"]["deleted"] == "old-manual-0badc0de"
    with pytest.raises(AgentError, match="not waiting for approval"):
        runtime2.resume(run.run_id, approve=True)
    with pytest.raises(AgentError, match="not waiting for approval"):
        runtime.resume(run.run_id, approve=True)
    assert len(calls) == 1
    assert "approved by boss" in runtime2.audit.steps(run.run_id)[-1]["message"]


def test_denied_call_never_runs_and_the_model_is_told(tmp_path):
    registry, calls = counting(default_registry(), "delete_document")
    provider = ScriptedProvider([use("delete_document", doc_id="old-manual-0badc0de"), "Not deleted."])
    runtime, store = make_runtime(tmp_path, provider, registry)
    run = runtime.start("delete it", "ada", "admin")
    done = runtime.resume(run.run_id, approve=False)
    assert done.status == "completed" and calls == [] and store.deleted == []
    assert done.steps[-1].decision == "rejected_by_user"
    block = last_results(provider)[0]
    assert block["is_error"] and envelope(block)["error"] == "rejected_by_user"
    with pytest.raises(AgentError):
        runtime.resume(run.run_id, approve=True)
    assert calls == []


def test_unresolvable_high_risk_call_does_not_pause(tmp_path):
    provider = ScriptedProvider([use("delete_document", title="no such thing"), "Nothing matched."])
    runtime, store = make_runtime(tmp_path, provider)
    run = runtime.start("delete no such thing", "ada", "admin")
    assert run.status == "completed" and run.steps[0].decision == "invalid"
    assert "list_documents" in envelope(last_results(provider)[0])["message"] and store.deleted == []


def test_resume_of_unknown_run_is_refused(tmp_path):
    runtime, _ = make_runtime(tmp_path, ScriptedProvider())
    with pytest.raises(AgentError, match="No agent run"):
        runtime.resume("nope", approve=True)


def test_rate_limit(tmp_path):
    provider = ScriptedProvider([[use("calculator", expression="1+1"), use("calculator", expression="2+2")], "Done."])
    runtime, _ = make_runtime(tmp_path, provider, policy=Policy(rate_limiter=RateLimiter(limit=1, window_s=60)))
    run = runtime.start("sums", "ana", "viewer")
    assert [s.decision for s in run.steps] == ["allowed", "rate_limited"]
    assert envelope(last_results(provider)[1])["error"] == "rate_limited" and run.status == "completed"


def test_tool_call_budget_ends_the_run(tmp_path):
    turn = [use("calculator", expression="1+1"), use("calculator", expression="2+2"), use("calculator", expression="3")]
    provider = ScriptedProvider([turn, "never asked"])
    runtime, _ = make_runtime(tmp_path, provider, policy=Policy(max_tool_calls=1, rate_limiter=RateLimiter(1000)))
    run = runtime.start("sums", "ana", "viewer")
    assert run.status == "budget_exceeded" and "tool calls" in run.final_text
    assert [s.decision for s in run.steps] == ["allowed", "rate_limited", "rate_limited"]
    assert [s.result.get("error") for s in run.steps[1:]] == ["budget_exceeded", "budget_exceeded"]
    assert len(provider.calls) == 1 and provider.pending == 1


def test_time_budget_ends_the_run(tmp_path):
    ticks = iter(range(0, 10_000, 50))
    provider = ScriptedProvider([use("calculator", expression="1+1"), "never asked"])
    runtime, _ = make_runtime(tmp_path, provider, policy=Policy(max_seconds=60, rate_limiter=RateLimiter(1000)),
                              clock=lambda: float(next(ticks)))
    run = runtime.start("sums", "ana", "viewer")
    assert run.status == "budget_exceeded" and "60 seconds" in run.final_text and len(provider.calls) == 1


def nap(seconds: float) -> dict:
    """Sleep for a while (a tool that hangs)."""
    time.sleep(seconds)
    return {"slept": seconds}


def test_hung_tool_times_out_and_the_run_finishes_promptly(tmp_path):
    provider = ScriptedProvider([use("nap", seconds=5), "It hung."])
    runtime, _ = make_runtime(tmp_path, provider, ToolRegistry([make_tool(nap)]), default_timeout_s=0.05)
    started = time.perf_counter()
    run = runtime.start("x", "ana", "viewer")
    assert time.perf_counter() - started < 2
    assert run.status == "completed" and run.steps[0].decision == "timed_out"
    assert envelope(last_results(provider)[0])["error"] == "timed_out"
    assert runtime.audit.steps(run.run_id)[0]["result_status"] == "timed_out"


def test_transient_errors_are_retried_with_backoff_until_success(tmp_path):
    attempts, sleeps = [], []

    def flaky(expression):
        attempts.append(expression)
        if len(attempts) < 3:
            raise TransientToolError("busy, try again")
        return {"value": 1}

    provider = ScriptedProvider([use("calculator", expression="1"), "ok"])
    runtime, _ = make_runtime(tmp_path, provider, default_registry().override(calculator=flaky),
                              backoff_s=0.1, sleep=sleeps.append)
    run = runtime.start("x", "ana", "viewer")
    assert len(attempts) == 3 and sleeps == [0.1, 0.2] and run.steps[0].result["ok"]


def test_transient_errors_give_up_after_the_retries(tmp_path):
    attempts = []

    def down(expression):
        attempts.append(1)
        raise TransientToolError("still down")

    provider = ScriptedProvider([use("calculator", expression="1"), "ok"])
    runtime, _ = make_runtime(tmp_path, provider, default_registry().override(calculator=down), retries=2)
    run = runtime.start("x", "ana", "viewer")
    assert len(attempts) == 3 and run.steps[0].result["error"] == "transient_error"


def test_terminal_errors_are_not_retried(tmp_path):
    attempts = []

    def broken(expression):
        attempts.append(1)
        raise ToolError("cannot do that; ask differently")

    provider = ScriptedProvider([use("calculator", expression="1"), "ok"])
    runtime, _ = make_runtime(tmp_path, provider, default_registry().override(calculator=broken))
    run = runtime.start("x", "ana", "viewer")
    assert attempts == [1]
    assert run.steps[0].result == {"ok": False, "error": "tool_error", "message": "cannot do that; ask differently"}


def test_a_bug_in_a_tool_is_reported_not_raised(tmp_path):
    provider = ScriptedProvider([use("calculator", expression="1"), "ok"])
    runtime, _ = make_runtime(tmp_path, provider, default_registry().override(calculator=lambda expression: 1 / 0))
    run = runtime.start("x", "ana", "viewer")
    assert run.status == "completed" and run.steps[0].result["error"] == "internal_error"


def test_max_steps_ends_the_loop(tmp_path):
    provider = ScriptedProvider([use("calculator", expression="1+1")] * 5)
    runtime, _ = make_runtime(tmp_path, provider, max_steps=3)
    run = runtime.start("loop forever", "ana", "viewer")
    assert run.status == "max_steps" and "3 steps" in run.final_text
    assert len(provider.calls) == 3 and len(run.steps) == 3


def test_several_calls_in_one_turn_go_back_in_one_message_in_order(tmp_path):
    turn = [use("calculator", expression="1+1"), use("list_documents", kb="manuals"), use("nope")]
    provider = ScriptedProvider([turn, "done"])
    runtime, _ = make_runtime(tmp_path, provider)
    run = runtime.start("several", "ana", "viewer")
    message = provider.calls[1]["messages"][-1]
    assert message["role"] == "user" and len(message["content"]) == 3
    asked = [b["id"] for b in provider.calls[1]["messages"][-2]["content"] if b["type"] == "tool_use"]
    assert [b["tool_use_id"] for b in message["content"]] == asked
    assert [s.decision for s in run.steps] == ["allowed", "allowed", "not_allowed"]


def test_a_pause_mid_turn_keeps_the_turn_together(tmp_path):
    turn = [use("calculator", expression="1+1"), use("send_report", to="ops@example.com", subject="S", body="B"),
            use("calculator", expression="2+2")]
    provider = ScriptedProvider([turn])
    runtime, _ = make_runtime(tmp_path, provider)
    run = runtime.start("sum, send, sum", "ana", "analyst")
    assert run.status == "paused" and [s.decision for s in run.steps] == ["allowed", "confirmation_required"]
    provider.enqueue("all done")
    done = runtime.resume(run.run_id, approve=True)
    assert [s.decision for s in done.steps] == ["allowed", "confirmation_required", "approved", "allowed"]
    results = last_results(provider)
    assert [envelope(b)["ok"] for b in results] == [True, True, True] and len(results) == 3
    assert len(list((tmp_path / "data" / "outbox").iterdir())) == 1


def test_provider_failure_marks_the_run_failed(tmp_path):
    def fail(messages, kwargs):
        raise ProviderError("the API is down; try again later or use the offline provider")

    runtime, _ = make_runtime(tmp_path, ScriptedProvider([fail]))
    run = runtime.start("x", "ana", "viewer")
    assert run.status == "failed" and "API is down" in run.final_text
    assert runtime.get(run.run_id).status == "failed"


def test_secrets_are_redacted_in_the_audit_log(tmp_path):
    body = "the api key is sk-abcdef0123456789XYZ"
    provider = ScriptedProvider([use("export_report", title="Keys", body=body), "ok"])
    runtime, _ = make_runtime(tmp_path, provider)
    run = runtime.start("export", "ana", "analyst")
    row = runtime.audit.steps(run.run_id)[0]
    assert "sk-abcdef" not in json.dumps(row) and "[REDACTED]" in row["arguments"]["body"]
    assert "sk-abcdef" not in json.dumps(run.steps[0].arguments)


def test_bad_start_arguments(tmp_path):
    runtime, _ = make_runtime(tmp_path, ScriptedProvider())
    with pytest.raises(AgentError, match="Unknown role"):
        runtime.start("x", "ana", "root")
    with pytest.raises(AgentError, match="request"):
        runtime.start("  ", "ana", "viewer")
    with pytest.raises(ValueError):
        make_runtime(tmp_path, ScriptedProvider(), max_steps=0)


def test_direct_delete_tool_resolves_a_title(tmp_path):
    store = sample_store()
    ctx = ToolContext(load_settings(data_dir=tmp_path), store, "ada", "admin")
    assert delete_document(ctx, title="Brake wear pin check")["deleted"] == "brake-wear-1a2b3c4d"


def test_a_context_failure_on_resume_fails_the_run_and_nothing_runs(tmp_path):
    registry, calls = counting(default_registry(), "send_report")
    provider = ScriptedProvider([use("send_report", to="ops@example.com", subject="S", body="B")])
    runtime, _ = make_runtime(tmp_path, provider, registry)
    run = runtime.start("send it", "ana", "analyst")

    def broken_context(user, role):
        raise KnowledgeBaseError("The store cannot be opened; check DATA_DIR.")

    runtime.context_factory = broken_context
    with pytest.raises(KnowledgeBaseError):
        runtime.resume(run.run_id, approve=True)
    assert runtime.get(run.run_id).status == "failed" and calls == []
    with pytest.raises(AgentError, match="is failed"):
        runtime.resume(run.run_id, approve=True)


def test_only_a_role_allowed_to_run_the_tool_may_approve_it(tmp_path):
    registry, calls = counting(default_registry(), "delete_document")
    provider = ScriptedProvider([use("delete_document", doc_id="old-manual-0badc0de"), "Deleted."])
    runtime, store = make_runtime(tmp_path, provider, registry)
    run = runtime.start("delete it", "ada", "admin")
    with pytest.raises(AgentError, match="may not approve delete_document"):
        runtime.resume(run.run_id, approve=True, approver="vic", approver_role="viewer")
    assert calls == [] and runtime.get(run.run_id).status == "paused"  # still waiting for a real approver
    done = runtime.resume(run.run_id, approve=True, approver="ada", approver_role="admin")
    assert done.status == "completed" and len(calls) == 1
