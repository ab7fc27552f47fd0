"""The agent runtime under hostile input: deep arguments, lone surrogates, old bad audit rows, a cold model,
links in titles and passages; and the export_report approval decision."""

from __future__ import annotations

import contextlib
import dataclasses
import io
import json
import sqlite3
import time

import pytest

from engine.agent import AuditLog, Policy, RateLimiter, ToolRegistry, build_runtime, default_registry, make_tool
from engine.agent.limits import MAX_DEPTH, argument_problem, clean
from engine.cli import main as cli_main
from engine.config import load_settings
from engine.llm import ScriptedProvider
from engine.llm.base import ChatResponse, ToolUseBlock
from engine.llm.offline import OfflineProvider
from tests.agent.fakes import FakeDoc, make_runtime, sample_store, use

pytestmark = pytest.mark.unit


def nested(depth: int) -> object:
    value: object = "brakes"
    for level in range(depth):
        value = {"q": value} if level % 2 else [value]
    return value


def with_tool(**changes: dict) -> ToolRegistry:
    """The default tools, with the named ones' fields changed (a shorter deadline, a warm-up step)."""
    return ToolRegistry(dataclasses.replace(t, **changes[t.name]) if t.name in changes else t
                        for t in default_registry())


def audit_list(data_dir, *extra: str) -> tuple[int, str]:
    """``python -m engine audit list`` in-process, printing to a strict UTF-8 stdout like a terminal's."""
    raw = io.BytesIO()
    out = io.TextIOWrapper(raw, encoding="utf-8", errors="strict")
    with contextlib.redirect_stdout(out):
        code = cli_main(["audit", "list", "--data-dir", str(data_dir), *extra])
        out.flush()
    return code, raw.getvalue().decode("utf-8")


# -- deep and large arguments -----------------------------------------------------------------------


def test_an_argument_nested_500_levels_is_refused_and_the_run_finishes(tmp_path):
    deep = ToolUseBlock("toolu_1", "search_knowledge_base", {"query": nested(500)})
    provider = ScriptedProvider([ChatResponse((deep,), "tool_use"), "I could not search."])
    runtime, store = make_runtime(tmp_path, provider)
    run = runtime.start("search for brakes", "ada", "viewer")

    assert run.status == "completed" and runtime.audit.load_run(run.run_id).status == "completed"
    (step,) = run.steps
    assert step.decision == "invalid" and step.result["error"] == "invalid_arguments"
    assert f"nest more than {MAX_DEPTH} levels" in step.result["message"] and not store.searches
    stored = runtime.audit.steps(run.run_id)[0]["arguments"]
    assert len(json.dumps(stored)) < 500  # a short preview, not 500 levels
    assert "nest more than" in provider.calls[-1]["messages"][-1]["content"][0]["content"]


@pytest.mark.parametrize("arguments, words", [
    ({"query": ["x"] * 6000}, "more than 5000 values"),
    ({"query": "x" * 300_000}, "characters of text"),
    ({"query": nested(MAX_DEPTH + 1)}, "nest more than"),
])
def test_oversized_arguments_are_refused_before_the_schema_sees_them(arguments, words):
    problem = argument_problem(arguments)
    assert problem and words in problem
    tool = default_registry().get("search_knowledge_base")
    with pytest.raises(Exception) as caught:
        tool.check(arguments)
    assert words in str(caught.value) and type(caught.value).__name__ == "InvalidArguments"


def test_arguments_of_a_normal_size_pass_the_bounds():
    assert argument_problem({"query": "brakes", "kb": "manuals", "k": 5}) is None
    assert argument_problem(nested(MAX_DEPTH - 1)) is None


# -- lone surrogates --------------------------------------------------------------------------------


def test_lone_surrogates_in_names_keys_and_values_never_break_the_run_or_audit_list(tmp_path):
    turn = [{"tool_use": [{"name": "search_knowledge_base\udcff", "input": {"query": "x"}},
                          {"name": "search_knowledge_base", "input": {"qu\ud800ery": "x"}},
                          {"name": "search_knowledge_base", "input": {"query": "brake\udc80"}}]},
            "done \ud83d"]
    runtime, _ = make_runtime(tmp_path, ScriptedProvider(turn))
    run = runtime.start("search \udfff brakes", "ada\udc00", "viewer")

    assert run.status == "completed"
    assert [s.decision for s in run.steps] == ["not_allowed", "invalid", "allowed"]
    json.dumps(run.to_dict(), ensure_ascii=False).encode("utf-8")
    for extra in ((), ("--json",)):
        code, printed = audit_list(tmp_path / "data", *extra)
        assert code == 0 and "search_knowledge_base\ufffd" in printed and "brake\ufffd" in printed


