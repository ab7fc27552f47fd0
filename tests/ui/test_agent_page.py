"""Agent page: a high-risk delete pauses for approval; Approve runs it once, Deny leaves the document."""

from __future__ import annotations

import html

import pytest

from engine.agent import AuditLog
from engine.config import load_settings
from engine.store import KnowledgeBaseStore
from tests.ui.conftest import open_page
from tests.ui.sign_in import configure_users, sign_in

pytestmark = pytest.mark.integration
TITLE = "Shop Note SN-19-007 - A320 MLG Wheel Change Tips (axle nut torque)"
REQUEST = "delete the document Shop Note SN-19-007"


def _titles(data_dir) -> set[str]:
    store = KnowledgeBaseStore(load_settings(data_dir=data_dir))
    return {d.title for kb in store.knowledge_base_names() for d in store.list_documents(kb)}


def _agent(app):
    at = open_page(app, "agent")  # no users configured: the local user, role admin
    assert not at.exception
    return at


def _decision_button(at, kind: str):
    return next(b for b in at.button if (b.key or "").startswith(f"agent.{kind}."))


def _step_labels(at) -> list[str]:
    """Step expander labels, without the Markdown escapes the page adds."""
    return [e.label.replace("\\", "") for e in at.expander if e.label.startswith("Step ")]


def _audit(at):
    return next(d.value for d in at.dataframe if "decision" in d.value.columns)


def _paused(app):
    at = _agent(app)
    at.chat_input(key="agent.input").set_value(REQUEST).run()
    assert not at.exception
    assert any("waiting for your decision" in w.value for w in at.warning)
    assert any("delete_document" in x and "waiting for approval" in x for x in _step_labels(at))
    return at


def test_approve_runs_the_delete_once(app, ui_data_dir):
    at = _paused(app)
    assert TITLE in _titles(ui_data_dir)  # nothing happens before a person decides
    _decision_button(at, "approve").click().run()
    assert not at.exception
    assert TITLE not in _titles(ui_data_dir)
    assert not [b for b in at.button if (b.key or "").startswith("agent.approve.")]  # the card is gone
    assert "asked for approval, approved by a person" in _step_labels(at)[0]
    decisions = list(_audit(at)["decision"])
    assert decisions.count("approved") == 1 and decisions.count("confirmation_required") == 1
    steps = AuditLog.in_data_dir(ui_data_dir).steps()
    assert [s["decision"] for s in steps if s["tool"] == "delete_document"] == ["confirmation_required", "approved"]
    assert any("Deleted" in m.value for m in at.markdown)


def test_deny_leaves_the_document(app, ui_data_dir):
    at = _paused(app)
    _decision_button(at, "deny").click().run()
    assert not at.exception
    assert TITLE in _titles(ui_data_dir)
    assert "rejected_by_user" in set(_audit(at)["decision"])
    assert any("denied" in m.value for m in at.markdown)
    first = _step_labels(at)[0]
    assert "delete_document" in first and "denied by a person" in first, first
    assert "waiting for approval" not in first and "pending" not in first, first



def test_read_only_request_shows_its_step(app):
    at = _agent(app)
    at.chat_input(key="agent.input").set_value("list the documents in faq").run()
    assert not at.exception
    assert any("list_documents" in x and "allowed" in x for x in _step_labels(at))
    assert any("Shop Note SN" in m.value for m in at.markdown)


def test_a_two_step_request_runs_both_steps(app, ui_data_dir):
    at = _agent(app)
    at.chat_input(key="agent.input").set_value("search axle nut torque in manuals and export the results").run()
    assert not at.exception
    labels = _step_labels(at)
    assert any("search_knowledge_base" in x and "allowed" in x for x in labels)
    assert any("export_report" in x and "allowed" in x for x in labels)
    (report,) = (ui_data_dir / "exports").iterdir()
    text = report.read_text()
    assert text.startswith("# Search results for axle nut torque") and "a320-amm-32-41" in text


def test_a_step_the_role_may_not_take_is_shown_not_done(app, ui_data_dir, monkeypatch):
    configure_users(monkeypatch, {"vera": {"role": "viewer"}})
    at = sign_in(app, "vera").switch_page("views/agent.py").run()
    at.chat_input(key="agent.input").set_value("search axle nut torque in manuals and export the results").run()
    assert not at.exception
    assert any("export_report" in x and "not done" in x for x in _step_labels(at))
    assert any("Not everything you asked for was done" in w.value for w in at.warning)
    assert "not_done" in set(_audit(at)["decision"])
    assert not (ui_data_dir / "exports").exists()


def test_a_find_and_convert_request_does_both_parts(app):
    at = _agent(app)
    at.chat_input(key="agent.input").set_value("find the A320 axle nut torque and convert it to lbf.ft").run()
    assert not at.exception
    labels = _step_labels(at)
    assert len(labels) == 2 and "search_knowledge_base" in labels[0] and "convert_units" in labels[1], labels
    assert "allowed" in labels[1] and "ok" in labels[1], labels
    shown = html.unescape(" ".join(m.value for m in at.markdown))
    assert "lbf.ft (the value from" in shown and "Step 2 (convert it to lbf.ft): done" in shown
