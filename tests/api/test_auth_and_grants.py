"""With tokens configured: 401 without a valid bearer token, 403 for a role or grant that does not allow it, and
alice (grants: manuals) never sees bob's base (faq) through ask, /rag, search, documents, traces or the agent."""

from __future__ import annotations

import json

import pytest

from tests.api.conftest import ADMIN_TOKEN, ALICE_TOKEN, BOB_TOKEN, VIEWER_TOKEN, auth

pytestmark = pytest.mark.integration
FAQ_TITLES = ("Shop Note SN-19-007", "Fuel Efficiency Quick Facts")
FAQ_QUESTION = "What does the shop note say about the MLG axle nut torque?"


def _mentions_faq(payload) -> bool:
    text = json.dumps(payload)
    return '"faq"' in text or any(title in text for title in FAQ_TITLES)


@pytest.mark.parametrize(("headers", "says"), [
    ({}, "This API needs a token"),
    ({"Authorization": "Bearer wrong-token-0123456789"}, "The API token is not valid"),
    ({"Authorization": f"Basic {ALICE_TOKEN}"}, "Use the Bearer scheme"),
])
def test_no_valid_token_is_a_401_with_a_clear_message(secured_client, headers, says):
    for method, path, payload in (("post", "/v1/ask", {"question": "x"}), ("get", "/v1/documents", None),
                                  ("get", "/v1/traces", None), ("post", "/rag", {"query": "x"})):
        kwargs = {"json": payload} if payload else {}
        response = getattr(secured_client, method)(path, headers=headers, **kwargs)
        assert response.status_code == 401, (path, response.text)
        assert says in response.json()["error"] and response.headers["WWW-Authenticate"].startswith("Bearer")


def test_health_metrics_and_openapi_need_no_token(secured_client):
    assert secured_client.get("/healthz").json()["sign_in_required"] is True
    assert secured_client.get("/metrics").status_code == 200
    spec = secured_client.get("/openapi.json").json()
    assert "HTTPBearer" in spec["components"]["securitySchemes"]


def test_writes_need_analyst_or_admin_and_a_write_grant(secured_client):
    viewer = auth(VIEWER_TOKEN)
    files = [("files", ("n.txt", b"A note about hangar lights.", "text/plain"))]
    refused = secured_client.post("/v1/documents", files=files, data={"knowledge_base": "manuals"}, headers=viewer)
    assert refused.status_code == 403 and "needs the analyst or admin role" in refused.json()["error"]
    strategy = secured_client.get("/v1/strategy", headers=viewer).json()["strategy"]
    put = secured_client.put("/v1/strategy", json={"strategy": strategy}, headers=viewer)
    assert put.status_code == 403
    no_grant = secured_client.post("/v1/documents", files=files, data={"knowledge_base": "faq"},
                                   headers=auth(ALICE_TOKEN))
    assert no_grant.status_code == 403 and "no write grant for knowledge base 'faq'" in no_grant.json()["error"]
    ok = secured_client.post("/v1/documents", files=files, data={"knowledge_base": "manuals"},
                             headers=auth(ALICE_TOKEN))
    assert ok.status_code == 200 and ok.json()["summary"]["added"] == 1
    assert secured_client.get("/v1/documents", headers=viewer).status_code == 200  # reading is fine


