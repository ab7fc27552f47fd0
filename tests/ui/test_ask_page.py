"""The Ask page on the offline provider: every panel of an answer, history, rollout and engine errors."""

from __future__ import annotations

import pytest

from tests.ui.conftest import SAMPLE_QUESTION, ask

pytestmark = pytest.mark.integration

SECOND_QUESTION = "Compare the fuel efficiency of A320 and B737, focusing on data from 2023 reports."


def texts(elements) -> str:
    return "\n".join(str(e.value) for e in elements)


def test_sidebar_names_provider_models_bases_and_strategy(app):
    at = app.run()
    assert not at.exception
    sidebar = texts(at.sidebar.markdown) + texts(at.sidebar.caption)
    assert "`offline`" in sidebar and "no ANTHROPIC_API_KEY" in sidebar
    assert "offline-generator" in sidebar and "offline-reviewer" in sidebar
    assert "`manuals`: 6 documents" in sidebar and "`faq`: 2 documents" in sidebar
    assert "Active version `" in sidebar


def test_answer_shows_every_stage(app):
    at = ask(app.run(), accuracy="best guess")  # the reader's best guess is drafted, reviewed and validated
    assert not at.exception and not at.error
    assert at.status[0].state == "complete"
    answer = at.session_state["ask.history"][-1]
    assert answer.question == SAMPLE_QUESTION and answer.provider == "offline"
    assert answer.status in ("success", "refused") and answer.draft
    markdown = texts(at.markdown)
    assert at.subheader[0].value == SAMPLE_QUESTION
    # intent card: the action and entity chips
    assert f"<code>{answer.intent.action}</code>" in markdown
    assert "A320" in markdown
    # retrieval tasks with their reasons
    tasks = at.dataframe[0].value
    assert len(tasks) == len(answer.tasks) > 0 and set(tasks["reason"]) != {"–"}
    # both answers side by side, then the issues and validation panels
    assert "*Draft*" in markdown and "*Revised*" in markdown
    assert "**Review issues**" in markdown and "**Validation checks**" in markdown
    assert "Round 1" in markdown and ("citation" in markdown and "timeliness" in markdown)
    rounds = next(m for m in at.metric if m.label == "Review rounds")
    assert int(rounds.value) == answer.review_rounds == len(answer.reviews) >= 1  # one per "Round n" line
    assert f"Round {answer.review_rounds}" in markdown and f"Round {answer.review_rounds + 1}" not in markdown
    if any(r.issues for r in answer.reviews):
        assert any("·" in e.label for e in at.expander if e.label.split(" ·")[0] in
                   {"citation", "fact", "logic", "overconfidence", "format"})
    # evidence list and the timing chart
    assert sum(1 for e in at.expander if "authority" in e.label) == len(answer.evidence) > 0
    assert at.get("plotly_chart")
    # the history lists the question
    assert any(b.label.startswith("What is the current final torque") for b in at.button)


def test_history_shows_an_earlier_answer_again(app):
    at = ask(app.run(), reflection="off")
    at = ask(at, SECOND_QUESTION, reflection="off")
    assert at.subheader[0].value == SECOND_QUESTION
    first = next(b for b in at.button if b.label.startswith("What is the current final torque"))
    at = first.click().run()
    assert at.subheader[0].value == SAMPLE_QUESTION
    assert len(at.session_state["ask.history"]) == 2


def test_auto_reflection_follows_the_rollout_and_records_the_bucket(app, ui_data_dir):
    from engine.experiments import RolloutStore

    RolloutStore(ui_data_dir).set(0)
    at = ask(app.run(), reflection="auto")
    answer = at.session_state["ask.history"][-1]
    assert answer.extra["rollout_bucket"] == "rollout:control@0%" and answer.extra["reflection"] is False
    captions = texts(at.caption).replace("\\", "")
    assert "rollout bucket rollout:control@0%" in captions
    assert "Reflection was off for this run" in captions + texts(at.info)


def test_engine_error_is_shown_with_what_to_do(app, ui_data_dir):
    from engine.database.sql import upsert
    from engine.database.tables import app_settings
    from engine.experiments import RolloutStore

    with RolloutStore(ui_data_dir).db.begin() as conn:  # a damaged stored share
        upsert(conn, app_settings, {"key": "rollout", "value": "{not json", "updated_at": "t"}, keys=["key"])
    at = ask(app.run(), reflection="auto")
    assert not at.exception
    assert "set the share again" in at.error[0].value
    assert at.status[0].state == "error"


