"""AnthropicProvider against recorded Messages API responses."""

from __future__ import annotations

import anthropic
import httpx2
import pytest

from engine.errors import ConfigError, EngineError, MissingKeyError, ProviderError
from engine.llm.anthropic_provider import AnthropicProvider
from engine.llm.base import ChatResponse, Provider, TextBlock, ToolSpec, ToolUseBlock, Usage
from engine.llm.errors import (
    InvalidKeyError,
    ProviderConnectionError,
    ProviderRequestError,
    ProviderServerError,
    ProviderTimeoutError,
    RateLimitedError,
)

pytestmark = pytest.mark.unit

QUESTION = [{"role": "user", "content": "How much did revenue grow in Q3 2024?"}]
SEARCH = ToolSpec(
    name="search_knowledge_base",
    description="Search one knowledge base.",
    input_schema={
        "type": "object",
        "properties": {"query": {"type": "string"}, "knowledge_base": {"type": "string"}, "top_k": {"type": "integer"}},
        "required": ["query"],
    },
)


def test_text_reply_maps_blocks_stop_reason_usage_and_model(replay):
    provider, api = replay("text_end_turn")

    response = provider.chat(QUESTION, system="Answer with [n] citations.", max_tokens=512)

    assert response == ChatResponse(
        content=(
            TextBlock("Revenue grew 12% year over year in Q3 2024 [1], driven mainly by the services segment [2]."),
        ),
        stop_reason="end_turn",
        usage=Usage(input_tokens=1184, output_tokens=31),
        model="claude-sonnet-4-5-20250929",
    )
    assert api.calls == 1
    assert api.bodies[0] == {
        "model": "claude-sonnet-4-5",
        "max_tokens": 512,
        "messages": QUESTION,
        "system": "Answer with [n] citations.",
    }
    assert api.requests[0].headers["authorization"] == "Bearer test-key"  # how SDK 2.x sends an api_key
    assert api.requests[0].url.path == "/v1/messages"


def test_tool_use_reply_and_the_tools_sent(replay):
    provider, api = replay("tool_use")

    response = provider.chat(QUESTION, tools=[SEARCH], tool_choice={"type": "auto"})

    assert response.stop_reason == "tool_use"
    assert response.text == "I'll search the finance knowledge base for the Q3 figures."
    assert response.tool_uses == [
        ToolUseBlock(
            id="toolu_01D7FLrfh4GYq7yT1ULFeyMV",
            name="search_knowledge_base",
            input={"query": "Q3 2024 revenue growth", "knowledge_base": "finance", "top_k": 5},
        )
    ]
    body = api.bodies[0]
    assert body["tools"] == [SEARCH.to_dict()]
    assert "strict" not in body["tools"][0]
    assert body["tool_choice"] == {"type": "auto"}
    assert body["max_tokens"] == 1024
    assert "system" not in body


def test_conversation_with_tool_results_is_sent_as_plain_blocks(replay):
    provider, api = replay("text_end_turn")
    first = ChatResponse(
        content=(TextBlock("Searching."), ToolUseBlock("toolu_1", "search_knowledge_base", {"query": "q3"})),
        stop_reason="tool_use",
    )
    messages = [
        *QUESTION,
        {"role": "assistant", "content": list(first.content)},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "[1] Revenue +12%"}]},
    ]

    provider.chat(messages, tools=[SEARCH])

    assert api.bodies[0]["messages"][1] == first.to_message()
    assert api.bodies[0]["messages"][2] == messages[2]


def test_model_can_be_chosen_per_call(replay):
    provider, api = replay("text_end_turn", model="claude-haiku-4-5")

    provider.chat(QUESTION, model="claude-opus-4-1")

    assert provider.name == "anthropic:claude-haiku-4-5"
    assert api.bodies[0]["model"] == "claude-opus-4-1"


def test_strict_tool_is_sent_with_a_closed_schema(replay):
    provider, api = replay("tool_use")

    provider.chat(QUESTION, tools=[ToolSpec(SEARCH.name, SEARCH.description, SEARCH.input_schema, strict=True)])

    tool = api.bodies[0]["tools"][0]
    assert tool["strict"] is True
    assert tool["input_schema"]["additionalProperties"] is False
    assert tool["input_schema"]["required"] == ["query"]
    assert set(tool["input_schema"]["properties"]) == {"query", "knowledge_base", "top_k"}


def test_strict_tool_with_an_untyped_property_fails_before_sending(replay):
    provider, api = replay("tool_use")
    loose = ToolSpec("t", "d", {"type": "object", "properties": {"anything": {}}}, strict=True)

    with pytest.raises(ProviderRequestError, match="strict=False"):
        provider.chat(QUESTION, tools=[loose])
    assert api.calls == 0


def test_sdk_retries_a_429_then_returns_the_answer(replay):
    provider, api = replay("rate_limit_then_ok", max_retries=2)

    response = provider.chat(QUESTION)

    assert response.text == "The policy was last updated in March 2025 [1]."
    assert api.calls == 2
    assert [r.headers["x-stainless-retry-count"] for r in api.requests] == ["0", "1"]


def test_rate_limit_after_retries_says_retry_later(replay):
    provider, api = replay("rate_limit_429", max_retries=2)

    with pytest.raises(RateLimitedError) as caught:
        provider.chat(QUESTION)

    assert api.calls == 3
    error = caught.value
    assert "rate limiting" in str(error) and "after 2 retries" in str(error) and "Retry later" in str(error)
    assert "30,000 input tokens per minute" in str(error)
    assert error.status_code == 429 and error.retryable
    assert error.request_id == "req_011CWZCe8wTp6Mz2gBw1Oa5S"


