"""``python -m engine ask`` prints the model usage and cost of the answer (zero offline)."""

from __future__ import annotations

import pytest

from engine.cli.ask_cmd import render_answer
from engine.llm.base import Usage
from engine.llm.usage import UsageMeter
from engine.results import Answer, Intent

pytestmark = pytest.mark.unit


def payload(extra: dict) -> dict:
    answer = Answer(question="q", intent=Intent(action="lookup", raw_query="q"), status="success", final="A [1].",
                    extra=extra)
    return answer.model_dump(mode="json") | {"review_rounds": 0, "revisions": 0}


def test_the_plain_output_ends_with_the_usage_line():
    meter = UsageMeter()
    meter.record("draft", "claude-sonnet-5-5", Usage(1200, 80))
    meter.record("review", "claude-haiku-5-5", Usage(900, 60, cache_read_input_tokens=700))
    text = render_answer(payload({"usage": meter.summary().model_dump(mode="json")}))
    last = text.splitlines()[-1]
    assert last.startswith("model usage: draft 1 call(s), in 1,200, out 80: $0.0032; review 1 call(s)")
    assert "cache read 700 / write 0" in last and "total 2 call(s)" in last
    assert render_answer(payload({})).splitlines()[-1] == "model usage: no model calls (cost $0.00)"