def test_failed_run_says_what_to_do(tmp_path, monkeypatch):
    from streamlit.testing.v1 import AppTest

    from tests.ui.conftest import APP_TIMEOUT, ROOT, reset_engine_caches

    monkeypatch.setenv("DATA_DIR", str(tmp_path / "empty"))
    reset_engine_caches()
    try:
        at = ask(AppTest.from_file(str(ROOT / "app.py"), default_timeout=APP_TIMEOUT).run())
        assert not at.exception
        assert "upload documents on the Documents page" in at.error[0].value
        assert at.session_state["ask.history"][-1].status == "failure"
    finally:
        reset_engine_caches()


def test_follow_up_is_read_against_the_previous_question(app):
    at = ask(app.run(), reflection="off")
    at = ask(at, "And for the A321?", reflection="off")
    assert not at.exception and not at.error
    first, second = at.session_state["ask.history"]
    resolved = SAMPLE_QUESTION.replace("A320", "A321")
    assert second.question == resolved and second.extra["followup"]["asked"] == "And for the A321?"
    assert second.extra["followup"]["from"] == first.question
    assert "Understood as: " + resolved == at.info[0].value.replace("\\", "")
    assert "You asked “And for the A321?”" in texts(at.caption).replace("\\", "")
    assert at.subheader[0].value == resolved
    # the first answer, shown again, was not a follow-up
    at = next(b for b in at.button if b.label.startswith("What is the current final torque for the A320")).click().run()
    assert not any(i.value.replace("\\", "").startswith("Understood as") for i in at.info)


def test_misspelt_words_are_shown_with_what_was_searched(app):
    at = ask(app.run(), SAMPLE_QUESTION.replace("torque", "torqe"), reflection="off")
    answer = at.session_state["ask.history"][-1]
    assert answer.intent.spelling_note == "torqe → torque"
    assert "<del>torqe</del> → <ins>torque</ins>" in texts(at.markdown)
    assert any("spelling: torqe → torque" in reason for reason in at.dataframe[0].value["reason"])


def test_inputs_are_kept_after_visiting_another_page(app):
    at = app.run()
    at.multiselect(key="ask.kbs").select("faq")
    at.radio(key="ask.mode").set_value("single")
    at.number_input(key="ask.rounds").set_value(3)
    at = ask(at, SECOND_QUESTION, reflection="off")
    assert not at.exception
    at = at.switch_page("views/documents.py").run()
    assert not at.exception and "ask.kbs" not in at.session_state  # Streamlit dropped the widget's state
    at = at.switch_page("views/ask.py").run()
    assert not at.exception and not at.warning
    assert at.multiselect(key="ask.kbs").value == ["faq"]
    assert at.segmented_control(key="ask.reflection").value == "off"
    assert at.radio(key="ask.mode").value == "single"
    assert at.number_input(key="ask.rounds").value == 3
    assert at.text_area(key="ask.question").value == SECOND_QUESTION


def test_a_deleted_base_is_dropped_from_the_kept_picks(app, ui_data_dir):
    from engine.config import load_settings
    from engine.store import KnowledgeBaseStore

    at = app.run()
    at.multiselect(key="ask.kbs").select("faq").select("manuals")
    at = ask(at, reflection="off")
    at = at.switch_page("views/documents.py").run()
    KnowledgeBaseStore(load_settings(data_dir=ui_data_dir)).drop_knowledge_base("faq")
    at = at.switch_page("views/ask.py").run()
    assert not at.exception
    assert at.multiselect(key="ask.kbs").value == ["manuals"]


def test_the_answer_accuracy_choice_reaches_the_engine(app):
    at = ask(app.run(), accuracy="90%")
    judged = at.session_state["ask.history"][-1].answerability
    assert not at.exception and judged.target_accuracy == 0.9 and judged.threshold > 0
    at = ask(at, accuracy="best guess")
    judged = at.session_state["ask.history"][-1].answerability
    assert judged.target_accuracy == 0 and judged.threshold == 0
