"""Every endpoint through TestClient on an app over a tmp copy of the small corpus (no sign-in configured)."""

from __future__ import annotations

import pytest

from tests.api.conftest import QUESTION

pytestmark = pytest.mark.integration
STAGES = {"perception", "orchestration", "retrieval", "answerability", "reflection", "validation", "total"}
SHOP_NOTE = "Shop Note SN-19-007 - A320 MLG Wheel Change Tips (axle nut torque)"


def test_healthz_says_the_store_opens_and_the_model_is_loaded(open_client):
    body = open_client.get("/healthz").json()
    assert body["ok"] is True and body["knowledge_bases"] == 2 and body["embedding_dim"] == 384
    assert body["sign_in_required"] is False


def test_openapi_lists_every_endpoint(open_client):
    paths = open_client.get("/openapi.json").json()["paths"]
    assert {"/v1/ask", "/rag", "/v1/review", "/v1/search", "/v1/documents", "/v1/documents/{kb}/{doc_id}",
            "/v1/strategy", "/v1/strategy/{version}/activate", "/v1/agent/runs", "/v1/agent/runs/{run_id}/approve",
            "/v1/agent/runs/{run_id}/deny", "/v1/traces", "/v1/traces/{trace_id}", "/healthz", "/metrics"} <= set(paths)


def test_ask_returns_the_full_answer_as_the_cli_prints_it(open_client):
    response = open_client.post("/v1/ask", json={"question": QUESTION, "knowledge_bases": ["manuals"],
                                                 "target_accuracy": 0})  # best guesses: the answer's shape is tested
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["status"] == "success" and "325" in body["final"]
    assert STAGES <= set(body["timings"]) and body["timings"]["total"] > 0
    assert {t["knowledge_base"] for t in body["tasks"]} == {"manuals"}
    assert body["review_rounds"] == len(body["reviews"]) >= 1 and body["revisions"] == body["iterations"]
    assert {"intent", "evidence", "draft", "validation", "answerability", "trace_id", "provider"} <= set(body)
    stored = open_client.get(f"/v1/traces/{body['trace_id']}").json()
    assert stored["final"] == body["final"] and stored["extra"]["user"] == "local"


def test_ask_without_reflection_drafts_only(open_client):
    body = open_client.post("/v1/ask", json={"question": QUESTION, "reflection": False, "max_rounds": 0}).json()
    assert body["reviews"] == [] and body["extra"]["reflection"] is False


def test_rag_gives_answer_sources_and_stage_timings(open_client):
    body = open_client.post("/rag", json={"query": QUESTION, "target_accuracy": 0}).json()
    assert body["status"] == "success" and body["answer"] and STAGES <= set(body["timings"])
    cited = [s for s in body["sources"] if s["cited"]]
    assert cited and all(f"[{s['n']}]" in body["answer"] for s in cited)
    assert {"title", "doc_id", "knowledge_base", "chunk_id", "update_date", "score", "text"} <= set(cited[0])


def test_review_flags_a_figure_the_passages_contradict(open_client):
    passages = ["The final torque of the axle nut is 325 N.m.", {"text": "Apply grease first.", "title": "Note"}]
    wrong = open_client.post("/v1/review", json={"question": "What is the final torque?", "passages": passages,
                                                 "answer": "The final torque is 150 N.m."}).json()
    assert wrong["valid"] is False and wrong["hallucinated"] is True
    assert any(i["type"] == "fact" and "150" in i["description"] for i in wrong["issues"])
    right = open_client.post("/v1/review", json={"question": "What is the final torque?", "passages": passages,
                                                 "answer": "The final torque is 325 N.m."}).json()
    assert right["valid"] is True and right["issues"] == []


def test_search_returns_chunks_best_first(open_client):
    body = open_client.post("/v1/search", json={"query": "axle nut torque", "knowledge_bases": ["faq"], "k": 3}).json()
    assert 0 < len(body["results"]) <= 3 and {r["knowledge_base"] for r in body["results"]} == {"faq"}
    scores = [r["score"] for r in body["results"]]
    assert scores == sorted(scores, reverse=True) and "vector" not in body["results"][0]


