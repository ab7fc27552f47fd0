"""One question and one review against the real Anthropic API.

Never part of the default run (``-m "not live"``); run it on purpose with a key:
``ANTHROPIC_API_KEY=sk-ant-... .venv/bin/pytest -m live tests/llm/test_live_anthropic.py``.
The ``live_anthropic`` fixture (tests/conftest.py) lifts the key and network guards for these
tests only, and skips them when no key was given.
"""

from __future__ import annotations

import pytest

from engine.llm.anthropic_provider import AnthropicProvider
from engine.llm.models import ModelResolver
from engine.reflection import build_reflection
from engine.results import Review
from tests.reflection.builders import AMM_REV12, intent

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
