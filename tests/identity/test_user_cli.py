"""`python -m engine user ...` makes hashes that the settings accept and sign-in and token checks then match."""

from __future__ import annotations

import io
import json

import pytest

from engine.cli import main
from engine.config import load_settings
from engine.identity import Directory

pytestmark = pytest.mark.unit


def _run(monkeypatch, capsys, argv: list[str], stdin: str = "") -> dict:
    monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
    assert main([*argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_hash_password_makes_a_users_entry_that_signs_in(monkeypatch, capsys, tmp_path):
    out = _run(monkeypatch, capsys, ["user", "hash-password", "--name", "alice", "--role", "analyst",
                                     "--grant", "manuals=read,write"], "s3cret pass\n")
    assert "s3cret" not in json.dumps(out) and out["password_hash"].startswith("scrypt$")
    settings = load_settings(data_dir=tmp_path, users=json.dumps(out["entry"]))
    alice = Directory.from_settings(settings).sign_in("alice", "s3cret pass")
    assert alice.role == "analyst" and alice.can_write("manuals") and not alice.can_read("faq")


def test_new_token_and_hash_token_agree_and_authenticate(monkeypatch, capsys, tmp_path):
    made = _run(monkeypatch, capsys, ["user", "new-token", "--role", "viewer"])
    assert len(made["token"]) >= 40 and list(made["entry"]) == [made["hash"]]
    again = _run(monkeypatch, capsys, ["user", "hash-token"], made["token"] + "\n")
    assert again["hash"] == made["hash"]
    directory = Directory.from_settings(load_settings(data_dir=tmp_path, api_tokens=json.dumps(made["entry"])))
    assert directory.authenticate_token(made["token"]).role == "viewer"


def test_serve_rejects_a_port_out_of_range(monkeypatch, capsys, tmp_path):
    assert main(["serve", "--port", "70000", "--data-dir", str(tmp_path)]) == 1
    assert "is not a port" in capsys.readouterr().err
