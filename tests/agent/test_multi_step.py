"""Requests of several steps: the offline planner splits them, runs them in order and says which were not done."""

from __future__ import annotations

import pytest

from engine.agent import default_registry
from engine.llm.offline import OfflineProvider, plan_steps
from tests.agent.fakes import FakeDoc, FakeStore, make_runtime, sample_store

pytestmark = pytest.mark.unit
REQUEST = "search axle nut torque in manuals and export the results"


def torque_store() -> FakeStore:
    store = sample_store()
    store.docs.append(FakeDoc("sb-axle-nut-11223344", "manuals", "SB A320-32-1457 axle nut",
                              "Final axle nut torque 325 N.m with dry threads.", "2024-11-18", authority=5))
    return store


def test_a_search_then_export_request_is_split_into_its_steps():
    search, export = plan_steps(REQUEST)
    assert search.tool == "search_knowledge_base"
    assert (search.arguments["query"], search.arguments["kb"]) == ("axle nut torque", "manuals")
    assert export.tool == "export_report" and export.uses_previous
    assert search.text == "search axle nut torque in manuals" and export.text == "export the results"
    assert default_registry().get("search_knowledge_base").checker.is_valid(search.arguments)


@pytest.mark.parametrize("request_text, tools", [
    ("search for brake wear pin, then export the results", ["search_knowledge_base", "export_report"]),
    ("find E4027 in kb manuals; send the results to ops@example.com", ["search_knowledge_base", "send_report"]),
    ("list the documents in manuals and then export them", ["list_documents", "export_report"]),
    ("compare A320 and B737 oil quantity", ["compare_values"]),
    ("search for brake wear and tear", ["search_knowledge_base"]),
    ("search brake wear and translate the results", ["search_knowledge_base", None]),
])
def test_steps_are_split_only_at_a_new_action(request_text, tools):
    assert [step.tool for step in plan_steps(request_text)] == tools


def test_search_then_export_runs_both_in_order_and_exports_the_passages(tmp_path):
    runtime, store = make_runtime(tmp_path, OfflineProvider(), store=torque_store())
    run = runtime.start(REQUEST, "ana", "analyst")
    assert run.status == "completed", run.final_text
    assert [(s.tool, s.decision) for s in run.steps] == [("search_knowledge_base", "allowed"),
                                                          ("export_report", "allowed")]
    assert store.searches[0]["query"] == "axle nut torque" and store.searches[0]["kb"] == "manuals"
    (written,) = (tmp_path / "data" / "exports").iterdir()
    text = written.read_text()
    assert "axle nut torque" in text.splitlines()[0] and "325 N.m" in text and "sb-axle-nut-11223344" in text
    assert "Step 1" in run.final_text and "Step 2" in run.final_text and str(written) in run.final_text


def test_nothing_found_means_nothing_exported_and_the_run_is_not_completed(tmp_path):
    empty = FakeStore([FakeDoc("x-00000000", "manuals", "X", "y")])
    runtime, _ = make_runtime(tmp_path, OfflineProvider(), store=empty)
    run = runtime.start(REQUEST, "ana", "analyst")
    assert run.status == "incomplete"
    assert [(s.tool, s.decision) for s in run.steps] == [("search_knowledge_base", "allowed"),
                                                          ("export_report", "not_done")]
    assert not (tmp_path / "data" / "exports").exists()
    assert "not done" in run.final_text.lower() and "nothing to export" in run.final_text
    rows = runtime.audit.steps(run.run_id)
    assert [(r["tool"], r["decision"], r["result_status"]) for r in rows][-1] == ("export_report", "not_done",
                                                                                  "not_done")
    assert "nothing to export" in rows[-1]["message"]


def test_a_step_no_tool_can_do_is_reported_not_done(tmp_path):
    runtime, _ = make_runtime(tmp_path, OfflineProvider(), store=torque_store())
    run = runtime.start("search axle nut torque and translate the results", "ana", "analyst")
    assert run.status == "incomplete" and run.steps[-1].decision == "not_done"
    assert "translate the results" in run.final_text and "no tool" in run.final_text


def test_a_step_the_role_may_not_take_is_reported_and_the_rest_still_runs(tmp_path):
    runtime, _ = make_runtime(tmp_path, OfflineProvider(), store=torque_store())
    run = runtime.start(REQUEST, "vic", "viewer")
    assert run.status == "incomplete"
    assert [(s.tool, s.decision) for s in run.steps] == [("search_knowledge_base", "allowed"),
                                                          ("export_report", "not_done")]
    assert "not available to this role" in run.final_text and "325 N.m" in run.final_text


def test_a_failed_single_step_is_not_reported_completed(tmp_path):
    runtime, _ = make_runtime(tmp_path, OfflineProvider(), store=torque_store())
    run = runtime.start("list the documents in nosuchbase", "ana", "viewer")
    assert run.status == "incomplete" and run.steps[0].result["ok"] is False
    assert "did not succeed" in run.final_text


CONVERT = "find the A320 axle nut torque and convert it to lbf.ft"


def test_a_find_then_convert_request_is_two_steps():
    find, convert = plan_steps(CONVERT)
    assert (find.tool, find.arguments["query"]) == ("search_knowledge_base", "A320 axle nut torque")
    assert (convert.tool, convert.arguments, convert.uses_previous) == ("convert_units", {"to_unit": "lbf.ft"}, True)
    (given,) = plan_steps("convert 325 N.m to lbf.ft")
    assert given.arguments == {"value": 325.0, "from_unit": "N.m", "to_unit": "lbf.ft"}


def test_find_then_convert_converts_the_figure_found_and_says_where_it_came_from(tmp_path):
    runtime, store = make_runtime(tmp_path, OfflineProvider(), store=torque_store())
    run = runtime.start(CONVERT, "ana", "analyst")
    assert run.status == "completed", run.final_text
    assert [(s.tool, s.decision) for s in run.steps] == [("search_knowledge_base", "allowed"),
                                                          ("convert_units", "allowed")]
    assert store.searches[0]["query"] == "A320 axle nut torque"
    converted = run.steps[1].result["result"]
    assert (converted["value"], converted["from_unit"], converted["to_unit"]) == (325.0, "N.m", "lbf.ft")
    assert round(converted["result"], 1) == 239.7
    assert "325 N.m = 239.7 lbf.ft" in run.final_text and "SB A320-32-1457 axle nut" in run.final_text


def test_find_then_convert_with_no_figure_found_says_the_conversion_was_not_done(tmp_path):
    store = FakeStore([FakeDoc("x-00000000", "manuals", "Axle nut note", "Torque the A320 axle nut by hand.")])
    runtime, _ = make_runtime(tmp_path, OfflineProvider(), store=store)
    run = runtime.start(CONVERT, "ana", "analyst")
    assert run.status == "incomplete"
    assert [(s.tool, s.decision) for s in run.steps][-1] == ("convert_units", "not_done")
    assert "Step 2 (convert it to lbf.ft): not done" in run.final_text
    assert "found no figure in a unit that converts to lbf.ft" in run.final_text