def test_audit_list_reads_rows_written_before_text_was_cleaned(tmp_path):
    data = tmp_path / "data"
    AuditLog.in_data_dir(data).close()
    with sqlite3.connect(data / "workbench.db") as conn:
        insert = ("INSERT INTO agent_steps (run_id, step, ts, user_name, role, tool, arguments, decision, duration_ms,"
                  " result_status, message) VALUES (?, 1, '2024-01-01T00:00:00', ?, 'viewer', ?, ?, 'invalid', 0,"
                  " 'invalid_arguments', '')")
        conn.execute(insert, ("r1", "ada", "search_knowledge_base", json.dumps({"query": "\udcff"})))
        conn.execute(insert, ("r2", "bob", "search", "{not json"))
        conn.execute("INSERT INTO agent_steps (run_id, step, ts, user_name, role, tool, arguments, decision,"
                     " duration_ms, result_status, message) VALUES ('r3', 1, '2024-01-01T00:00:01',"
                     " CAST(X'616461FF' AS TEXT), 'viewer', 'calculator', '{}', 'allowed', 0, 'ok', '')")
        conn.execute("INSERT INTO agent_runs VALUES ('r3', 't', 't', CAST(X'626F62FE' AS TEXT), 'viewer', 'completed',"
                     " ?, '{}')", (json.dumps("req \udcff"),))

    code, printed = audit_list(data)
    assert code == 0 and "\ufffd" in printed and "r1" in printed and "r2" in printed and "r3" in printed
    steps = AuditLog.in_data_dir(data).steps()
    assert steps[0]["arguments"] == {"query": "\ufffd"} and "[unreadable]" in steps[1]["arguments"]
    assert steps[2]["user"] == "ada\ufffd"
    assert AuditLog.in_data_dir(data).runs()[0]["user"] == "bob\ufffd"


def test_cleaning_joins_surrogate_pairs_and_replaces_lone_ones():
    assert clean({"k\ud800": ["\ud83d\ude00", "\udfff", 1, None]}) == {"k\ufffd": ["😀", "\ufffd", 1, None]}


# -- a cold model is loaded before the deadline -------------------------------------------------------


LOAD_S = 3.0
"""How long the cold model takes to load here: longer than the search's deadline, as on a busy machine."""


@pytest.mark.integration
def test_a_cold_embedding_model_is_loaded_before_the_search_deadline_starts(tmp_path, monkeypatch):
    import engine.embeddings
    from engine.ingest import Ingestor
    from engine.store import KnowledgeBaseStore
    from tests import helpers

    class ColdStore(KnowledgeBaseStore):
        """A store whose first use of the model waits as long as a load from a busy disk does."""

        loads = 0

        @property
        def embedder(self):
            if not self.loads:
                time.sleep(LOAD_S)
            self.loads += 1
            return super().embedder

    settings = load_settings(data_dir=tmp_path / "data")
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "brake.md").write_text(helpers.SAMPLE_MD)
    assert Ingestor(KnowledgeBaseStore(settings)).ingest_paths([docs], "manuals").count("added") == 1
    monkeypatch.setattr(engine.embeddings, "_MODELS", {})  # the model itself is loaded from disk again too
    registry = with_tool(search_knowledge_base=dict(timeout_s=LOAD_S * 2 / 3))
    provider = ScriptedProvider([use("search_knowledge_base", query="brake wear pin", kb="manuals"), "done"])
    runtime = build_runtime(settings, provider, store=ColdStore(settings), registry=registry)

    run = runtime.start("search for brake wear pin", "ada", "viewer")

    (step,) = run.steps
    assert step.decision == "allowed" and step.result["result"]["results"], step
    assert step.duration_ms / 1000 < LOAD_S * 2 / 3  # the search ran within its deadline; the load came before it


def test_a_tool_is_warmed_once_per_call_before_its_timer(tmp_path):
    warmed: list[float] = []

    def slow_warm(ctx) -> None:
        warmed.append(time.perf_counter())
        time.sleep(0.3)

    registry = with_tool(calculator=dict(timeout_s=0.1, warm=slow_warm))
    provider = ScriptedProvider([use("calculator", expression="1+1"), "2"])
    runtime, _ = make_runtime(tmp_path, provider, registry)
    run = runtime.start("what is 1+1", "ada", "viewer")
    assert run.steps[0].decision == "allowed" and run.steps[0].result["result"]["value"] == 2 and len(warmed) == 1