def test_alice_never_sees_bobs_base(secured_client):
    alice, bob = auth(ALICE_TOKEN), auth(BOB_TOKEN)
    # bob asks about his base first, so there is a trace over faq
    bobs = secured_client.post("/v1/ask", json={"question": FAQ_QUESTION}, headers=bob).json()
    assert {e["knowledge_base"] for e in bobs["evidence"]} == {"faq"}

    answer = secured_client.post("/v1/ask", json={"question": FAQ_QUESTION}, headers=alice).json()
    assert answer["evidence"] and not _mentions_faq(answer["evidence"]) and not _mentions_faq(answer["tasks"])
    rag = secured_client.post("/rag", json={"query": FAQ_QUESTION}, headers=alice).json()
    assert not _mentions_faq(rag["sources"])
    named = secured_client.post("/v1/ask", json={"question": FAQ_QUESTION, "knowledge_bases": ["faq"]}, headers=alice)
    assert named.status_code == 404 and "yours: manuals" in named.json()["error"]

    hits = secured_client.post("/v1/search", json={"query": "shop note axle nut", "k": 20}, headers=alice).json()
    assert hits["results"] and {h["knowledge_base"] for h in hits["results"]} == {"manuals"}
    assert secured_client.post("/v1/search", json={"query": "x", "knowledge_bases": ["faq"]},
                               headers=alice).status_code == 404

    bases = secured_client.get("/v1/documents", headers=alice).json()["knowledge_bases"]
    assert [b["name"] for b in bases] == ["manuals"]
    assert secured_client.get("/v1/documents", params={"kb": "faq"}, headers=alice).status_code == 404
    faq_doc = secured_client.get("/v1/documents", params={"kb": "faq"}, headers=bob).json()
    doc_id = faq_doc["knowledge_bases"][0]["documents"][0]["doc_id"]
    assert secured_client.delete(f"/v1/documents/faq/{doc_id}", headers=alice).status_code == 404

    traces = secured_client.get("/v1/traces", params={"limit": 500}, headers=alice).json()["traces"]
    assert traces and bobs["trace_id"] not in {t["trace_id"] for t in traces}
    assert all(set(t["knowledge_bases"]) <= {"manuals"} for t in traces)
    assert secured_client.get(f"/v1/traces/{bobs['trace_id']}", headers=alice).status_code == 404
    assert secured_client.get(f"/v1/traces/{bobs['trace_id']}", headers=bob).status_code == 200

    listed = secured_client.post("/v1/agent/runs", json={"request": "list the documents"}, headers=alice).json()
    assert listed["user"] == "alice" and listed["role"] == "analyst" and not _mentions_faq(listed["steps"])
    asked = secured_client.post("/v1/agent/runs", json={"request": "list the documents in faq"}, headers=alice).json()
    assert "Shop Note" not in json.dumps(asked) and any(
        (s["result"] or {}).get("ok") is False for s in asked["steps"])
    searched = secured_client.post("/v1/agent/runs", json={"request": "search shop note axle nut torque"},
                                   headers=alice).json()
    assert not _mentions_faq(searched["steps"])
    bobs_run = secured_client.post("/v1/agent/runs", json={"request": "list the documents"}, headers=bob).json()
    assert secured_client.get(f"/v1/agent/runs/{bobs_run['run_id']}", headers=alice).status_code == 404


def test_an_admin_token_sees_everything(secured_client):
    bases = secured_client.get("/v1/documents", headers=auth(ADMIN_TOKEN)).json()["knowledge_bases"]
    assert {"manuals", "faq"} <= {b["name"] for b in bases}


def test_a_run_is_approved_by_someone_else_not_by_its_starter(secured_client):
    admin = auth(ADMIN_TOKEN)
    bob_doc = secured_client.get("/v1/documents", params={"kb": "faq"}, headers=admin).json()
    title = bob_doc["knowledge_bases"][0]["documents"][-1]["title"]
    run = secured_client.post("/v1/agent/runs", json={"request": f"delete the document {title}"}, headers=admin).json()
    assert run["status"] == "paused" and run["user"] == "ops"
    own = secured_client.post(f"/v1/agent/runs/{run['run_id']}/approve", headers=admin)
    assert own.status_code == 403 and "someone else must approve" in own.json()["error"]
    viewer = secured_client.post(f"/v1/agent/runs/{run['run_id']}/approve", headers=auth(VIEWER_TOKEN))
    assert viewer.status_code == 403 and "may not approve delete_document" in viewer.json()["error"]
    assert secured_client.post(f"/v1/agent/runs/{run['run_id']}/approve",
                               headers=auth(ALICE_TOKEN)).status_code == 404  # alice cannot read faq
    denied = secured_client.post(f"/v1/agent/runs/{run['run_id']}/deny", headers=admin).json()
    assert any(s["decision"] == "rejected_by_user" for s in denied["steps"])