def test_upload_gives_per_file_outcomes_with_the_ui_limits(open_client):
    note = b"# Hangar doors\n\nThe hangar door code rotates every 90 days.\n"
    files = [("files", ("hangar.md", note, "text/markdown")),
             ("files", ("tool.exe", b"MZ\x00\x01", "application/octet-stream")),
             ("files", ("big.txt", b"word " * 230_000, "text/plain"))]  # 1.1 MB: over max_file_mb=1
    response = open_client.post("/v1/documents", files=files,
                                data={"knowledge_base": "hangar-notes", "authority": "4", "update_date": "2024-05-01"})
    assert response.status_code == 200, response.text
    outcome = {f["name"]: f for f in response.json()["files"]}
    assert outcome["hangar.md"]["status"] == "added" and outcome["hangar.md"]["chunks"] == 1
    assert outcome["tool.exe"]["status"] == "rejected" and "Unsupported file type" in outcome["tool.exe"]["reason"]
    assert outcome["big.txt"]["status"] == "rejected" and "over the 1 MB limit" in outcome["big.txt"]["reason"]
    again = open_client.post("/v1/documents", files=files[:1],
                             data={"knowledge_base": "hangar-notes", "authority": "4", "update_date": "2024-05-01"})
    assert again.json()["files"][0]["status"] == "unchanged"
    listed = open_client.get("/v1/documents", params={"kb": "hangar-notes"}).json()["knowledge_bases"]
    doc = listed[0]["documents"][0]
    assert (doc["authority"], doc["update_date"]) == (4, "2024-05-01")
    gone = open_client.delete(f"/v1/documents/hangar-notes/{doc['doc_id']}")
    assert gone.status_code == 200 and gone.json()["chunks_deleted"] == 1
    assert open_client.delete(f"/v1/documents/hangar-notes/{doc['doc_id']}").status_code == 404


def test_upload_chooses_what_a_second_file_of_one_name_does(open_client):
    def upload(text: str, **form):
        files = [("files", ("report.md", f"# Report {text}\n\nThe {text} readings are in.\n".encode(),
                            "text/markdown"))]
        response = open_client.post("/v1/documents", files=files, data={"knowledge_base": "reports", **form})
        assert response.status_code == 200, response.text
        return response.json()["files"][0]

    first = upload("north")
    assert first["status"] == "added" and first["existing"] is None
    replaced = upload("south")
    assert replaced["status"] == "replaced" and replaced["existing"]["title"] == "Report north"
    assert replaced["note"].startswith('Replaced "Report north"')
    kept = upload("east", on_conflict="keep-both")
    assert (kept["status"], kept["doc_id"], kept["title"]) == ("added", first["doc_id"] + "-2", "Report east (2)")
    skipped = upload("west", on_conflict="skip")
    assert skipped["status"] == "skipped" and "Report south" in skipped["reason"]
    listed = open_client.get("/v1/documents", params={"kb": "reports"}).json()["knowledge_bases"][0]["documents"]
    assert {d["title"] for d in listed} == {"Report south", "Report east (2)"}
    bad = open_client.post("/v1/documents", files=[("files", ("x.md", b"# X\n\nx.", "text/markdown"))],
                           data={"knowledge_base": "reports", "on_conflict": "merge"})
    assert bad.status_code == 422


def test_an_upload_over_the_request_limit_is_refused_before_reading(open_client):
    big = [("files", ("huge.txt", b"x" * (2 * 1024 * 1024 + 10), "text/plain"))]
    response = open_client.post("/v1/documents", files=big, data={"knowledge_base": "hangar-notes"})
    assert response.status_code == 413 and "over the 2 MB limit" in response.json()["error"]


def test_documents_lists_every_base_with_its_documents(open_client):
    bases = {b["name"]: b for b in open_client.get("/v1/documents").json()["knowledge_bases"]}
    assert {"manuals", "faq"} <= set(bases) and len(bases["manuals"]["documents"]) == 6
    assert bases["faq"]["chunks"] > 0 and SHOP_NOTE in {d["title"] for d in bases["faq"]["documents"]}


