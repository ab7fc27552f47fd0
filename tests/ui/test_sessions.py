"""Two browser sessions of the same process (shared engine objects) never see each other's history, agent runs or
pending confirmations, not even on the audit log."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from tests.ui.conftest import APP_TIMEOUT, ROOT, ask

pytestmark = pytest.mark.integration
QUESTION = "What is the final torque for the A320 main landing gear wheel axle nut?"
DELETE = "delete the document Shop Note SN-19-007"


def _everything(at) -> str:
    kinds = ("markdown", "caption", "info", "warning", "error", "success")
    parts = [e.value for kind in kinds for e in getattr(at, kind)]
    parts += [d.value.to_string() for d in at.dataframe] + [str(j.value) for j in at.json]
    parts += [f"{b.key} {b.label}" for b in at.button] + [x.label for x in at.expander]
    return "\n".join(str(p) for p in parts)


def _session() -> AppTest:
    return AppTest.from_file(str(ROOT / "app.py"), default_timeout=APP_TIMEOUT)


def _session_a_asks_and_pauses(first: AppTest) -> tuple[AppTest, str]:
    first = ask(first, QUESTION)
    assert not first.exception
    first.switch_page("views/agent.py").run()
    first.chat_input(key="agent.input").set_value(DELETE).run()
    assert not first.exception
    pending = next(b for b in first.button if (b.key or "").startswith("agent.approve."))
    return first, pending.key.removeprefix("agent.approve.")


def test_two_sessions_never_see_each_others_history_or_pending_confirmations(app, ui_data_dir):
    first, run_id = _session_a_asks_and_pauses(app.run())
    second = _session().run()
    assert not second.exception
    assert not [b for b in second.button if (b.key or "").startswith("ask.history.")]
    assert QUESTION not in _everything(second)
    second.switch_page("views/agent.py").run()
    assert not second.exception
    seen = _everything(second)
    assert run_id not in seen and "Shop Note SN-19-007" not in seen and "waiting for approval" not in seen
    assert not [b for b in second.button if (b.key or "").startswith(("agent.approve.", "agent.deny."))]
    first.run()  # the first session still has both
    assert run_id in _everything(first)