def test_overloaded_after_retries_says_retry_later(replay):
    provider, api = replay("overloaded_529", max_retries=2)

    with pytest.raises(RateLimitedError, match="overloaded.*Retry later") as caught:
        provider.chat(QUESTION)

    assert api.calls == 3
    assert caught.value.status_code == 529


def test_invalid_key_is_not_retried_and_names_the_variable(replay):
    provider, api = replay("authentication_error_401", max_retries=2)

    with pytest.raises(InvalidKeyError, match="ANTHROPIC_API_KEY") as caught:
        provider.chat(QUESTION)

    assert api.calls == 1
    assert "invalid x-api-key" in str(caught.value)
    assert "test-key" not in str(caught.value)
    assert isinstance(caught.value, ProviderError) and not caught.value.retryable


def test_bad_request_carries_the_api_message(replay):
    provider, api = replay("invalid_request_400", max_retries=2)

    with pytest.raises(ProviderRequestError) as caught:
        provider.chat(QUESTION, max_tokens=200_000)

    assert api.calls == 1
    message = str(caught.value)
    assert "max_tokens: 200000 > 64000" in message
    assert "invalid_request_error" in message and "Fix the request" in message
    assert caught.value.status_code == 400


def test_sdk_refusal_before_sending_says_what_to_do(replay):
    provider, api = replay("text_end_turn", timeout=anthropic.NOT_GIVEN)  # the SDK's default timeout

    with pytest.raises(ProviderRequestError, match="Lower max_tokens"):
        provider.chat(QUESTION, max_tokens=200_000)
    assert api.calls == 0


def test_unknown_model_names_the_model(replay):
    provider, api = replay("not_found_404", model="claude-sonnet-9")  # the model list 404s too: no ids known

    with pytest.raises(ProviderRequestError, match="'claude-sonnet-9' is not available.*models overview"):
        provider.chat(QUESTION)
    assert [r.url.path for r in api.requests] == ["/v1/messages"]
    assert [r.url.path for r in api.model_requests] == ["/v1/models"]  # asked once, for capabilities; remembered


def test_timeout_maps_to_provider_timeout(replay):
    provider, api = replay([{"raise": "ReadTimeout", "message": "timed out"}], max_retries=0)

    with pytest.raises(ProviderTimeoutError, match="did not answer.*raise the timeout"):
        provider.chat(QUESTION)
    assert api.calls == 1


def test_connection_failure_maps_to_provider_connection_error(replay):
    provider, api = replay([{"raise": "ConnectError", "message": "Name or service not known"}], max_retries=1)

    with pytest.raises(ProviderConnectionError, match="Could not reach the Anthropic API.*network"):
        provider.chat(QUESTION)
    assert api.calls == 2  # the SDK retried once


def test_missing_key_says_what_to_do():
    with pytest.raises(MissingKeyError) as caught:
        AnthropicProvider()
    assert str(caught.value) == "ANTHROPIC_API_KEY is not set: set it, or choose the offline provider"


def test_blank_key_counts_as_missing(monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "  ")
    with pytest.raises(MissingKeyError):
        AnthropicProvider()


def test_key_from_the_environment_never_shows_in_repr(monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-api03-secret-value")

    provider = AnthropicProvider("claude-opus-4-1", timeout=30, max_retries=1)

    assert isinstance(provider, Provider)
    assert provider.name == "anthropic:claude-opus-4-1"
    assert "secret" not in repr(provider) and "secret" not in str(provider)
    assert repr(provider) == "AnthropicProvider(model='claude-opus-4-1', timeout=30, max_retries=1)"
    assert not any("secret" in repr(value) for value in vars(provider).values() if isinstance(value, str))


def test_a_real_call_fails_loudly_in_tests():
    provider = AnthropicProvider(api_key="sk-ant-test", max_retries=0)

    with pytest.raises(ProviderConnectionError, match="network access in tests"):
        provider.chat(QUESTION)


@pytest.mark.parametrize(
    "kwargs, problem",
    [({"model": " "}, "non-empty"), ({"timeout": 0}, "timeout"), ({"max_retries": -1}, "max_retries")],
)
def test_constructor_rejects_bad_settings(kwargs, problem):
    with pytest.raises(ConfigError, match=problem) as caught:
        AnthropicProvider(api_key="k", **kwargs)
    assert isinstance(caught.value, EngineError)


def test_an_injected_client_keeps_its_own_settings(replay):
    provider, _ = replay("text_end_turn", max_retries=4)
    assert provider.max_retries == 4
    assert isinstance(provider._client._client, httpx2.Client)


@pytest.mark.parametrize(
    "status, error_type, expected, hint",
    [
        (500, "api_error", ProviderServerError, "server error 500.*Retry later"),
        (403, "permission_error", InvalidKeyError, "Use a key with access"),
        (413, "request_too_large", ProviderRequestError, "fewer or shorter evidence chunks"),
        (402, "billing_error", InvalidKeyError, "Check billing"),
    ],
)
def test_other_statuses_map_to_errors_that_say_what_to_do(replay, status, error_type, expected, hint):
    body = {"type": "error", "error": {"type": error_type, "message": "recorded message"}}
    provider, _ = replay([{"status": status, "headers": {"retry-after-ms": "1"}, "body": body}], max_retries=1)

    with pytest.raises(expected, match=hint) as caught:
        provider.chat(QUESTION)
    assert f"{error_type}: recorded message" in str(caught.value)
    assert caught.value.status_code == status
