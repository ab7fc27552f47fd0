"""One question and one review, one streamed ask with Claude's citations and one two-question batch, live.

Never part of the default run (``-m "not live"``); run it on purpose with a key:
``ANTHROPIC_API_KEY=sk-ant-... .venv/bin/pytest -m live tests/llm/test_live_anthropic.py``.
The ``live_anthropic`` fixture (tests/conftest.py) lifts the key and network guards for these
tests only, and skips them when no key was given.
"""

from __future__ import annotations

import json

import pytest

from engine.assemble import build_reflection
from engine.evaluation.batch import BatchState, evaluate_review_in_batches
from engine.llm.anthropic_provider import AnthropicProvider
from engine.llm.models import ModelResolver
from engine.llm.streaming import StreamDone, TextDelta
from engine.results import Review
from engine.validation.cited import check_cited_texts
from tests.reflection.builders import AMM_REV12, SHOP_NOTE, intent

pytestmark = pytest.mark.live

QUESTION = "What torque does the manual give for the A320 main wheel axle nut?"
EVIDENCE = (AMM_REV12,)


@pytest.fixture
def provider(live_anthropic) -> AnthropicProvider:
    """Claude with the key from the environment and a model list of its own."""
    return AnthropicProvider(models=ModelResolver())


def test_the_default_models_exist_and_answer(provider):
    assert provider.model in provider.available_models(), "the newest Sonnet model should come from the list"

    loop = build_reflection("anthropic", provider=provider)
    answer = loop.generator.draft(QUESTION, EVIDENCE, intent(QUESTION))

    assert loop.reviewer.model in provider.available_models()
    assert "150" in answer and "[1]" in answer


def test_the_review_comes_back_as_a_parsed_review(provider):
    loop = build_reflection("anthropic", provider=provider)

    review = loop.reviewer.review(QUESTION, EVIDENCE, "Torque the axle nut to 250 lbf.ft [1].")

    assert isinstance(review, Review)
    assert not any(issue.type == "format" for issue in review.issues), review.issues
    assert review.valid is False and {issue.type for issue in review.issues} & {"fact", "citation"}


def test_a_streamed_draft_cites_the_search_results_it_was_given(provider):
    loop = build_reflection("anthropic", provider=provider)
    events = []

    written = loop.generator.compose(QUESTION, (AMM_REV12, SHOP_NOTE), intent(QUESTION), on_event=events.append)

    assert sum(isinstance(e, TextDelta) for e in events) >= 1 and isinstance(events[-1], StreamDone)
    assert written.citations and "[1]" in written.text and "150" in written.text
    assert check_cited_texts(written.citations, (AMM_REV12, SHOP_NOTE)) == []  # every cited passage is in its chunk
    usage = loop.usage()
    assert usage.stages["draft"].calls == 1 and usage.stages["draft"].cost_usd is not None


def test_a_two_question_review_batch_comes_back_scored(provider, tmp_path):
    wheel = AMM_REV12.text
    rows = tmp_path / "rows.jsonl"
    rows.write_text("\n".join(json.dumps(row) for row in (
        {"id": "a", "question": QUESTION, "passages": [wheel], "answer": "Torque the axle nut to 150 lbf.ft.",
         "label": 0},
        {"id": "b", "question": QUESTION, "passages": [wheel], "answer": "Torque the axle nut to 95 lbf.ft.",
         "label": 1})) + "\n")

    report, run = evaluate_review_in_batches(rows, provider, BatchState(tmp_path / "state.json"), poll_s=10)

    assert run.batch_ids and run.batch_ids[0].startswith("msgbatch_") and run.requests == 2
    assert report.rows == 2 and report.verdicts[1]["hallucinated"] is True
