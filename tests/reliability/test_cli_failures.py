"""Under --json every failure is one JSON error object on stdout, never a traceback: usage errors, the engine's
errors and unexpected exceptions alike."""

from __future__ import annotations

import json

import pytest

from engine.cli import main

pytestmark = pytest.mark.unit


def one_json_object(text: str) -> dict:
    lines = [line for line in text.splitlines() if line.strip()]
    assert len(lines) == 1, text
    return json.loads(lines[0])


def test_an_unexpected_exception_is_one_json_error(tmp_path, capsys):
    not_a_folder = tmp_path / "data"
    not_a_folder.write_text("a file where the data folder should be")
    code = main(["kb", "list", "--data-dir", str(not_a_folder), "--json"])
    captured = capsys.readouterr()
    error = one_json_object(captured.out)
    assert code == 1 and error["ok"] is False and error["error_type"] == "InternalError"
    assert "Error" in error["error"] and "Traceback" not in captured.err and "Traceback" not in captured.out
    # the engine's own errors keep their type
    code = main(["search", "torque", "--kb", "nope", "--data-dir", str(tmp_path / "other"), "--json"])
    error = one_json_object(capsys.readouterr().out)
    assert code == 1 and error["error_type"] == "KnowledgeBaseError" and "does not exist" in error["error"]


def test_without_json_an_unexpected_exception_shows_its_traceback(tmp_path, capsys):
    not_a_folder = tmp_path / "data"
    not_a_folder.write_text("")
    assert main(["kb", "list", "--data-dir", str(not_a_folder)]) == 1
    captured = capsys.readouterr()
    assert captured.out == "" and "Traceback" in captured.err and "error: Internal error" in captured.err


def test_a_usage_error_is_one_json_error(tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["kb", "frobnicate", "--data-dir", str(tmp_path), "--json"])
    captured = capsys.readouterr()
    error = one_json_object(captured.out)
    assert exit_.value.code == 2 and error["error_type"] == "UsageError" and "frobnicate" in error["error"]
    assert "usage:" in captured.err  # the text form stays on stderr
