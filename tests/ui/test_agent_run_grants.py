"""The Agent page under base grants (issue 27, item 1): a paused run that read ``faq`` waits for approval only on
the pages of users who may read ``faq``; alice, who reads ``manuals`` only, sees neither the run nor its passages,
and her audit log holds only what she may read."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from tests.ui.conftest import APP_TIMEOUT, ROOT
from tests.ui.sign_in import configure_users, sign_in

pytestmark = pytest.mark.integration
USERS = {
    "alice": {"role": "analyst", "grants": {"manuals": ["read", "write"]}},
    "carol": {"role": "analyst", "grants": {"faq": ["write"], "manuals": ["read"]}},
    "bob": {"role": "admin"},
}
REQUEST = "search shop note axle nut torque in faq and send the results to ops@example.com"
FAQ_TEXT = "Shop Note SN-19-007"


def _text(at) -> str:
    parts = [e.value for kind in ("markdown", "caption", "title", "header", "subheader", "info", "warning", "error",
                                  "success") for e in getattr(at, kind)]
    parts += [d.value.to_string() for d in at.dataframe] + [str(j.value) for j in at.json]
    parts += [b.label for b in at.button] + [x.label for x in at.expander]
    return "\n".join(str(p) for p in parts)


def _agent_page(name: str):
    at = sign_in(AppTest.from_file(str(ROOT / "app.py"), default_timeout=APP_TIMEOUT), name)
    return at.switch_page("views/agent.py").run()


def test_a_run_over_a_base_alice_cannot_read_never_reaches_her_agent_page(monkeypatch, ui_data_dir):
    configure_users(monkeypatch, USERS)
    carol = _agent_page("carol")
    carol.chat_input(key="agent.input").set_value(REQUEST).run()
    assert not carol.exception
    assert any("waiting for your decision" in w.value for w in carol.warning) and FAQ_TEXT in _text(carol)
    assert any("read faq" in c.value for c in carol.caption)  # the bases the run read, which decide who sees it

    alice = _agent_page("alice")
    assert not alice.exception
    shown = _text(alice)
    assert "Waiting for your approval" not in shown and FAQ_TEXT not in shown and "ops@example.com" not in shown
    assert not [b for b in alice.button if (b.key or "").startswith("agent.approve.")]

    bob = _agent_page("bob")  # an admin reads every base
    assert "Waiting for your approval" in _text(bob) and FAQ_TEXT in _text(bob)
    next(b for b in bob.button if (b.key or "").startswith("agent.approve.")).click().run()
    assert not bob.exception
    audit = next(d.value for d in bob.dataframe if "decision" in d.value.columns)
    assert list(audit["decision"])[:1] == ["approved"]  # newest first: bob's decision is in his audit log
