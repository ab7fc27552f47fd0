"""The Traces page: stored runs listed, filtered, charted and opened with the Ask page's panels."""

from __future__ import annotations

from datetime import date

import pytest

from tests.ui.conftest import SAMPLE_QUESTION, ask, open_page

pytestmark = pytest.mark.integration


def test_no_runs_yet(app):
    at = open_page(app, "traces")
    assert not at.exception
    assert "No runs yet" in at.info[0].value


def test_lists_charts_and_opens_a_run(app):
    at = ask(app.run())
    trace_id = at.session_state["ask.history"][-1].trace_id
    at = at.switch_page("views/traces.py").run()
    assert not at.exception
    table = at.dataframe[0].value
    assert list(table["trace"]) == [trace_id] and table["question"][0] == SAMPLE_QUESTION
    assert len(at.get("plotly_chart")) == 5  # latency over time, p50/p95, issues, iterations, outcomes

    at = at.selectbox(key="traces.open").select(trace_id).run()
    assert not at.exception
    assert SAMPLE_QUESTION in [s.value for s in at.subheader]
    markdown = "\n".join(m.value for m in at.markdown)
    assert "*Draft*" in markdown and "*Revised*" in markdown and "**Validation checks**" in markdown
    assert len(at.get("plotly_chart")) == 6  # plus the run's timing chart


def test_filters_narrow_the_list(app, ui_data_dir):
    from engine.tracing import TraceStore
    from tests.components.answers import failed_validation, make_answer

    store = TraceStore(ui_data_dir)
    store.save(make_answer(trace_id="ok1").model_dump(mode="json") | {"created_at": "2026-01-02T10:00:00+00:00"})
    refused = make_answer(trace_id="no1", status="refused", validation=failed_validation(), provider="anthropic")
    store.save(refused.model_dump(mode="json") | {"created_at": "2026-01-03T10:00:00+00:00"})

    at = open_page(app, "traces")
    assert list(at.dataframe[0].value["trace"]) == ["no1", "ok1"]
    at = at.selectbox(key="traces.status").select("refused").run()
    assert list(at.dataframe[0].value["trace"]) == ["no1"]
    assert "refusal rate 100%" in str(at.get("plotly_chart")[-1].proto.spec)
    at = at.selectbox(key="traces.status").select("All").run()
    at = at.selectbox(key="traces.issue").select("validation:timeliness").run()
    assert list(at.dataframe[0].value["trace"]) == ["no1"]
    at = at.selectbox(key="traces.issue").select("All").run()
    at = at.selectbox(key="traces.provider").select("offline").run()
    assert list(at.dataframe[0].value["trace"]) == ["ok1"]
    at = at.selectbox(key="traces.status").select("failure").run()
    assert "No run matches these filters." in [i.value for i in at.info]
    at = at.selectbox(key="traces.status").select("All").run()
    at = at.selectbox(key="traces.provider").select("All").run()
    at = at.date_input(key="traces.since").set_value(date(2026, 1, 3)).run()
    assert list(at.dataframe[0].value["trace"]) == ["no1"]
