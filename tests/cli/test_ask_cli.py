"""`ask`, `traces list`, `traces show` and `traces stats` on a small store with the offline provider."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.cli import main
from tests.helpers import run_json

pytestmark = pytest.mark.integration
SAMPLES = Path(__file__).resolve().parents[2] / "sample_docs"
ANSWER_KEYS = {"intent", "tasks", "evidence", "draft", "reviews", "revised", "final", "validation", "status",
               "iterations", "timings"}


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory):
    data = tmp_path_factory.mktemp("askcli") / "data"
    manuals = [SAMPLES / "manuals" / n for n in ("a320-amm-32-41-rev12.pdf", "a320-amm-32-41-rev10.pdf",
                                                 "fleet-fuel-efficiency-report-2023.pdf")]
    assert main(["ingest", *map(str, manuals), "--kb", "manuals", "--data-dir", str(data), "--json"]) == 0
    return str(data)


def test_ask_prints_every_stage_and_traces_keep_it(capsys, data_dir):
    capsys.readouterr()
    code, out = run_json(capsys, "ask", "What is the final torque of the A320 main wheel axle nut?",
                         "--kb", "manuals", "--provider", "offline", "--accuracy", "0", "--data-dir", data_dir)
    assert code == 0 and ANSWER_KEYS <= set(out)
    assert out["status"] in {"success", "refused"} and out["provider"] == "offline"
    assert out["tasks"] and out["evidence"] and out["draft"] and out["reviews"]
    assert {"perception", "orchestration", "retrieval", "reflection", "validation", "total"} <= set(out["timings"])
    assert out["review_rounds"] == len(out["reviews"]) >= 1 and out["revisions"] == out["iterations"]

    code, listed = run_json(capsys, "traces", "list", "--limit", "5", "--data-dir", data_dir)
    assert listed["traces"][0]["trace_id"] == out["trace_id"]
    code, shown = run_json(capsys, "traces", "show", out["trace_id"], "--data-dir", data_dir)
    assert shown["final"] == out["final"] and shown["intent"] == out["intent"]
    code, stats = run_json(capsys, "traces", "stats", "--data-dir", data_dir)
    assert stats["runs"] >= 1 and "retrieval" in stats["stage_latency"]
    main(["ask", "What is the final torque of the A320 main wheel axle nut?", "--kb", "manuals", "--provider",
          "offline", "--accuracy", "0", "--data-dir", data_dir])
    text = capsys.readouterr().out
    assert f"review rounds: {len(out['reviews'])}   revisions: {out['iterations']}" in text


def test_ask_without_reflection_and_single_mode(capsys, data_dir):
    code, out = run_json(capsys, "ask", "What fuel burn per block hour did the 2023 report give?", "--no-reflection",
                         "--provider", "offline", "--accuracy", "0", "--data-dir", data_dir)
    assert code == 0 and out["reviews"] == [] and out["iterations"] == 0 and out["extra"]["reflection"] is False
    assert out["review_rounds"] == 0 and out["revisions"] == 0
    code, out = run_json(capsys, "ask", "What fuel burn per block hour did the 2023 report give?", "--mode", "single",
                         "--provider", "offline", "--accuracy", "0", "--data-dir", data_dir)
    assert code == 0 and out["extra"]["mode"] == "single" and out["reviews"]


def test_a_target_accuracy_out_of_range_is_refused_with_what_to_give(capsys, data_dir):
    with pytest.raises(SystemExit):
        main(["ask", "What is the final torque?", "--accuracy", "1.5", "--data-dir", data_dir])
    assert "give a number from 0 up to 1" in capsys.readouterr().err


def test_failed_run_is_reported_and_traced(capsys, data_dir):
    code, out = run_json(capsys, "ask", "anything", "--kb", "nope", "--provider", "offline", "--data-dir", data_dir)
    assert code == 1 and out["status"] == "failure" and "does not exist" in out["final"]
    code, listed = run_json(capsys, "traces", "list", "--status", "failure", "--data-dir", data_dir)
    assert listed["traces"][0]["trace_id"] == out["trace_id"]


def test_text_output_is_readable(capsys, data_dir):
    assert main(["ask", "What is the final torque of the A320 axle nut?", "--provider", "offline",
                 "--data-dir", data_dir]) == 0
    text = capsys.readouterr().out
    assert "status:" in text and "tasks:" in text and "evidence:" in text and "answer:" in text
    with pytest.raises(json.JSONDecodeError):
        json.loads(text)


def test_ask_previous_resolves_a_follow_up_and_says_so(capsys, data_dir):
    previous = "What is the final torque of the A320 main wheel axle nut?"
    code, out = run_json(capsys, "ask", "And on the A321?", "--previous", previous, "--no-reflection",
                         "--provider", "offline", "--accuracy", "0", "--data-dir", data_dir)
    resolved = previous.replace("A320", "A321")
    assert code == 0 and out["question"] == resolved
    assert out["extra"]["followup"] == {"asked": "And on the A321?", "resolved": resolved, "from": previous,
                                        "explanation": "follow-up to the previous question: A320 → A321"}
    capsys.readouterr()
    assert main(["ask", "What is the final torqe of the A320 main wheel axle nut?", "--previous", previous,
                 "--no-reflection", "--provider", "offline", "--data-dir", data_dir]) == 0
    text = capsys.readouterr().out
    assert "spelling: torqe -> torque" in text and "understood as" not in text
