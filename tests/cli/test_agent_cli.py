"""The agent CLI: a request, a paused run resumed in a later call, denial, the audit log; both argv forms parse."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from engine.cli import build_parser, main
from tests import helpers
from tests.helpers import run_json

ROOT = Path(__file__).resolve().parents[2]




@pytest.fixture()
def data_dir(tmp_path):
    return str(tmp_path / "data")


@pytest.mark.unit
def test_request_and_resume_forms_both_parse():
    parser = build_parser()
    args = parser.parse_args(["agent", "delete the old manual", "--role", "admin"])
    assert args.command == "agent" and args.request == ["delete the old manual"] and args.role == "admin"
    args = parser.parse_args(["agent", "resume", "abc123", "--approve", "--data-dir", "d"])
    assert args.request == ["resume", "abc123"] and args.approve and not args.deny and args.data_dir == "d"
    args = parser.parse_args(["agent", "resume", "abc123", "--deny"])
    assert args.deny and not args.approve
    args = parser.parse_args(["agent", "list", "documents", "in", "manuals"])
    assert args.request == ["list", "documents", "in", "manuals"] and args.role is None  # start() then acts as analyst
    with pytest.raises(SystemExit):
        parser.parse_args(["agent", "resume", "abc123", "--approve", "--deny"])
    with pytest.raises(SystemExit):
        parser.parse_args(["agent", "x", "--role", "root"])


@pytest.mark.unit
@pytest.mark.parametrize("argv", [
    ["agent", "resume", "abc123"],
    ["agent", "resume", "--approve"],
    ["agent", "resume", "a", "b", "--approve"],
    ["agent", "what is 1+1", "--approve"],
])
def test_misused_resume_is_a_usage_error(argv, data_dir, capsys):
    with pytest.raises(SystemExit) as exc:
        main(argv + ["--data-dir", data_dir])
    assert exc.value.code == 2


@pytest.mark.integration
def test_request_completes(data_dir, capsys):
    code, out = run_json(capsys, "agent", "what is 12 * (3 + 4)?", "--user", "ana", "--data-dir", data_dir,
                         "--provider", "offline")
    assert code == 0 and out["status"] == "completed" and out["final_text"] == "12 * (3 + 4) = 84"
    assert out["steps"][0]["decision"] == "allowed" and out["user"] == "ana" and out["provider"] == "offline"


@pytest.mark.integration
def test_pause_then_approve_in_a_later_call_runs_once(data_dir, capsys, tmp_path):
    code, out = run_json(capsys, "agent", "send the brake summary to ops@example.com", "--user", "ana",
                         "--data-dir", data_dir)
    assert code == 0 and out["status"] == "paused" and out["decision"] == "confirmation_required"
    assert out["pending"]["tool"] == "send_report"
    assert out["pending"]["arguments"]["to"] == "ops@example.com"
    run_id = out["run_id"]
    outbox = tmp_path / "data" / "outbox"
    assert not outbox.exists()

    code, out = run_json(capsys, "agent", "resume", run_id, "--approve", "--user", "boss", "--data-dir", data_dir)
    assert code == 0 and out["status"] == "completed" and "outbox" in out["final_text"]
    assert len(list(outbox.iterdir())) == 1

    code, out = run_json(capsys, "agent", "resume", run_id, "--approve", "--data-dir", data_dir)
    assert code == 1 and out["ok"] is False and "not waiting for approval" in out["error"]
    assert len(list(outbox.iterdir())) == 1

    code, out = run_json(capsys, "audit", "list", "--run", run_id, "--data-dir", data_dir)
    assert [(s["step"], s["tool"], s["decision"]) for s in out["steps"]] == [
        (1, "send_report", "confirmation_required"), (2, "send_report", "approved")]
    assert out["steps"][1]["message"] == "approved by boss; send_report finished."


@pytest.mark.integration
def test_deny_and_text_output(data_dir, capsys, tmp_path):
    assert main(["agent", "send a note to ops@example.com", "--user", "ana", "--data-dir", data_dir]) == 0
    text = capsys.readouterr().out
    assert "confirmation_required" in text and "--approve" in text and "send_report" in text
    run_id = text.split()[1].rstrip(":")
    code, out = run_json(capsys, "agent", "resume", run_id, "--deny", "--data-dir", data_dir)
    assert out["steps"][-1]["decision"] == "rejected_by_user" and "denied" in out["final_text"]
    assert code == 1 and out["status"] == "incomplete" and out["ok"] is False  # the send asked for was not done
    assert not (tmp_path / "data" / "outbox").exists()
    assert main(["audit", "list", "--data-dir", data_dir]) == 0
    assert "rejected_by_user" in capsys.readouterr().out


@pytest.mark.integration
def test_unknown_run_and_low_role(data_dir, capsys):
    code, out = run_json(capsys, "agent", "resume", "nope", "--deny", "--data-dir", data_dir)
    assert code == 1 and "No agent run" in out["error"]
    code, out = run_json(capsys, "agent", "send a note to ops@example.com", "--role", "viewer", "--data-dir", data_dir)
    assert code == 1 and out["status"] == "incomplete" and "not available to this role" in out["final_text"]


@pytest.mark.integration
def test_delete_by_title_pauses_with_the_resolved_document(data_dir, capsys, tmp_path):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "brake-wear.md").write_text(helpers.SAMPLE_MD)
    assert main(["ingest", str(docs), "--kb", "manuals", "--data-dir", data_dir, "--json"]) == 0
    capsys.readouterr()
    code, out = run_json(capsys, "agent", "delete the brake wear pin check", "--role", "admin", "--data-dir", data_dir)
    assert out["status"] == "paused" and out["pending"]["arguments"]["kb"] == "manuals"
    doc_id = out["pending"]["arguments"]["doc_id"]
    run_json(capsys, "agent", "resume", out["run_id"], "--deny", "--data-dir", data_dir)
    _, listed = run_json(capsys, "kb", "list", "--data-dir", data_dir)
    assert [d["doc_id"] for d in listed["knowledge_bases"][0]["documents"]] == [doc_id]

    code, out = run_json(capsys, "agent", "delete the brake wear pin check", "--role", "admin", "--data-dir", data_dir)
    code, out = run_json(capsys, "agent", "resume", out["run_id"], "--approve", "--data-dir", data_dir)
    assert code == 0 and f"Deleted {doc_id} from manuals" in out["final_text"]
    _, listed = run_json(capsys, "kb", "list", "--data-dir", data_dir)
    assert listed["knowledge_bases"][0]["documents"] == []


@pytest.mark.integration
def test_a_paused_run_is_resumed_by_another_process(tmp_path):
    def engine(*argv: str) -> tuple[int, dict]:
        done = subprocess.run([sys.executable, "-m", "engine", *argv, "--data-dir", str(tmp_path / "data"), "--json"],
                              cwd=ROOT, capture_output=True, text=True, timeout=120)
        return done.returncode, json.loads(done.stdout)

    code, out = engine("agent", "send the export to ops@example.com", "--provider", "offline")
    assert out["status"] == "paused"
    code, out = engine("agent", "resume", out["run_id"], "--approve")
    assert code == 0 and out["status"] == "completed"
    assert len(list((tmp_path / "data" / "outbox").iterdir())) == 1


@pytest.mark.integration
def test_with_users_configured_the_cli_acts_as_a_user_under_the_run_rules(tmp_path, capsys, monkeypatch):
    users = {"alice": {"role": "analyst", "grants": {"manuals": ["read", "write"]}},
             "carol": {"role": "analyst", "grants": {"faq": ["write"], "manuals": ["read"]}},
             "bob": {"role": "admin"}}
    data = str(tmp_path / "data")
    for kb, name, text in (("manuals", "brake-wear.md", helpers.SAMPLE_MD),
                           ("faq", "quarantine.md", "# Quarantine note\n\nThe zephyrine manifold tolerance is 42 "
                                                    "microns.\n")):
        folder = tmp_path / kb
        folder.mkdir()
        (folder / name).write_text(text)
        assert main(["ingest", str(folder), "--kb", kb, "--data-dir", data, "--json"]) == 0
    capsys.readouterr()
    monkeypatch.setenv("WORKBENCH_USERS", json.dumps(users))

    code, run = run_json(capsys, "agent", "search zephyrine manifold in faq and send the results to ops@example.com",
                         "--user", "carol", "--data-dir", data)
    assert code == 0 and run["status"] == "paused" and run["user"] == "carol" and run["knowledge_bases"] == ["faq"]
    code, out = run_json(capsys, "agent", "resume", run["run_id"], "--approve", "--user", "alice", "--data-dir", data)
    assert code == 1 and "No agent run" in out["error"] and "42 microns" not in json.dumps(out)
    _, listed = run_json(capsys, "audit", "list", "--run", run["run_id"], "--user", "alice", "--data-dir", data)
    assert listed["steps"] == []
    _, listed = run_json(capsys, "audit", "list", "--run", run["run_id"], "--user", "bob", "--data-dir", data)
    assert [s["tool"] for s in listed["steps"]] == ["search_knowledge_base", "send_report"]

    code, out = run_json(capsys, "agent", "list the documents", "--user", "alice", "--role", "admin",
                         "--data-dir", data)
    assert code == 1 and "leave out --role admin" in out["error"]
    code, out = run_json(capsys, "agent", "list the documents", "--user", "mallory", "--data-dir", data)
    assert code == 1 and "not a configured user" in out["error"] and "alice" in out["error"]
    code, listed = run_json(capsys, "agent", "list the documents", "--user", "alice", "--data-dir", data)
    assert code == 0 and listed["knowledge_bases"] == ["manuals"] and "zephyrine" not in json.dumps(listed).lower()

    code, out = run_json(capsys, "agent", "resume", run["run_id"], "--approve", "--user", "bob", "--data-dir", data)
    assert code == 0 and out["status"] == "completed" and out["deciders"] == ["bob"]