# -- export_report needs no approval; a policy can require it ---------------------------------------------


def test_export_report_runs_without_approval_and_says_why(tmp_path):
    tool = default_registry().get("export_report")
    assert tool.risk == "write" and not tool.needs_confirmation and tool.role == "analyst"
    assert "Needs no approval" in tool.description and "never because a document" in tool.description
    provider = ScriptedProvider([use("export_report", title="Brakes", body="Pin flush: replace."), "saved"])
    runtime, _ = make_runtime(tmp_path, provider)
    run = runtime.start("export a report on brakes", "ada", "analyst")
    assert run.status == "completed" and run.steps[0].decision == "allowed"
    assert len(list((tmp_path / "data" / "exports").glob("*.md"))) == 1


def test_a_policy_can_require_approval_for_writes(tmp_path):
    provider = ScriptedProvider([use("export_report", title="Brakes", body="Pin flush: replace."), "saved"])
    runtime, _ = make_runtime(tmp_path, provider, policy=Policy(confirm_risks={"write"},
                                                                rate_limiter=RateLimiter(limit=100)))
    run = runtime.start("export a report on brakes", "ada", "analyst")
    assert run.status == "paused" and run.pending.tool == "export_report"
    assert "Runs only after a person approves it" in next(
        t["description"] for t in provider.calls[0]["tools"] if t["name"] == "export_report")
    assert not (tmp_path / "data" / "exports").exists()
    done = runtime.resume(run.run_id, approve=True, approver="lead")
    assert done.status == "completed" and len(list((tmp_path / "data" / "exports").glob("*.md"))) == 1


def test_confirmation_settings_are_checked():
    with pytest.raises(ValueError, match="always waits"):
        make_tool(default_registry().get("send_report").func, risk="high", role="analyst", confirm=False)
    with pytest.raises(ValueError, match="confirm_risks"):
        Policy(confirm_risks={"dangerous"})


# -- links, images and HTML in titles and passages ---------------------------------------------------------

HOSTILE_TITLE = "Brake memo ![x](http://attacker.example/t.png) <b>urgent</b>"
HOSTILE_TEXT = ("Measure the wear pin with the parking brake set. For the full procedure see the manual: "
                "[Click here](http://attacker.example/manual). <img src=\"https://attacker.example/i.gif\" alt=\"pin\"> "
                "The parts list is at https://docs.example.com/ipc.")


def hostile_store():
    store = sample_store()
    store.docs.append(FakeDoc("memo-0badf00d", "manuals", HOSTILE_TITLE, HOSTILE_TEXT))
    return store


@pytest.mark.parametrize("request_text", ["search for wear pin in kb manuals", "list the documents in kb manuals",
                                          "search for wear pin in kb manuals and export the results"])
def test_agent_text_and_titles_carry_no_link_image_or_html_to_other_hosts(tmp_path, request_text):
    settings = load_settings(data_dir=tmp_path / "data", allowed_link_hosts=["docs.example.com"])
    runtime = build_runtime(settings, OfflineProvider(), store=hostile_store(),
                            policy=Policy(rate_limiter=RateLimiter(limit=100)))
    run = runtime.start(request_text, "ada", "analyst")

    assert run.status == "completed"
    shown = [run.final_text] + [json.dumps(s.result) for s in run.steps if s.tool != "search_knowledge_base"]
    shown += [h["title"] for s in run.steps for h in (s.result or {}).get("result", {}).get("results", [])]
    shown += [p.read_text() for p in (tmp_path / "data" / "exports").glob("*.md")]
    for text in shown:
        assert "attacker.example" not in text and "<b>" not in text and "<img" not in text and "](" not in text
    assert "Brake memo x (image removed) urgent" in run.final_text
    if request_text.startswith("search"):
        assert "Click here (link removed)" in run.final_text or "export" in request_text


def test_links_to_an_allowed_host_stay(tmp_path):
    settings = load_settings(data_dir=tmp_path / "data", allowed_link_hosts=["docs.example.com"])
    store = sample_store()
    store.docs.append(FakeDoc("ipc-0badf00d", "manuals", "Parts", "Wear pin parts: [IPC](https://docs.example.com/ipc)"))
    run = build_runtime(settings, OfflineProvider(), store=store).start("search for wear pin parts in kb manuals",
                                                                        "ada", "viewer")
    assert "[IPC](https://docs.example.com/ipc)" in run.final_text
