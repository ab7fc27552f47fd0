"""A two-turn agent run on Claude Sonnet 5.5 against recorded responses: thinking blocks go back unchanged.

Claude Sonnet 5.5 and Opus 5.5 return ``thinking`` blocks with a tool call; the next request must
carry the assistant turn exactly as it came (thinking text and signature) or the API answers 400.
:class:`ThinkingAPI` answers like that: it refuses a second turn whose assistant message lost or
changed a thinking block, and otherwise serves the recorded final turn.
"""

from __future__ import annotations

import json
from typing import Any

import httpx2
import pytest

from engine.llm.anthropic_provider import AnthropicProvider
from engine.llm.models import ModelResolver
from tests.agent.fakes import make_runtime
from tests.llm.conftest import load_recording, mock_client, serve

pytestmark = pytest.mark.unit

FIRST = load_recording("agent_search_turn_sonnet_5_5")[0]
FINAL = load_recording("agent_final_turn_sonnet_5_5")[0]


class ThinkingAPI:
    """The Messages API as Sonnet 5.5 answers a tool-use conversation; the Models API from ``models_list_current``."""

    def __init__(self) -> None:
        self.bodies: list[dict[str, Any]] = []
        self.listing = load_recording("models_list_current")[0]

    def __call__(self, request: httpx2.Request) -> httpx2.Response:
        if request.url.path.startswith("/v1/models"):
            return serve(self.listing, request)
        body = json.loads(request.content)
        self.bodies.append(body)
        if len(self.bodies) == 1:
            return serve(FIRST, request)
        sent = next(m for m in body["messages"] if m["role"] == "assistant")["content"]
        if sent[0] != FIRST["body"]["content"][0]:
            error = {"type": "invalid_request_error", "message": "messages.1.content.0: thinking blocks in the "
                     "latest assistant message cannot be modified; they must remain as they were in the original "
                     "response"}
            return httpx2.Response(400, json={"type": "error", "error": error})
        return serve(FINAL, request)


@pytest.fixture
def sonnet():
    api = ThinkingAPI()
    client = mock_client(api)
    yield AnthropicProvider("claude-sonnet-5-5", client=client, models=ModelResolver()), api
    client.close()


def test_a_second_turn_sends_the_thinking_block_back_unchanged(tmp_path, sonnet):
    provider, api = sonnet
    runtime, store = make_runtime(tmp_path, provider)

    run = runtime.start("What is the brake wear limit in manuals?", "ana", "analyst")

    assert run.status == "completed", run.final_text
    assert "wear pin is flush" in run.final_text
    assert len(api.bodies) == 2 and store.searches[0]["query"] == "brake wear pin"
    assistant = api.bodies[1]["messages"][1]
    assert assistant["role"] == "assistant"
    assert assistant["content"] == FIRST["body"]["content"]  # thinking (text and signature) and the call, as sent
    results = api.bodies[1]["messages"][2]["content"]
    assert [r["tool_use_id"] for r in results] == ["toolu_01Xr8Fa4Su0Zv6Jp2Qb5Te9G"]
    assert all(body["thinking"] == {"type": "between_tools"} for body in api.bodies)


def test_a_turn_rebuilt_without_its_thinking_block_is_what_the_api_refuses(tmp_path, sonnet):
    """The check above is not vacuous: the same conversation with the thinking block dropped gets the 400."""
    provider, api = sonnet
    first = provider.chat([{"role": "user", "content": "What is the brake wear limit in manuals?"}])
    rebuilt = {"role": "assistant", "content": [b.to_dict() for b in first.content]}  # the old _message's shape
    results = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": first.tool_uses[0].id,
                                            "content": "Replace the brake when the pin is flush."}]}

    with pytest.raises(Exception, match="thinking blocks"):
        provider.chat([{"role": "user", "content": "What is the brake wear limit in manuals?"}, rebuilt, results])
