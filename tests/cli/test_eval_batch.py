"""``eval qa|review --batch``: the evaluation on Claude through Message Batches, against a recorded batch API."""

from __future__ import annotations

import json
from typing import Any

import pytest

from engine.cli import main
from engine.evaluation.batch import BatchState, evaluate_qa_in_batches
from engine.llm.anthropic_provider import AnthropicProvider
from engine.llm.batches import MessageBatches
from engine.llm.models import ModelResolver
from engine.llm.usage import usage_of
from tests.cli.test_eval_qa import CORPUS, QUESTIONS, write
from tests.llm.conftest import mock_client
from tests.llm.test_batches import RECORDED, BatchAPI, no_wait

PASSING = {"valid": True, "issues": [], "corrections": [], "confidence": 0.96, "reasoning": "Supported."}


def claude_reply(params: dict[str, Any], position: int) -> dict[str, Any]:
    """A recorded message shape answering a batched request: a review, or a draft citing the first search result."""
    message = json.loads(json.dumps(RECORDED["messages"][0]))
    if "output_config" in params:  # a review (structured outputs)
        message["content"] = [{"type": "text", "text": json.dumps(PASSING)}]
        return message
    result = params["messages"][0]["content"][0]
    assert result["type"] == "search_result" and result["citations"] == {"enabled": True}
    cited = "".join(block["text"] for block in result["content"])  # the whole first result, as the API joins it
    message.update(model=params["model"], content=[
        {"type": "text", "text": f"According to the documents: {' '.join(b['text'] for b in result['content'])}",
         "citations": [{"type": "search_result_location", "cited_text": cited, "search_result_index": 0,
                        "source": result["source"], "title": result["title"], "start_block_index": 0,
                        "end_block_index": len(result["content"])}]},
        {"type": "text", "text": "."}])
    return message


@pytest.mark.integration
@pytest.mark.slow
def test_eval_qa_sends_the_drafts_then_the_reviews_as_batches_and_scores_the_answers(tmp_path):
    api = BatchAPI(claude_reply)
    client = mock_client(api)
    provider = AnthropicProvider("claude-sonnet-5-5", client=client, models=ModelResolver())
    state = BatchState(tmp_path / "state.json")
    seen = []

    report, run = evaluate_qa_in_batches(write(tmp_path / "q.jsonl", QUESTIONS[:2]), provider, state,
                                         corpus=write(tmp_path / "c.jsonl", CORPUS), on_progress=seen.append,
                                         poll_s=0, batches=MessageBatches(client, sleep=no_wait))

    drafts, reviews = api.batches.values()
    assert run.passes == 3 and run.batch_ids == tuple(api.batches) and run.requests == len(drafts) + len(reviews)
    assert all("output_config" not in r["params"] for r in drafts)
    assert all("output_config" in r["params"] for r in reviews)
    row = next(r for r in report.rows if r["id"] == "q1")
    assert row["status"] == "success" and "[1]" in row["final"] and row["correct"], row["final"]
    assert seen and seen[-1].ended and json.loads(state.path.read_text())["batches"][-1]["read"]
    client.close()


@pytest.mark.unit
def test_batch_needs_the_anthropic_provider(tmp_path, capsys):
    rows = tmp_path / "rows.jsonl"
    rows.write_text(json.dumps({"id": "a", "question": "q", "passages": ["p"], "answer": "a"}) + "\n")
    code = main(["eval", "review", str(rows), "--batch", "--json"])
    assert code != 0
    assert "--batch sends Message Batches to Claude; use --provider anthropic" in capsys.readouterr().out


@pytest.mark.unit
def test_the_state_file_defaults_to_the_data_folder(tmp_path):
    from engine.evaluation.batch import default_state_file

    assert default_state_file(tmp_path, "qa", "bench/questions/qa_dev.jsonl") == \
        tmp_path / "batches" / "eval-qa-qa_dev.json"
    state = BatchState.load(tmp_path / "missing.json")
    state.add_batch("msgbatch_1")
    state.add_batch("msgbatch_1")
    assert state.unread == ["msgbatch_1"]


@pytest.mark.unit
def test_usage_of_a_batched_answer_is_priced_at_the_batch_discount():
    from engine.llm.base import Usage
    from engine.llm.usage import UsageMeter

    meter = UsageMeter()
    meter.record("draft", "claude-sonnet-5-5", Usage(1000, 100, service_tier="batch"))
    assert usage_of({"extra": {"usage": meter.summary().model_dump()}}).total.cost_usd == pytest.approx(0.0015)

