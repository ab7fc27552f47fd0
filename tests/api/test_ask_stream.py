"""``POST /v1/ask/stream``: server-sent events for each stage, the draft as it is written, reviews, the answer;
and the model usage and cost in ``/metrics``."""

from __future__ import annotations

import json

import pytest

from tests.api.conftest import QUESTION

pytestmark = pytest.mark.integration


def events_of(body: str) -> list[tuple[str, dict]]:
    """(event, data) pairs of a text/event-stream body."""
    found = []
    for block in body.strip().split("\n\n"):
        lines = dict(line.split(": ", 1) for line in block.splitlines() if ": " in line)
        found.append((lines["event"], json.loads(lines["data"])))
    return found


def test_the_stream_reports_stages_draft_reviews_and_ends_with_the_answer(open_client):
    response = open_client.post("/v1/ask/stream", json={"question": QUESTION})

    assert response.status_code == 200 and response.headers["content-type"].startswith("text/event-stream")
    events = events_of(response.text)
    kinds = [kind for kind, _ in events]
    assert events[0] == ("stage_started", {"stage": "perception"})
    finished = {data["stage"]: data["ms"] for kind, data in events if kind == "stage_finished"}
    assert {"perception", "orchestration", "retrieval", "answerability"} <= set(finished)
    kind, answer = events[-1]
    assert kind == "answer" and answer["question"] == QUESTION and answer["status"] in ("success", "refused")
    assert answer["extra"]["usage"]["total"] == {"calls": 0, "input_tokens": 0, "output_tokens": 0,
                                                 "cache_read_tokens": 0, "cache_write_tokens": 0, "cost_usd": 0.0,
                                                 "unpriced_calls": 0, "models": []}
    if answer["draft"]:  # drafted offline: the text streamed sentence by sentence, then in full
        drafted = [data for kind, data in events if kind == "draft_done" and data["step"] == "draft"]
        assert drafted and drafted[0]["text"] == answer["draft"]
        assert kinds.index("draft_delta") < kinds.index("draft_done")
        reviews = [data for kind, data in events if kind == "review"]
        assert [r["round"] for r in reviews] == list(range(1, len(answer["reviews"]) + 1))
        assert {"valid", "confidence", "issues"} <= set(reviews[0])


def test_bases_are_checked_before_the_stream_starts(open_client):
    response = open_client.post("/v1/ask/stream", json={"question": QUESTION, "knowledge_bases": ["nope"]})
    assert response.status_code == 404 and "nope" in response.json()["error"]


def test_metrics_carry_model_tokens_and_cost_per_stage(open_client):
    open_client.post("/v1/ask", json={"question": QUESTION})
    text = open_client.get("/metrics").text
    assert "# HELP workbench_llm_tokens_total Model tokens used by answered questions" in text
    assert "# HELP workbench_llm_cost_usd_total Estimated cost of the model calls in US dollars" in text
    assert 'workbench_llm_cost_usd_total{stage="draft"}' not in text  # offline: nothing billed, nothing counted


def test_a_claude_answer_adds_its_tokens_and_cost_to_the_metrics():
    from engine.api.metrics import Metrics
    from engine.llm.base import Usage
    from engine.llm.usage import UsageMeter
    from engine.results import Answer, Intent

    meter = UsageMeter()
    meter.record("draft", "claude-sonnet-5-5", Usage(1000, 100, cache_creation_input_tokens=2000))
    meter.record("review", "claude-haiku-5-5", Usage(500, 50, cache_read_input_tokens=1500))
    meter.record("review", "some-model", Usage(10, 10))
    answer = Answer(question="q", intent=Intent(action="lookup", raw_query="q"), status="success",
                    extra={"usage": meter.summary().model_dump()})
    metrics = Metrics()
    metrics.record_answer(answer)
    text = metrics.render().body.decode()
    assert 'workbench_llm_tokens_total{kind="cache_write",stage="draft"} 2000.0' in text
    assert 'workbench_llm_tokens_total{kind="cache_read",stage="review"} 1500.0' in text
    assert 'workbench_llm_cost_usd_total{stage="draft"} 0.008' in text  # 1000*2 + 2000*2.5 + 100*10 per MTok
    assert 'workbench_llm_unpriced_calls_total{stage="review"} 1.0' in text  # an unpriced model: cost unknown
    assert 'workbench_llm_cost_usd_total{stage="review"}' not in text
