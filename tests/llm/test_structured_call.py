"""structured_call: forced tool choice, strict flag, checks on the returned input."""

from __future__ import annotations

import pytest

from engine.errors import ProviderError
from engine.llm.base import ChatResponse, TextBlock, ToolSpec, ToolUseBlock
from engine.llm.errors import StructuredOutputError
from engine.llm.scripted import ScriptedProvider
from engine.llm.structured import structured_call

pytestmark = pytest.mark.unit

REVIEW = ToolSpec(
    name="submit_review",
    description="Submit the review of a draft answer.",
    input_schema={
        "type": "object",
        "properties": {
            "valid": {"type": "boolean"},
            "issues": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "type": {"type": "string"},
                        "description": {"type": "string"},
                        "location": {"type": "string"},
                    },
                    "required": ["type", "description"],
                },
            },
            "confidence": {"type": "number", "minimum": 0, "maximum": 1},
        },
        "required": ["valid", "issues", "confidence"],
    },
)
DRAFT = [{"role": "user", "content": "Review this draft: Revenue grew 12% [2]."}]
GOOD = {"valid": True, "issues": [], "confidence": 0.9}


def test_forces_the_tool_and_returns_its_input():
    provider = ScriptedProvider([{"tool_use": {"name": "submit_review", "input": GOOD}}])

    result = structured_call(provider, DRAFT, system="You review answers.", tool=REVIEW, max_tokens=800)

    assert result == GOOD
    call = provider.calls[0]
    assert call["tool_choice"] == {"type": "tool", "name": "submit_review"}
    assert call["tools"] == [{**REVIEW.to_dict(), "strict": True}]
    assert call["system"] == "You review answers." and call["max_tokens"] == 800


def test_strict_can_be_turned_off():
    provider = ScriptedProvider([{"tool_use": {"name": "submit_review", "input": GOOD}}])

    structured_call(provider, DRAFT, tool=REVIEW, strict=False)

    assert "strict" not in provider.calls[0]["tools"][0]


def test_with_the_anthropic_provider_on_a_recorded_reply(replay):
    provider, api = replay("forced_tool_review")

    result = structured_call(provider, DRAFT, system="You review answers.", tool=REVIEW, max_tokens=800)

    assert result["valid"] is False and result["confidence"] == 0.82
    assert result["issues"][0]["type"] == "unsupported_claim"
    body = api.bodies[0]
    assert body["tool_choice"] == {"type": "tool", "name": "submit_review"}
    assert body["tools"][0]["strict"] is True
    assert body["tools"][0]["input_schema"]["additionalProperties"] is False
    assert body["system"] == "You review answers." and body["max_tokens"] == 800


def test_a_text_only_reply_is_an_error():
    provider = ScriptedProvider(["I think the draft is fine."])

    with pytest.raises(StructuredOutputError, match="did not call the tool 'submit_review'.*text only") as caught:
        structured_call(provider, DRAFT, tool=REVIEW)
    assert isinstance(caught.value, ProviderError)


def test_a_call_to_another_tool_is_an_error():
    provider = ScriptedProvider([{"tool_use": {"name": "search", "input": {}}}])

    with pytest.raises(StructuredOutputError, match="got 'search'"):
        structured_call(provider, DRAFT, tool=REVIEW)


def test_a_reply_cut_off_at_max_tokens_is_an_error():
    cut = ChatResponse((ToolUseBlock("t1", "submit_review", {"valid": True}),), "max_tokens")
    provider = ScriptedProvider([cut])

    with pytest.raises(StructuredOutputError, match="max_tokens=50.*Raise max_tokens"):
        structured_call(provider, DRAFT, tool=REVIEW, max_tokens=50)


def test_input_that_breaks_the_schema_is_an_error_unless_validation_is_off():
    bad = {"valid": "yes", "issues": [{"type": "x"}], "confidence": 3}
    provider = ScriptedProvider([{"tool_use": {"name": "submit_review", "input": bad}}] * 2)

    with pytest.raises(StructuredOutputError) as caught:
        structured_call(provider, DRAFT, tool=REVIEW)
    message = str(caught.value)
    assert "valid: 'yes' is not of type 'boolean'" in message
    assert "confidence: 3 is greater than the maximum of 1" in message
    assert "issues/0: 'description' is a required property" in message

    assert structured_call(provider, DRAFT, tool=REVIEW, validate=False) == bad


def test_the_first_matching_call_wins_when_text_comes_first():
    reply = ChatResponse(
        (TextBlock("Reviewing."), ToolUseBlock("t1", "submit_review", GOOD), ToolUseBlock("t2", "submit_review", {})),
        "tool_use",
    )
    assert structured_call(ScriptedProvider([reply]), DRAFT, tool=REVIEW) == GOOD
