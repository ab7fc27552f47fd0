"""An agent run records the bases its tools read; reading it, its steps, its pending call and its audit entries,
and deciding on it, need a read grant on every one of them, judged by the reader's grants at the time of reading
(offline provider, real LanceDB store with ``manuals`` and ``faq``)."""

from __future__ import annotations

import json

import pytest

from engine.agent import AuditLog, build_runtime
from engine.agent.access import WENT_ON, AgentGate, RunNotFound, tool_context_hook
from engine.agent.run import RunState
from engine.config import load_settings
from engine.errors import PermissionDenied
from engine.identity import Directory, Identity
from engine.llm.registry import get_provider
from engine.store.scoped import ScopedStore
from tests.identity.conftest import SECRET

pytestmark = pytest.mark.integration
USERS = {
    "alice": {"role": "analyst", "grants": {"manuals": ["read", "write"]}},
    "carol": {"role": "analyst", "grants": {"faq": ["write"], "manuals": ["read"]}},
    "erin": {"role": "analyst", "grants": {"faq": ["read"], "manuals": ["read"]}},
    "bob": {"role": "admin"},
    "dave": {"role": "admin", "grants": {"manuals": ["read", "write"]}},
}
SEND_FAQ = "search zephyrine manifold in faq and send the results to ops@example.com"


def _gate(store, users=USERS) -> tuple[AgentGate, Directory]:
    settings = load_settings(data_dir=store.settings.data_dir, users=json.dumps(users))
    directory = Directory.from_settings(settings)
    runtime = build_runtime(settings, get_provider("offline"), store=store, context_hook=tool_context_hook(directory))
    return AgentGate(runtime, directory), directory


def test_a_run_records_every_base_its_tools_read(store_copy):
    gate, directory = _gate(store_copy)
    carol = directory.identity_for("carol")
    named = gate.start(carol, SEND_FAQ)
    assert named.status == "paused" and named.pending.tool == "send_report" and "kb" not in named.pending.arguments
    assert named.knowledge_bases == ("faq",) and SECRET[:30] in named.pending.arguments["body"]
    assert gate.runtime.audit.load_run(named.run_id).knowledge_bases == ["faq"]  # stored, for other processes
    unnamed = gate.start(carol, "search zephyrine manifold and send the results to ops@example.com")
    assert unnamed.knowledge_bases == ("faq", "manuals")  # a search over every base carol may read
    nothing = gate.start(carol, "send the weekly note to ops@example.com")
    assert nothing.knowledge_bases == () and nothing.to_dict()["knowledge_bases"] == []


def test_someone_who_cannot_read_a_base_the_run_read_neither_sees_nor_decides_it(store_copy):
    gate, directory = _gate(store_copy)
    run = gate.start(directory.identity_for("carol"), SEND_FAQ)
    for name in ("alice", "dave"):  # dave is an admin whose grants leave out faq
        who = directory.identity_for(name)
        with pytest.raises(RunNotFound):
            gate.get(who, run.run_id)
        for approve in (True, False):
            with pytest.raises(RunNotFound):
                gate.decide(who, run.run_id, approve)
        assert gate.waiting_for(who) == []
        assert gate.steps(who, run_ids=[run.run_id]) == [] and gate.steps(who) == []
    assert gate.runtime.get(run.run_id).status == "paused"  # nothing was decided

    erin = directory.identity_for("erin")  # reads faq and may call send_report: may see and approve
    assert [r.run_id for r in gate.waiting_for(erin)] == [run.run_id]
    assert [s["tool"] for s in gate.steps(erin)] == ["search_knowledge_base", "send_report"]
    done = gate.decide(erin, run.run_id, approve=True)
    assert done.status == "completed" and done.deciders == ("erin",) and done.steps[-1].decision == "approved"
    assert gate.get(erin, run.run_id).status == "completed"  # who decided a call may read the run on
    assert gate.get(directory.identity_for("bob"), run.run_id).run_id == run.run_id  # an admin of every base
    with pytest.raises(RunNotFound):
        gate.get(directory.identity_for("alice"), run.run_id)


def test_a_call_in_a_run_that_read_nothing_is_for_any_role_that_may_call_it(store_copy):
    gate, directory = _gate(store_copy)
    run = gate.start(directory.identity_for("carol"), "send the weekly note to ops@example.com")
    alice = directory.identity_for("alice")
    assert gate.get(alice, run.run_id).pending.tool == "send_report"
    assert gate.decide(alice, run.run_id, approve=True).status == "completed"


