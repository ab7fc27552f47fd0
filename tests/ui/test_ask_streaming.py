"""The Ask page's live draft, its model usage and cost, and the sidebar's Claude model pickers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from tests.ui.conftest import APP_TIMEOUT, ask

pytestmark = pytest.mark.integration

RECORDINGS = Path(__file__).resolve().parents[1] / "llm" / "recordings"


def texts(elements) -> str:
    return "\n".join(str(e.value) for e in elements)


def live_draft_script() -> None:
    """StageProgress fed the events of an ask that drafts, breaks its stream once and is reviewed."""
    import streamlit as st

    from components.answer_view import StageProgress
    from engine.results import Review

    box = st.status("Answering…", expanded=True)
    live = st.empty()
    progress = StageProgress(box, live)
    for stage, info in st.session_state.get("events", []):
        if stage == "review":
            info = {"round": info["round"], "review": Review(valid=info["valid"], confidence=0.5)}
        progress(stage, info)


def test_the_draft_streams_marked_as_under_review(tmp_path):
    at = AppTest.from_function(live_draft_script, default_timeout=60)
    at.session_state["events"] = [
        ("stage_started", {"stage": "reflection"}),
        ("draft_delta", {"step": "draft", "text": "Torque the axle "}),
        ("draft_reset", {"step": "draft", "reason": "RemoteProtocolError"}),
        ("draft_delta", {"step": "draft", "text": "Torque the axle nut "}),
        ("draft_delta", {"step": "draft", "text": "to 150 lbf.ft."}),
    ]
    at.run()
    assert not at.exception
    assert "Draft — under review" in texts(at.caption)
    shown = texts(at.markdown)  # the text is encoded inert ("." as "&#46;"); the cursor shows it is still coming
    assert "Torque the axle nut to 150 lbf" in shown and "Torque the axle Torque" not in shown and "▌" in shown
    assert at.status[0].label == "Drafting and reviewing…"

    at.session_state["events"] = [("draft_done", {"step": "draft", "text": "Torque it [1]."}),
                                  ("review", {"round": 1, "valid": False}),
                                  ("draft_delta", {"step": "revise", "text": "Revised"})]
    at.run()
    assert "Revision — under review" in texts(at.caption)
    assert "**Review round 1** — 0 issue(s)" in texts(at.markdown)


def test_after_an_offline_answer_the_draft_is_gone_and_the_cost_is_zero(app):
    at = ask(app.run())
    assert not at.exception and not at.error
    assert "Draft — under review" not in texts(at.caption)  # the reviewed answer took its place
    assert "**Model usage and cost**" in texts(at.markdown)
    assert "No model was called (offline): tokens 0, cost $0.00." in texts(at.caption)


def recorded_catalog():
    from anthropic.types import ModelInfo

    from engine.llm.models import ListedModel, ModelCatalog

    listing = json.loads((RECORDINGS / "models_list_current.json").read_text())["responses"][0]["body"]["data"]
    return ModelCatalog(tuple(ListedModel.from_info(ModelInfo.model_validate(m)) for m in listing))


def test_with_a_key_the_sidebar_offers_the_listed_models_and_the_ask_uses_the_picks(app, monkeypatch):
    import components.sidebar

    catalog = recorded_catalog()
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-not-a-real-key")
    monkeypatch.setattr(components.sidebar, "get_model_catalog",
                        lambda: (catalog, {"generator": "claude-sonnet-5-5", "reviewer": "claude-haiku-5-5"}))
    at = app.run()
    generator, reviewer = (at.selectbox(key=k) for k in ("models.generator", "models.reviewer"))
    assert generator.value == "claude-sonnet-5-5" and reviewer.value == "claude-haiku-5-5"
    assert set(generator.options) == set(catalog.ids) and generator.options[0] == catalog.ids[0]

    reviewer.set_value("claude-opus-5-5")
    at = ask(at)  # no network in tests: the call fails, but the answer names the models it was asked of

    answer = at.session_state["ask.history"][-1]
    assert answer.provider == "anthropic:claude-sonnet-5-5 / anthropic:claude-opus-5-5"


def test_the_model_choices_default_to_each_roles_newest_model():
    from components.model_choice import model_choices
    from engine.llm.models import ModelCatalog

    catalog = recorded_catalog()
    choices = model_choices(catalog)
    assert (choices.generator, choices.reviewer) == ("claude-sonnet-5-5", "claude-haiku-5-5")
    unlisted = model_choices(ModelCatalog(problem="APIConnectionError"), {"generator": "claude-sonnet-5-5"})
    assert unlisted.ids == ("claude-sonnet-5-5",) and unlisted.problem == "APIConnectionError"
