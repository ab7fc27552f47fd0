"""Agent runs over the API respect base grants (issue 27, item 1): carol's run that read ``regulations`` is not
shown to alice, who may read ``manuals`` only, nor approved or denied by her; a reader of ``regulations`` who may
call the tool approves it. Traces of asks over ``regulations`` are hidden from alice the same way."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from tests.api.conftest import auth

pytestmark = pytest.mark.integration
ALICE, CAROL, RITA, OPS = ("alice-token-0123456789abcdef", "carol-token-0123456789abcdef",
                           "rita-token-0123456789abcdefg", "ops-token-0123456789abcdefgh")
USERS = {
    "alice": {"role": "analyst", "grants": {"manuals": ["read", "write"]}},
    "carol": {"role": "analyst", "grants": {"regulations": ["write"], "manuals": ["read"]}},
    "rita": {"role": "analyst", "grants": {"regulations": ["read"], "manuals": ["read"]}},
}
TOKENS = {ALICE: {"user": "alice"}, CAROL: {"user": "carol"}, RITA: {"user": "rita"},
          OPS: {"name": "ops", "role": "admin"}}
RULE = "Airworthiness directive NEAA-AD-2025-0042: the axle nut final torque is raised to 325 N.m."
REQUEST = "search axle nut torque in regulations and send the results to ops@example.com"


@pytest.fixture(scope="module")
def client(api_store_template, tmp_path_factory) -> Iterator[TestClient]:
    from engine.api import create_app
    from engine.config import load_settings
    from engine.ingest import Ingestor
    from engine.store import KnowledgeBaseStore

    data = tmp_path_factory.mktemp("api-run-grants") / "data"
    shutil.copytree(api_store_template, data)
    Ingestor(KnowledgeBaseStore(load_settings(data_dir=data))).ingest_records(
        [{"id": "ad-2025-0042", "title": "AD 2025-0042 axle nut", "text": RULE}], "regulations")
    settings = load_settings(data_dir=data, users=json.dumps(USERS), api_tokens=json.dumps(TOKENS))
    with TestClient(create_app(settings), raise_server_exceptions=False) as test_client:
        yield test_client


def _start(client, token: str, request: str) -> dict:
    response = client.post("/v1/agent/runs", json={"request": request}, headers=auth(token))
    assert response.status_code == 200, response.text
    return response.json()


def test_alice_neither_reads_nor_decides_carols_run_over_regulations(client):
    run = _start(client, CAROL, REQUEST)
    assert run["status"] == "paused" and run["pending"]["tool"] == "send_report"
    assert run["knowledge_bases"] == ["regulations"] and "325 N.m" in run["pending"]["arguments"]["body"]
    path = f"/v1/agent/runs/{run['run_id']}"
    for method, suffix in (("get", ""), ("post", "/approve"), ("post", "/deny")):
        response = getattr(client, method)(path + suffix, headers=auth(ALICE))
        assert response.status_code == 404, (suffix, response.text)
        assert "No agent run" in response.json()["error"] and "325" not in response.text
    assert client.get(path, headers=auth(OPS)).json()["status"] == "paused"  # nothing was decided

    approved = client.post(path + "/approve", headers=auth(RITA))  # reads regulations, may call send_report
    assert approved.status_code == 200 and approved.json()["status"] == "completed"
    assert client.get(path, headers=auth(RITA)).status_code == 200
    assert client.get(path, headers=auth(ALICE)).status_code == 404


def test_a_run_that_read_no_base_is_approved_by_anyone_whose_role_may_call_the_tool(client):
    run = _start(client, CAROL, "send the weekly note to ops@example.com")
    assert run["status"] == "paused" and run["knowledge_bases"] == []
    path = f"/v1/agent/runs/{run['run_id']}"
    assert client.get(path, headers=auth(ALICE)).status_code == 200
    approved = client.post(path + "/approve", headers=auth(ALICE))
    assert approved.status_code == 200 and approved.json()["status"] == "completed"


def test_an_approver_is_not_shown_what_the_run_reads_after_the_approval(client):
    run = _start(client, CAROL, "send the weekly note to ops@example.com and then search axle nut in regulations")
    assert run["status"] == "paused" and run["knowledge_bases"] == []
    approved = client.post(f"/v1/agent/runs/{run['run_id']}/approve", headers=auth(ALICE))
    assert approved.status_code == 200, approved.text
    body = approved.json()
    assert body["steps"] == [] and "may not read" in body["final_text"] and "325" not in approved.text
    assert "regulations" in client.get(f"/v1/agent/runs/{run['run_id']}", headers=auth(CAROL)).json()[
        "knowledge_bases"]


def test_traces_of_asks_over_regulations_are_hidden_from_alice(client):
    asked = client.post("/v1/ask", json={"question": "What is the axle nut torque in the airworthiness directive?",
                                         "knowledge_bases": ["regulations"]}, headers=auth(CAROL))
    assert asked.status_code == 200, asked.text
    trace_id = asked.json()["trace_id"]
    mine = [t["trace_id"] for t in client.get("/v1/traces", headers=auth(CAROL)).json()["traces"]]
    assert trace_id in mine
    theirs = client.get("/v1/traces", params={"limit": 500}, headers=auth(ALICE)).json()["traces"]
    assert trace_id not in [t["trace_id"] for t in theirs] and "regulations" not in json.dumps(theirs)
    assert client.get(f"/v1/traces/{trace_id}", headers=auth(ALICE)).status_code == 404
