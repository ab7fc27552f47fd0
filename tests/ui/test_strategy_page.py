"""Strategy page: live edits change the preview, saving makes a version, an old version can be reactivated."""

from __future__ import annotations

import pytest

from engine.orchestration import StrategyStore
from tests.ui.conftest import open_page

pytestmark = pytest.mark.integration


def _page(app):
    at = open_page(app, "strategy")
    assert not at.exception
    return at


def _preview(at):
    return next(d.value for d in at.dataframe if "active weight" in d.value.columns)


def _versions(at):
    return next(d.value for d in at.dataframe if "saved" in d.value.columns)


def test_preview_shows_intent_and_tasks_for_the_sample_question(app):
    at = _page(app)
    assert at.text_input(key="strategy.question").value.startswith("Compare the fuel efficiency")
    tasks = _preview(at)
    assert set(tasks["knowledge base"]) <= {"manuals", "faq"}
    assert (tasks["weight"] == tasks["active weight"]).all()
    assert any("Intent" in m.value for m in at.markdown)


def test_changing_a_weight_changes_the_preview_before_saving(app, ui_data_dir):
    at = _page(app)
    before = _preview(at)
    at.slider(key="strategy.w.hybrid").set_value(2.5).run()
    after = _preview(at)
    base = after[after["priority"] == 0]
    assert (base["weight"] == 2.5).all() and (base["active weight"] == 1.2).all()
    assert list(before["weight"]) != list(after["weight"])
    _, active = StrategyStore(ui_data_dir).active()
    assert active.search_weights["hybrid"] == 1.2  # nothing saved yet


def test_route_edit_changes_where_tasks_go(app):
    at = _page(app)
    at.text_input(key="strategy.question").set_value("What does the AMM say about axle nut torque?").run()
    assert set(_preview(at)["knowledge base"]) == {"manuals", "faq"}
    nonce = at.session_state["strategy.routes_nonce"]
    at.session_state[f"strategy.routes.{nonce}"] = {
        "edited_rows": {0: {"exclusive": True}}, "added_rows": [], "deleted_rows": []}
    at.run()
    assert set(_preview(at)["knowledge base"]) == {"manuals"}


def test_credibility_weights_must_sum_to_one(app):
    at = _page(app)
    at.number_input(key="strategy.cred.w_task").set_value(0.6).run()
    assert any("must sum to 1" in e.value for e in at.error)
    assert at.button(key="strategy.save").disabled
    at.button(key="strategy.normalise").click().run()
    assert not any("must sum to 1" in e.value for e in at.error)
    assert any("Normalised" in i.value for i in at.info)
    weights = [at.number_input(key=f"strategy.cred.{f}").value for f in ("w_task", "w_authority", "w_recency")]
    assert abs(sum(weights) - 1) < 1e-6 and weights[0] > weights[1]
    assert not at.button(key="strategy.save").disabled


def test_save_then_activate_an_old_version(app, ui_data_dir):
    at = _page(app)
    original = _versions(at)["version"].item()
    at.slider(key="strategy.w.hybrid").set_value(2.0).run()
    at.text_input(key="strategy.note").set_value("more hybrid")
    at.button(key="strategy.save").click().run()
    assert not at.exception
    versions = _versions(at)
    assert len(versions) == 2
    newest = versions.iloc[0]
    assert newest["note"] == "more hybrid" and bool(newest["active"])
    store = StrategyStore(ui_data_dir)
    version, active = store.active()
    assert version == newest["version"] and active.search_weights["hybrid"] == 2.0

    diff = next(d.value for d in at.dataframe if list(d.value.columns) == ["field", "A", "B"])
    assert list(diff["field"]) == ["search_weights.hybrid"]

    at.selectbox(key="strategy.activate_choice").set_value(original)
    at.button(key="strategy.activate").click().run()
    assert not at.exception
    assert store.active_version() == original
    assert at.slider(key="strategy.w.hybrid").value == 1.2  # the editor reloads the activated version
    assert bool(_versions(at).set_index("version").loc[original, "active"])


def test_draft_survives_a_visit_to_another_page(app):
    at = _page(app)
    at.slider(key="strategy.w.keyword").set_value(1.5).run()
    at.switch_page("views/documents.py").run()
    at.switch_page("views/strategy.py").run()
    assert not at.exception
    assert at.slider(key="strategy.w.keyword").value == 1.5


def test_sample_question_is_kept_after_visiting_another_page(app):
    at = _page(app)
    at.text_input(key="strategy.question").set_value("What does the AMM say about axle nut torque?").run()
    at = at.switch_page("views/documents.py").run()
    at = at.switch_page("views/strategy.py").run()
    assert not at.exception
    assert at.text_input(key="strategy.question").value == "What does the AMM say about axle nut torque?"


def test_linked_documents_setting_is_saved(app, ui_data_dir):
    at = _page(app)
    assert at.number_input(key="strategy.follow_links").value == 3
    at.number_input(key="strategy.follow_links").set_value(0).run()
    at.button(key="strategy.save").click().run()
    assert not at.exception
    _, active = StrategyStore(ui_data_dir).active()
    assert active.follow_links == 0


def test_joining_names_written_differently_is_off_by_default_and_saved_when_turned_on(app, ui_data_dir):
    at = _page(app)
    assert at.checkbox(key="strategy.graph.synonyms").value is False
    at.checkbox(key="strategy.graph.synonyms").check().run()
    at.button(key="strategy.save").click().run()
    assert not at.exception
    _, active = StrategyStore(ui_data_dir).active()
    assert active.graph.synonyms is True and active.graph.rerank is True
