"""ScriptedProvider: replay order, reply shapes, call recording, empty-queue error."""

from __future__ import annotations

import threading

import pytest

from engine.errors import ProviderError
from engine.llm.base import ChatResponse, Provider, TextBlock, ToolSpec, ToolUseBlock, Usage
from engine.llm.scripted import ScriptedProvider

pytestmark = pytest.mark.unit

HELLO = [{"role": "user", "content": "hello"}]
TOOL = ToolSpec("lookup", "Look a term up.", {"type": "object", "properties": {"term": {"type": "string"}}})


def test_replies_come_back_in_order_and_strings_are_end_turn_text():
    provider = ScriptedProvider(["first", "second"])

    first, second = provider.chat(HELLO), provider.chat(HELLO)

    assert (first.text, second.text) == ("first", "second")
    assert first.stop_reason == "end_turn" and first.content == (TextBlock("first"),)
    assert provider.pending == 0
    assert isinstance(provider, Provider) and provider.name == "scripted"


def test_tool_use_dict_becomes_a_tool_use_reply_with_stable_ids():
    provider = ScriptedProvider([{"tool_use": {"name": "lookup", "input": {"term": "RRF"}}}])

    response = provider.chat(HELLO, tools=[TOOL])

    assert response.stop_reason == "tool_use"
    assert response.tool_uses == [ToolUseBlock("toolu_scripted_001", "lookup", {"term": "RRF"})]


def test_a_list_of_tool_use_dicts_is_one_reply_with_parallel_calls():
    parallel = [
        {"tool_use": {"name": "lookup", "input": {"term": "a"}, "id": "t-a"}},
        {"tool_use": {"name": "lookup", "input": {"term": "b"}}},
    ]
    provider = ScriptedProvider([parallel])

    response = provider.chat(HELLO)

    assert [(b.id, b.input["term"]) for b in response.tool_uses] == [("t-a", "a"), ("toolu_scripted_001", "b")]
    assert provider.pending == 0


def test_text_before_tool_use_in_one_dict():
    provider = ScriptedProvider([{"text": "Let me check.", "tool_use": [{"name": "lookup", "input": {}}]}])

    response = provider.chat(HELLO)

    assert response.text == "Let me check."
    assert [b.type for b in response.content] == ["text", "tool_use"]


def test_chat_response_is_returned_as_is():
    canned = ChatResponse((TextBlock("cut"),), "max_tokens", Usage(10, 5), "m")
    assert ScriptedProvider([canned]).chat(HELLO) is canned


def test_callable_gets_messages_and_request_kwargs():
    seen = {}

    def reply(messages, kwargs):
        seen.update(messages=messages, kwargs=kwargs)
        return f"you said {messages[-1]['content']}"

    provider = ScriptedProvider([reply])

    response = provider.chat(HELLO, system="be brief", tools=[TOOL], tool_choice={"type": "auto"}, model="x")

    assert response.text == "you said hello"
    assert seen["messages"] == HELLO
    assert seen["kwargs"] == {
        "system": "be brief",
        "tools": [TOOL.to_dict()],
        "tool_choice": {"type": "auto"},
        "max_tokens": 1024,
        "model": "x",
        "output_format": None,
    }


def test_every_call_is_recorded_as_a_deep_copy():
    provider = ScriptedProvider().enqueue("a", "b")
    messages = [{"role": "user", "content": [{"type": "text", "text": "q"}]}]

    provider.chat(messages, system="s", tools=[TOOL], tool_choice={"type": "tool", "name": "lookup"}, max_tokens=64)
    messages[0]["content"][0]["text"] = "changed later"
    provider.chat(messages)

    assert provider.calls[0] == {
        "messages": [{"role": "user", "content": [{"type": "text", "text": "q"}]}],
        "system": "s",
        "tools": [TOOL.to_dict()],
        "tool_choice": {"type": "tool", "name": "lookup"},
        "max_tokens": 64,
        "model": None,
        "output_format": None,
    }
    assert provider.calls[1]["messages"][0]["content"][0]["text"] == "changed later"
    assert provider.calls[1]["tools"] == [] and provider.calls[1]["system"] is None


def test_empty_queue_raises_a_clear_provider_error():
    provider = ScriptedProvider(["only one"])
    provider.chat(HELLO)

    with pytest.raises(ProviderError, match="ScriptedProvider has no response queued for call 2"):
        provider.chat(HELLO)
    assert len(provider.calls) == 2


@pytest.mark.parametrize(
    "bad",
    [42, {"tool_use": {"input": {}}}, {"tool_use": {"name": "x", "input": "not a dict"}}, {"txt": "typo"}, [], ["a"]],
)
def test_bad_scripted_replies_fail_when_queued(bad):
    with pytest.raises(ValueError):
        ScriptedProvider([bad])


def test_queued_tool_input_is_not_shared_with_the_reply():
    script = {"tool_use": {"name": "lookup", "input": {"term": "x"}}}
    provider = ScriptedProvider([script, script])

    provider.chat(HELLO).tool_uses[0].input["term"] = "mutated"

    assert provider.chat(HELLO).tool_uses[0].input == {"term": "x"}


def test_parallel_calls_each_get_one_reply():
    provider = ScriptedProvider([str(i) for i in range(20)])
    answers: list[str] = []

    threads = [threading.Thread(target=lambda: answers.append(provider.chat(HELLO).text)) for _ in range(20)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert sorted(answers, key=int) == [str(i) for i in range(20)]
    assert len(provider.calls) == 20