def test_strategy_save_new_version_and_activate_an_old_one(open_client):
    first = open_client.get("/v1/strategy").json()
    changed = dict(first["strategy"], top_k=5, description="narrower")
    saved = open_client.put("/v1/strategy", json={"strategy": changed, "note": "top_k 5"}).json()
    assert saved["active_version"] == saved["saved_version"] != first["active_version"]
    assert saved["strategy"]["top_k"] == 5 and saved["versions"][0]["note"] == "top_k 5"
    back = open_client.post(f"/v1/strategy/{first['active_version']}/activate").json()
    assert back["active_version"] == first["active_version"] and back["strategy"]["top_k"] == first["strategy"]["top_k"]
    bad = open_client.put("/v1/strategy", json={"strategy": dict(changed, top_k=0)})
    assert bad.status_code == 422 and "strategy.top_k" in bad.json()["error"]
    missing = open_client.post("/v1/strategy/20000101T000000000000Z/activate")
    assert missing.status_code == 404 and "does not exist" in missing.json()["error"]


def test_agent_run_pauses_and_deny_then_approve(open_client):
    run = open_client.post("/v1/agent/runs", json={"request": f"delete the document {SHOP_NOTE}"}).json()
    assert run["status"] == "paused" and run["pending"]["tool"] == "delete_document" and run["user"] == "local"
    assert open_client.get(f"/v1/agent/runs/{run['run_id']}").json()["status"] == "paused"
    denied = open_client.post(f"/v1/agent/runs/{run['run_id']}/deny").json()
    assert any(s["decision"] == "rejected_by_user" for s in denied["steps"])
    again = open_client.post(f"/v1/agent/runs/{run['run_id']}/approve")
    assert again.status_code == 400 and "not waiting for approval" in again.json()["error"]
    titles = lambda: {d["title"] for b in open_client.get("/v1/documents").json()["knowledge_bases"]  # noqa: E731
                      for d in b["documents"]}
    assert SHOP_NOTE in titles()
    second = open_client.post("/v1/agent/runs", json={"request": f"delete the document {SHOP_NOTE}"}).json()
    approved = open_client.post(f"/v1/agent/runs/{second['run_id']}/approve").json()  # the local user may
    assert any(s["decision"] == "approved" for s in approved["steps"]) and SHOP_NOTE not in titles()
    assert open_client.post("/v1/agent/runs/nope/approve").status_code == 404


def test_a_target_accuracy_out_of_range_is_a_422_that_names_the_field(open_client):
    response = open_client.post("/v1/ask", json={"question": QUESTION, "target_accuracy": 1.5})
    assert response.status_code == 422 and "target_accuracy" in response.text


def test_the_target_accuracy_decides_whether_a_doubtful_value_is_answered(open_client):
    sure = open_client.post("/v1/ask", json={"question": QUESTION, "target_accuracy": 0.95}).json()
    guess = open_client.post("/v1/ask", json={"question": QUESTION, "target_accuracy": 0}).json()
    judged = guess["answerability"]
    assert judged["target_accuracy"] == 0 and judged["threshold"] == 0
    assert sure["answerability"]["threshold"] > judged["confidence"] or sure["status"] == "success"
    if sure["status"] == "refused":  # refused for want of confidence: the reason names the closest candidate
        assert "not sure enough" in sure["final"] or "no retrieved document" in sure["final"].lower()


def test_traces_filter_and_page(open_client):
    open_client.post("/v1/ask", json={"question": "What is the torque of the A320 axle nut?", "target_accuracy": 0})
    everything = open_client.get("/v1/traces", params={"limit": 500}).json()["traces"]
    assert len(everything) >= 2
    first = open_client.get("/v1/traces", params={"limit": 1}).json()
    second = open_client.get("/v1/traces", params={"limit": 1, "offset": first["next_offset"]}).json()
    assert [t["trace_id"] for t in first["traces"] + second["traces"]] == [t["trace_id"] for t in everything[:2]]
    statuses = {t["status"] for t in open_client.get("/v1/traces", params={"status": "success"}).json()["traces"]}
    assert statuses == {"success"}
    one = open_client.get(f"/v1/traces/{everything[0]['trace_id']}").json()
    assert one["trace_id"] == everything[0]["trace_id"] and "timings" in one


