"""structured_call: the way JSON is asked for per capability (structured outputs, forced tool, offered tool),
the strict flag, refusals and cut-offs, checks on the returned object."""

from __future__ import annotations

import pytest

from engine.errors import ProviderError
from engine.llm.base import ChatResponse, Refusal, TextBlock, ToolSpec, ToolUseBlock
from engine.llm.capabilities import ModelCapabilities
from engine.llm.errors import ModelRefusalError, OutputCutOffError, StructuredOutputError, UnusableReplyError
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
JSON_OUTPUT = ModelCapabilities(listed=True, json_output=True, thinking_types=frozenset({"adaptive", "disabled"}))
ALWAYS_THINKS_NO_JSON = ModelCapabilities(listed=True, json_output=False, strict_tools=False,
                                          thinking_types=frozenset({"adaptive"}))


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


def test_with_the_anthropic_provider_a_model_without_structured_outputs_gets_a_forced_tool(replay):
    provider, api = replay("forced_tool_review", model="claude-3-5-haiku-20241022", models="models_list_current")

    result = structured_call(provider, DRAFT, system="You review answers.", tool=REVIEW, max_tokens=800)

    assert result["valid"] is False and result["confidence"] == 0.82
    assert result["issues"][0]["type"] == "unsupported_claim"
    body = api.bodies[0]
    assert body["tool_choice"] == {"type": "tool", "name": "submit_review"}
    assert body["tools"] == [REVIEW.to_dict()]  # the Models API says: no strict tools for this model
    assert "output_config" not in body and "thinking" not in body  # no structured outputs, no thinking
    assert body["system"] == "You review answers." and body["max_tokens"] == 800


def test_structured_outputs_send_the_schema_and_read_the_text():
    provider = ScriptedProvider(['{"valid": true, "issues": [], "confidence": 0.9}'], capabilities=JSON_OUTPUT)

    result = structured_call(provider, DRAFT, system="You review answers.", tool=REVIEW, max_tokens=800)

    assert result == GOOD
    call = provider.calls[0]
    assert call["output_format"] == REVIEW.input_schema
    assert call["tools"] == [] and call["tool_choice"] is None
    assert call["system"] == "You review answers." and call["max_tokens"] == 800


@pytest.mark.parametrize("text, problem", [
    ("", "sent no JSON"),
    ("The draft looks fine.", "not JSON"),
    ('[{"valid": true}]', "JSON list"),
    ('{"valid": "yes", "issues": [], "confidence": 0.9}', "valid: 'yes' is not of type 'boolean'"),
])
def test_structured_output_that_is_not_the_asked_object_is_an_error(text, problem):
    provider = ScriptedProvider([text], capabilities=JSON_OUTPUT)

    with pytest.raises(StructuredOutputError, match=problem):
        structured_call(provider, DRAFT, tool=REVIEW)


def test_a_model_that_always_thinks_and_has_no_structured_outputs_is_offered_the_tool_unforced():
    provider = ScriptedProvider([{"text": "Checking.", "tool_use": {"name": "submit_review", "input": GOOD}},
                                 "The draft is fine."], capabilities=ALWAYS_THINKS_NO_JSON)

    assert structured_call(provider, DRAFT, tool=REVIEW) == GOOD
    assert provider.calls[0]["tool_choice"] == {"type": "auto"}
    assert "strict" not in provider.calls[0]["tools"][0]
    with pytest.raises(StructuredOutputError, match="chose not to call it"):
        structured_call(provider, DRAFT, tool=REVIEW)


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

    with pytest.raises(OutputCutOffError, match="max_tokens=50.*Raise max_tokens") as caught:
        structured_call(provider, DRAFT, tool=REVIEW, max_tokens=50)
    assert isinstance(caught.value, UnusableReplyError) and isinstance(caught.value, ProviderError)


def test_structured_output_cut_off_mid_object_is_an_error_not_a_parse_failure():
    cut = ChatResponse((TextBlock('{"valid": true, "issues": [], "confidence": 0.9'),), "max_tokens")

    with pytest.raises(OutputCutOffError, match="cut off at max_tokens=300"):
        structured_call(ScriptedProvider([cut], capabilities=JSON_OUTPUT), DRAFT, tool=REVIEW, max_tokens=300)


@pytest.mark.parametrize("capabilities", [None, JSON_OUTPUT], ids=["forced-tool", "json-output"])
def test_a_refusal_is_an_error_even_when_the_reply_looks_complete(capabilities):
    complete = ToolUseBlock("t1", "submit_review", GOOD) if capabilities is None else TextBlock(
        '{"valid": true, "issues": [], "confidence": 0.9}')
    refused = ChatResponse((complete,), "refusal", refusal=Refusal("cyber", "Declined by the classifiers."))

    with pytest.raises(ModelRefusalError, match="declined while filling 'submit_review'.*cyber") as caught:
        structured_call(ScriptedProvider([refused], capabilities=capabilities), DRAFT, tool=REVIEW)
    assert caught.value.category == "cyber"


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
