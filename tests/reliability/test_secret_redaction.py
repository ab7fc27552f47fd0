"""An upstream error that echoes the request's headers must not put the API key anywhere.

A scripted provider fails the way an HTTP client does when it quotes the request: the key in
``x-api-key``, in ``Authorization: Bearer``, and a second key-shaped string. The key is the
``ANTHROPIC_API_KEY`` value, deliberately not key-shaped, so only knowing the value finds it.
After ``ask`` and ``agent`` runs (JSON and text output, the engine's own error and an unexpected
one) and reading the traces and the audit log back, the key must be in no output and no byte of
any file in the data folder.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.cli import main
from engine.errors import ProviderError
from engine.llm.registry import register_provider, unregister_provider
from engine.llm.scripted import ScriptedProvider
from engine.redaction import REDACTED, redact_strings, redact_text

pytestmark = pytest.mark.integration
KEY = "corp-gateway-7f3a9c2e5b8d41f6a0c3e9b7d2f5a8c1"
OTHER_KEY = "sk-ant-api03-Qm9vZ2xlLXN0eWxlLXRlc3Qta2V5LTEyMzQ1Njc4OTA"
UPSTREAM = (f"Error code: 401 - request POST /v1/messages headers={{'x-api-key': '{KEY}', "
            f"'authorization': 'Bearer {KEY}', 'anthropic-version': '2023-06-01'}} retry-with {OTHER_KEY}")
SECRETS = (KEY, OTHER_KEY, KEY[:24], OTHER_KEY[:24])


def leaky_provider(model: str | None, **options):
    """``leaky:engine`` fails with the engine's ProviderError, ``leaky:bug`` with an unexpected RuntimeError."""
    def fail(messages, kwargs):
        raise (RuntimeError if model == "bug" else ProviderError)(UPSTREAM)

    return ScriptedProvider([fail] * 8, name=f"leaky:{model}")


@pytest.fixture()
def leaky(monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    register_provider("leaky", leaky_provider, replace=True)
    yield
    unregister_provider("leaky")


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory):
    data = tmp_path_factory.mktemp("secrets") / "data"
    doc = tmp_path_factory.mktemp("docs") / "wheels.md"
    doc.write_text("# Wheel change\n\nTorque the axle nut to 270 N.m, then back it off and retorque to 20 N.m.\n")
    assert main(["ingest", str(doc), "--kb", "manuals", "--data-dir", str(data), "--json"]) == 0
    return str(data)


def test_no_key_in_output_traces_run_state_or_audit_log(leaky, data_dir, capsys):
    capsys.readouterr()
    outputs: list[str] = []
    runs = [
        ["ask", "What is the axle nut torque?", "--kb", "manuals", "--provider", "leaky:engine"],
        ["ask", "What is the axle nut torque?", "--kb", "manuals", "--provider", "leaky:bug"],
        ["agent", "find the axle nut torque", "--provider", "leaky:engine", "--user", "ana"],
        ["agent", "find the axle nut torque", "--provider", "leaky:bug", "--user", "ana"],
    ]
    for argv in runs:
        for as_json in (True, False):
            code = main(argv + ["--data-dir", data_dir] + (["--json"] if as_json else []))
            captured = capsys.readouterr()
            outputs += [captured.out, captured.err]
            assert code == 1, (argv, captured)
            if as_json:
                (line,) = [x for x in captured.out.splitlines() if x.strip()]  # one JSON object, no traceback
                report = json.loads(line)
                assert report.get("ok") is False or report.get("status") == "failure", report
                assert "Traceback" not in captured.err
    for argv in (["traces", "list"], ["audit", "list"]):
        assert main(argv + ["--data-dir", data_dir, "--json"]) == 0
        outputs.append(capsys.readouterr().out)
    traces = json.loads(outputs[-2])["traces"]
    for trace in traces:
        main(["traces", "show", trace["trace_id"], "--data-dir", data_dir, "--json"])
        outputs.append(capsys.readouterr().out)

    everything = "\n".join(outputs)
    assert REDACTED in everything and "401" in everything  # the failures were reported, minus the key
    for secret in SECRETS:
        assert secret not in everything
    stored = [p for p in Path(data_dir).rglob("*") if p.is_file()]
    assert traces and any(p.name.startswith("workbench.db") for p in stored)  # the SQL database (and its WAL) holds
    # the traces, run state and audit log; every byte of it is read below
    for path in stored:
        data = path.read_bytes()
        for secret in SECRETS:
            assert secret.encode() not in data, f"{secret[:10]}... found in {path}"


@pytest.mark.unit
def test_header_and_key_shapes_are_redacted(monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    text = redact_text(UPSTREAM + f' "x-api-key": "other-value-123" Authorization: Bearer abc.def.ghi-123')
    for secret in (*SECRETS, "other-value-123", "abc.def.ghi-123"):
        assert secret not in text
    assert "anthropic-version': '2023-06-01'" in text and text.startswith("Error code: 401")
    assert redact_text("max_tokens: 1024, input_tokens=12") == "max_tokens: 1024, input_tokens=12"


@pytest.mark.unit
def test_the_shortest_credentials_are_redacted_in_nested_values(monkeypatch):
    """Strings shorter than any credential are passed over; the shortest credential forms are not."""
    monkeypatch.setenv("ANTHROPIC_API_KEY", "k" * 8)
    value = {"apikey=x": ["apikey:y", "kkkkkkkk", ("short", 7)], "ok": "fine"}
    assert redact_strings(value) == {f"apikey={REDACTED}": [f"apikey:{REDACTED}", REDACTED, ["short", 7]],
                                     "ok": "fine"}


def test_the_cue_screen_skips_only_text_the_patterns_leave_alone():
    """``CUES`` lets text through unredacted only when none of the patterns would change it."""
    from engine.redaction import BEARER, CREDENTIAL_FIELD, CUES, KEY_SHAPED

    def full(text: str) -> str:
        text = KEY_SHAPED.sub(REDACTED, text)
        text = CREDENTIAL_FIELD.sub(lambda m: m["name"] + (m["scheme"] or "") + REDACTED, text)
        return BEARER.sub(lambda m: m["scheme"] + REDACTED, text)

    leaking = [UPSTREAM, f"use {OTHER_KEY} here", "auth_token=abcdefgh12345", "ACCESS-TOKEN: 'zz99yy88xx77'",
               "Proxy-Authorization: Basic dXNlcjpwYXNz", "APIKEY=abcd1234efgh", "Bearer abcdefgh.ijkl",
               "ghp_" + "a" * 24, "github_pat_" + "b" * 24, "AKIA" + "C" * 16, "xoxb-1234567890-abc",
               '{"X-Api-Key": "k3y-v4lue-123"}', "x-auth-token:zzzzzzzzzz"]
    for text in leaking:
        assert CUES.search(text) is not None, text
        assert redact_text(text) == full(text) != text, text
    plain = ["The axle nut torque is 270 N.m.", "T4:keyword@regulations", "Monkey wrench sizes in the tool kit",
             "sky-blue paint", "GHP 12 form", "a token of thanks", "the key figure"]
    for text in plain:
        assert CUES.search(text) is None and redact_text(text) == full(text) == text, text