@pytest.mark.parametrize(("method", "path", "payload", "status", "says"), [
    ("post", "/v1/ask", {}, 422, "question: Field required"),
    ("post", "/v1/ask", {"question": "   "}, 422, "only spaces"),
    ("post", "/v1/ask", {"question": "x", "knowledge_bases": ["Bad Name"]}, 422, "knowledge_bases.0"),
    ("post", "/v1/ask", {"question": "x", "knowledge_bases": ["nosuch"]}, 404, "'nosuch' does not exist"),
    ("post", "/v1/ask", {"question": "x", "max_rounds": 99}, 422, "max_rounds"),
    ("post", "/v1/ask", {"question": "x", "extra": 1}, 422, "extra: Extra inputs are not permitted"),
    ("post", "/rag", {"question": "x"}, 422, "query: Field required"),
    ("post", "/v1/review", {"question": "q", "passages": [], "answer": "a"}, 422, "passages"),
    ("post", "/v1/search", {"query": "x", "k": 0}, 422, "k: Input should be greater than or equal to 1"),
    ("get", "/v1/traces?limit=0", None, 422, "limit"),
    ("get", "/v1/traces/not-there", None, 404, "No trace 'not-there'"),
    ("get", "/v1/documents?kb=nosuch", None, 404, "'nosuch' does not exist"),
    ("delete", "/v1/documents/manuals/nosuch-doc", None, 404, "not in 'manuals'"),
    ("post", "/v1/agent/runs", {"request": ""}, 422, "request"),
    ("get", "/v2/nothing", None, 404, "No such endpoint"),
])
def test_bad_requests_get_a_4xx_that_says_what_to_fix(open_client, method, path, payload, status, says):
    kwargs = {"json": payload} if payload is not None else {}
    response = getattr(open_client, method)(path, **kwargs)
    assert response.status_code == status, response.text
    assert says in response.json()["error"]


def test_a_body_that_is_not_json_is_a_422(open_client):
    response = open_client.post("/v1/ask", content=b"not json", headers={"Content-Type": "application/json"})
    assert response.status_code == 422 and "JSON" in response.json()["error"]


def test_metrics_count_requests_stage_latency_refusals_and_validation_failures(open_client):
    open_client.post("/v1/ask", json={})  # a validation failure
    open_client.post("/v1/ask", json={"question": "What is the colour of the hangar cat?"})  # refused
    text = open_client.get("/metrics").text
    assert 'workbench_http_requests_total{method="POST",route="/v1/ask",status="200"}' in text
    assert 'workbench_http_requests_total{method="POST",route="/v1/ask",status="422"}' in text
    assert 'workbench_stage_seconds_count{stage="retrieval"}' in text
    assert 'workbench_validation_failures_total{kind="request"}' in text
    refusals = next(line for line in text.splitlines() if line.startswith("workbench_refusals_total"))
    assert float(refusals.split()[-1]) >= 1


@pytest.mark.parametrize(("path", "payload", "says"), [
    ("/v1/review", {"question": "q", "passages": [""], "answer": "a"}, "passages.0"),
    ("/v1/review", {"question": "q", "passages": [{"text": ""}], "answer": "a"}, "passages.0"),
])
def test_empty_passages_are_refused(open_client, path, payload, says):
    response = open_client.post(path, json=payload)
    assert response.status_code == 422 and says in response.json()["error"]


def test_traces_since_takes_a_real_date_or_time(open_client):
    open_client.post("/v1/ask", json={"question": "What is the axle nut torque?", "reflection": False})
    assert open_client.get("/v1/traces", params={"since": "1043-63-70T5:"}).status_code == 422
    assert open_client.get("/v1/traces", params={"since": "2999-01-01"}).json()["traces"] == []
    assert open_client.get("/v1/traces", params={"since": "2000-01-01T00:00:00+02:00"}).json()["traces"]


def test_a_document_title_can_be_set_and_search_shows_it(open_client):
    note = ("changelog.md", b"# Changelog\n\nThe wheel speed transducer bolts take 4.5 N.m.", "text/markdown")
    report = open_client.post("/v1/documents", data={"knowledge_base": "titles"}, files=[("files", note)]).json()
    doc_id = report["files"][0]["doc_id"]
    changed = open_client.patch(f"/v1/documents/titles/{doc_id}", json={"title": "Wheel transducer torque note"})
    assert changed.status_code == 200 and changed.json()["title"] == "Wheel transducer torque note"
    hits = open_client.post("/v1/search", json={"query": "transducer bolts", "knowledge_bases": ["titles"]}).json()
    assert {h["title"] for h in hits["results"]} == {"Wheel transducer torque note"}
    assert open_client.patch(f"/v1/documents/titles/{doc_id}", json={"title": "  "}).status_code == 422
    assert open_client.patch("/v1/documents/titles/nope-00000000", json={"title": "X"}).status_code == 404