def test_grants_are_judged_when_the_run_is_read_not_when_it_started(store_copy):
    gate, directory = _gate(store_copy)
    run = gate.start(directory.identity_for("carol"), SEND_FAQ)
    assert gate.get(directory.identity_for("carol"), run.run_id).pending is not None
    later = {**USERS, "carol": {"role": "analyst", "grants": {"manuals": ["read"]}}}  # faq taken away
    gate_later, directory_later = _gate(store_copy, later)
    carol_now = directory_later.identity_for("carol")
    with pytest.raises(RunNotFound):
        gate_later.get(carol_now, run.run_id)
    with pytest.raises(RunNotFound):
        gate_later.decide(carol_now, run.run_id, approve=False)
    assert gate_later.steps(carol_now, run_ids=[run.run_id]) == []
    given = {**USERS, "alice": {"role": "analyst", "grants": {"manuals": ["read", "write"], "faq": ["read"]}}}
    gate_given, directory_given = _gate(store_copy, given)  # a grant added later opens it
    assert gate_given.decide(directory_given.identity_for("alice"), run.run_id, approve=True).status == "completed"


def test_an_approver_gets_only_the_status_when_the_run_goes_on_to_read_more(store_copy):
    gate, directory = _gate(store_copy)
    run = gate.start(directory.identity_for("carol"),
                     "send the weekly note to ops@example.com and then search zephyrine manifold in faq")
    assert run.status == "paused" and run.knowledge_bases == ()
    alice = directory.identity_for("alice")
    after = gate.decide(alice, run.run_id, approve=True)
    assert after.final_text == WENT_ON and after.steps == () and after.pending is None
    shown = json.dumps({k: v for k, v in after.to_dict().items() if k != "request"})  # she saw the request
    assert "faq" not in shown and "zephyrine" not in shown.lower() and after.knowledge_bases == ()
    stored = gate.runtime.get(run.run_id)
    assert "faq" in stored.knowledge_bases and any(s.tool == "search_knowledge_base" for s in stored.steps)
    with pytest.raises(RunNotFound):
        gate.get(alice, run.run_id)


def test_a_run_stored_before_reads_were_recorded_is_its_users_and_those_who_read_everything(store_copy):
    gate, directory = _gate(store_copy)
    state = RunState(run_id="legacy0001", user="carol", role="analyst", request="old", provider="offline",
                     created_at="2025-01-01T00:00:00.000+00:00", status="paused",
                     pending={"tool_use_id": "t1", "tool": "send_report", "risk": "high", "summary": "send",
                              "arguments": {"to": "ops@example.com", "subject": "s", "body": SECRET}})
    gate.runtime.audit.save_run(state)
    legacy = gate.runtime.get("legacy0001")
    assert legacy.knowledge_bases is None and legacy.to_dict()["knowledge_bases"] is None
    with pytest.raises(RunNotFound):
        gate.get(directory.identity_for("alice"), "legacy0001")
    assert gate.waiting_for(directory.identity_for("alice")) == []
    assert gate.get(directory.identity_for("carol"), "legacy0001").run_id == "legacy0001"
    assert gate.get(directory.identity_for("bob"), "legacy0001").run_id == "legacy0001"


def test_the_approval_rules_still_hold_for_readers_of_every_base(store_copy):
    gate, directory = _gate(store_copy)
    run = gate.start(directory.identity_for("carol"), SEND_FAQ)
    with pytest.raises(PermissionDenied, match="someone else must approve"):
        gate.decide(directory.identity_for("carol"), run.run_id, approve=True)
    viewer = Identity("vic", "viewer", None, "token")  # reads everything, but may not call send_report
    with pytest.raises(RunNotFound):
        gate.get(viewer, run.run_id)


def test_a_scoped_store_reports_the_bases_each_read_touched(store_copy):
    carol = Identity("carol", "analyst", {"faq": frozenset({"read"}), "manuals": frozenset({"read"})}, "token")
    noted: list[set[str]] = []
    view = ScopedStore(store_copy, carol, on_read=lambda names: noted.append(set(names)))
    view.search("torque", "manuals")
    assert set().union(*noted) == {"manuals"}
    noted.clear()
    view.search("torque")
    assert set().union(*noted) == {"faq", "manuals"}
    noted.clear()
    view.get_document("torque-note", "manuals")
    view.list_documents("manuals")
    assert set().union(*noted) == {"manuals"}
    alice = Identity("alice", "analyst", {"manuals": frozenset({"read"})}, "token")
    noted.clear()
    only = ScopedStore(store_copy, alice, on_read=lambda names: noted.append(set(names)))
    words = only.vocabulary(None, ["faq", "manuals"])  # a caller's list of bases is held to the grants too
    assert "zephyrine" not in words and set().union(*noted) == {"manuals"}


def test_audit_steps_can_be_read_by_run(store_copy):
    audit = AuditLog(store_copy.settings)
    for run_id in ("r1", "r2", "r3"):
        audit.record_step(run_id=run_id, step=1, user="u", role="analyst", tool="calculator", arguments={},
                          decision="allowed", duration_ms=1.0, result_status="ok")
    assert [s["run_id"] for s in audit.steps(run_ids=["r1", "r3"])] == ["r1", "r3"]
    assert audit.steps(run_ids=[]) == []
