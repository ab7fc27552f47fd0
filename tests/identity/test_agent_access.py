"""The agent under identities (offline provider, real store): tools see only the run's user's bases; a user may
not approve a run they started unless the setting allows it; an approver needs the role and the write grant."""

from __future__ import annotations

import json

import pytest

from engine.agent import build_runtime
from engine.agent.access import AgentGate, RunNotFound, tool_context_hook
from engine.config import load_settings
from engine.errors import PermissionDenied
from engine.identity import Directory, hash_secret
from engine.llm.registry import get_provider

pytestmark = pytest.mark.integration
USERS = {
    "alice": {"role": "admin", "grants": {"manuals": ["read", "write"]}},
    "bob": {"role": "admin"},
    "carol": {"role": "analyst", "grants": {"faq": ["read", "write"]}},
    "vera": {"role": "viewer", "grants": {"manuals": ["read"]}},
    "dave": {"role": "admin", "grants": {"manuals": ["read"]}},
}
DELETE = "delete the document Axle nut torque"


def _gate(store, allow_self: bool = False) -> tuple[AgentGate, Directory]:
    users = {name: {**entry, "password_hash": hash_secret("pw", n=2)} for name, entry in USERS.items()}
    settings = load_settings(data_dir=store.settings.data_dir, users=json.dumps(users),
                             allow_self_approval=allow_self)
    directory = Directory.from_settings(settings)
    runtime = build_runtime(settings, get_provider("offline"), store=store,
                            context_hook=tool_context_hook(directory))
    return AgentGate(runtime, directory), directory


def _titles(store) -> set[str]:
    return {d.title for kb in store.knowledge_base_names() for d in store.list_documents(kb)}


def test_tools_list_only_the_users_bases(store_copy):
    gate, directory = _gate(store_copy)
    run = gate.start(directory.identity_for("alice"), "list the documents")
    listed = next(s for s in run.steps if s.tool == "list_documents")
    assert [b["name"] for b in listed.result["result"]["knowledge_bases"]] == ["manuals"]
    assert "Zephyrine" not in json.dumps(run.to_dict())
    hidden = gate.start(directory.identity_for("alice"), "delete the document Zephyrine manifold")
    assert hidden.pending is None and "Zephyrine manifold" in _titles(store_copy)


def test_the_starter_may_not_approve_but_someone_else_may(store_copy):
    gate, directory = _gate(store_copy)
    alice, bob = directory.identity_for("alice"), directory.identity_for("bob")
    run = gate.start(alice, DELETE)
    assert run.status == "paused" and run.user == "alice" and run.role == "admin"
    with pytest.raises(PermissionDenied, match="You started this run, so someone else must approve"):
        gate.decide(alice, run.run_id, approve=True)
    assert "Axle nut torque" in _titles(store_copy)
    done = gate.decide(bob, run.run_id, approve=True)
    assert any(s.decision == "approved" for s in done.steps)
    assert "Axle nut torque" not in _titles(store_copy)
    audit = gate.runtime.audit.steps(run_id=run.run_id)
    assert {s["user"] for s in audit} == {"alice"} and any("approved by bob" in s["message"] for s in audit)


def test_approvers_need_the_role_the_grant_and_to_see_the_base(store_copy):
    gate, directory = _gate(store_copy)
    run = gate.start(directory.identity_for("alice"), DELETE)
    with pytest.raises(PermissionDenied, match="Role 'viewer' may not approve delete_document"):
        gate.decide(directory.identity_for("vera"), run.run_id, approve=True)
    with pytest.raises(PermissionDenied, match="no write grant for knowledge base 'manuals'"):
        gate.decide(directory.identity_for("dave"), run.run_id, approve=True)
    with pytest.raises(RunNotFound):  # carol cannot read manuals: the run does not exist for her
        gate.decide(directory.identity_for("carol"), run.run_id, approve=True)
    with pytest.raises(RunNotFound):
        gate.get(directory.identity_for("carol"), run.run_id)
    assert "Axle nut torque" in _titles(store_copy)
    denied = gate.decide(directory.identity_for("alice"), run.run_id, approve=False)  # the starter may deny
    assert any(s.decision == "rejected_by_user" for s in denied.steps)
    assert "Axle nut torque" in _titles(store_copy)


def test_the_setting_allows_approving_ones_own_run(store_copy):
    gate, directory = _gate(store_copy, allow_self=True)
    alice = directory.identity_for("alice")
    run = gate.start(alice, DELETE)
    gate.decide(alice, run.run_id, approve=True)
    assert "Axle nut torque" not in _titles(store_copy)
