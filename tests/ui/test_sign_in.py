"""Sign-in and identity in the UI: no page renders before sign-in when users are configured; the role comes from
the user (no role picker); each user sees only the bases they may read; another user approves a user's deletion."""

from __future__ import annotations

import pytest

from engine.agent import AuditLog
from engine.config import load_settings
from engine.store import KnowledgeBaseStore
from tests.ui.conftest import ask, open_page
from tests.ui.sign_in import configure_users, sign_in

pytestmark = pytest.mark.integration
USERS = {
    "alice": {"role": "admin"},
    "bob": {"role": "admin"},
    "mona": {"role": "analyst", "grants": {"manuals": ["read", "write"]}},
    "vera": {"role": "viewer"},
}
SHOP_NOTE = "Shop Note SN-19-007 - A320 MLG Wheel Change Tips (axle nut torque)"


def _text(at) -> str:
    """Everything a person could read on the page: text elements, tables and button labels."""
    parts = [e.value for kind in ("markdown", "caption", "title", "header", "subheader", "info", "warning", "error",
                                  "success") for e in getattr(at, kind)]
    parts += [d.value.to_string() for d in at.dataframe]
    parts += [b.label for b in at.button] + [x.label for x in at.expander] + [j.value for j in at.json]
    return "\n".join(str(p) for p in parts)


def _titles(data_dir) -> set[str]:
    store = KnowledgeBaseStore(load_settings(data_dir=data_dir))
    return {d.title for kb in store.knowledge_base_names() for d in store.list_documents(kb)}


@pytest.fixture()
def users(monkeypatch, ui_data_dir):
    configure_users(monkeypatch, USERS)
    return ui_data_dir


def test_nothing_renders_before_sign_in_and_a_wrong_password_is_refused(app, users):
    at = app.run()
    assert not at.exception and [t.value for t in at.title] == ["Sign in"]
    assert "Ask a question about your documents" not in _text(at)
    at = sign_in(app, "alice", "not-her-password")
    assert any("Unknown user name or wrong password" in e.value for e in at.error)
    assert [t.value for t in at.title] == ["Sign in"]
    at = sign_in(app, "alice")
    assert not at.exception and [t.value for t in at.title] == ["Ask"]
    assert any("alice · role admin" in c.value for c in at.sidebar.caption)


def test_sign_in_is_refused_for_a_while_after_too_many_wrong_passwords(app, users):
    for _ in range(5):  # WORKBENCH_SIGN_IN_MAX_FAILURES, by default
        at = sign_in(app, "vera", "not-her-password")
        assert any("Unknown user name or wrong password" in e.value for e in at.error)
    at = sign_in(app, "vera")  # now even the right password waits
    assert any("Too many failed sign-in attempts for this user name" in e.value and "wait 5 min" in e.value
               for e in at.error)
    assert [t.value for t in at.title] == ["Sign in"]
    at = sign_in(app, "bob")  # another user is not held back
    assert not at.exception and [t.value for t in at.title] == ["Ask"]


def test_the_role_comes_from_the_user_and_there_is_no_role_picker(app, users):
    at = sign_in(app, "vera").switch_page("views/agent.py").run()
    assert not at.exception
    assert not [w for w in at.segmented_control if w.key == "agent.role"]
    assert not [w for w in at.text_input if w.key == "agent.user"]
    assert "Runs act as vera with the viewer role" in _text(at)
    at.switch_page("views/documents.py").run()
    assert any("may read documents but not upload" in i.value for i in at.info)


def test_without_users_the_local_user_is_admin_and_the_sidebar_says_so(app):
    at = app.run()
    assert not at.exception and [t.value for t in at.title] == ["Ask"]
    assert any("Local user, role admin: no users are configured" in c.value for c in at.sidebar.caption)


def test_a_user_sees_only_the_bases_they_may_read(app, users):
    at = sign_in(app, "mona")
    assert at.multiselect(key="ask.kbs").options == ["manuals"]
    sidebar = "\n".join(c.value for c in at.sidebar.caption)
    assert "`manuals`" in sidebar and "`faq`" not in sidebar
    at = ask(at, "What does the shop note say about the MLG axle nut torque?")
    assert not at.exception and "Shop Note SN-19-007" not in _text(at)
    at.switch_page("views/documents.py").run()
    assert not at.exception
    shown = _text(at)
    assert "a320-amm-32-41" in shown and "shop-note-2019" not in shown and "Quick Facts" not in shown
    at.switch_page("views/traces.py").run()
    assert not at.exception and "faq" not in "".join(d.value.to_string() for d in at.dataframe)


def test_a_deletion_is_approved_by_another_user_not_by_the_one_who_asked(app, users):
    from streamlit.testing.v1 import AppTest

    from tests.ui.conftest import APP_TIMEOUT, ROOT

    alice = sign_in(app, "alice").switch_page("views/agent.py").run()
    alice.chat_input(key="agent.input").set_value(f"delete the document {SHOP_NOTE}").run()
    assert not alice.exception
    approve = next(b for b in alice.button if (b.key or "").startswith("agent.approve."))
    assert approve.disabled and "another user must approve it" in _text(alice)

    vera = sign_in(AppTest.from_file(str(ROOT / "app.py"), default_timeout=APP_TIMEOUT), "vera")
    vera.switch_page("views/agent.py").run()
    assert "Waiting for your approval" not in _text(vera)  # a viewer may not approve a delete

    bob = sign_in(AppTest.from_file(str(ROOT / "app.py"), default_timeout=APP_TIMEOUT), "bob")
    bob.switch_page("views/agent.py").run()
    assert "Waiting for your approval" in _text(bob) and SHOP_NOTE in _text(bob)
    next(b for b in bob.button if (b.key or "").startswith("agent.approve.")).click().run()
    assert not bob.exception and SHOP_NOTE not in _titles(users)
    steps = [s for s in AuditLog.in_data_dir(users).steps() if s["tool"] == "delete_document"]
    assert [s["decision"] for s in steps] == ["confirmation_required", "approved"]
    assert {s["user"] for s in steps} == {"alice"} and "approved by bob" in steps[-1]["message"]


@pytest.mark.parametrize("name", ["vera", "mona"])
def test_every_page_renders_for_a_viewer_and_a_user_with_one_base(app, users, name):
    at = sign_in(app, name)
    for page in ("documents", "strategy", "agent", "traces", "experiments"):
        at.switch_page(f"views/{page}.py").run()
        assert not at.exception, (page, at.exception)
    if name == "vera":
        assert any("may read saved experiments but not run one" in c.value for c in at.caption)
        assert next(b for b in at.button if b.key == "experiments.run").disabled
