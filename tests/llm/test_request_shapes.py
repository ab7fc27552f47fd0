"""The requests the Anthropic provider sends to each model line, against recorded responses.

Claude Sonnet 5.5 and Opus 5.5 answer 400 to five request shapes: a forced tool choice, sampling
parameters, an assistant prefill, a thinking budget and ``thinking: {"type": "disabled"}``.
:class:`DocumentedModel` answers like them (the recorded 400 for a forced tool, and a refusal of
the other four) and otherwise serves a recorded reply, so a request shape they refuse cannot pass.
What each model accepts comes from the recorded Models API list (``models_list_current``).
"""

from __future__ import annotations

import json
import re
from typing import Any

import httpx2
import pytest

from engine.llm.base import ToolSpec
from engine.llm.capabilities import CURRENT_CLAUDE, ModelCapabilities
from engine.llm.errors import ModelRefusalError, OutputCutOffError, ProviderRequestError
from engine.llm.models import ModelResolver
from engine.llm.structured import structured_call
from engine.reflection import LLMGenerator, LLMReviewer, REVIEW_SCHEMA, ReflectionLoop
from engine.reflection.schema import REVIEW_TOOL
from tests.llm.conftest import load_recording, serve
from tests.reflection.builders import AMM_REV12, intent

pytestmark = pytest.mark.unit

QUESTION = "What torque for the A320 axle nut?"
WRONG = "Torque the axle nut to 250 lbf.ft [1]."
EVIDENCE = (AMM_REV12,)
SEARCH = ToolSpec("search_knowledge_base", "Search one knowledge base.", {
    "type": "object", "properties": {"query": {"type": "string"}, "knowledge_base": {"type": "string"},
                                     "top_k": {"type": "integer"}}, "required": ["query"]})
SAMPLING = ("temperature", "top_p", "top_k")
REFUSING_LINE = ("claude-sonnet-5-5", "claude-opus-5-5")  # Anthropic: forced tools, disabled thinking -> 400


class DocumentedModel:
    """A Messages API that refuses what Anthropic documents each model as refusing, else serves ``replies``.

    On Sonnet 5.5 and Opus 5.5: a forced tool choice gets the recorded 400 (``forced_tool_400``);
    sampling parameters, a prefill, a thinking budget or ``disabled`` get a 400 naming them. On every
    model: a thinking budget, or output_config / strict tools on a model without structured outputs.
    The Models API is served from ``models_list_current``.
    """

    def __init__(self, replies: list[dict[str, Any]]) -> None:
        self.replies = replies
        self.requests: list[httpx2.Request] = []
        self.listing = load_recording("models_list_current")[0]
        self.known = {m["id"]: m["capabilities"] for m in self.listing["body"]["data"]}

    def __call__(self, request: httpx2.Request) -> httpx2.Response:
        if request.url.path.startswith("/v1/models"):
            return serve(self.listing, request)
        self.requests.append(request)
        problem = self.refusal(json.loads(request.content))
        if problem == "forced tool":
            return serve(load_recording("forced_tool_400")[0], request)
        if problem:
            error = {"type": "invalid_request_error", "message": problem}
            return httpx2.Response(400, json={"type": "error", "error": error})
        return serve(self.replies[min(len(self.requests), len(self.replies)) - 1], request)

    @property
    def bodies(self) -> list[dict[str, Any]]:
        return [json.loads(r.content) for r in self.requests]

    def refusal(self, body: dict[str, Any]) -> str:
        model = body["model"]
        capabilities = next((c for listed, c in self.known.items()
                             if listed == model or re.fullmatch(re.escape(model) + r"-\d{8}", listed)), {})
        thinking = body.get("thinking") or {}
        if thinking.get("type") == "enabled" or "budget_tokens" in thinking:
            return "thinking.type.enabled is not supported for this model; use adaptive thinking"
        if capabilities and not capabilities["structured_outputs"]["supported"]:
            if "output_config" in body or any(t.get("strict") for t in body.get("tools", [])):
                return "output_config.format: structured outputs are not supported for this model"
        if model in REFUSING_LINE:
            if (body.get("tool_choice") or {}).get("type") in ("tool", "any"):
                return "forced tool"
            if any(name in body for name in SAMPLING):
                return f"{[n for n in SAMPLING if n in body][0]} is deprecated for this model"
            if body["messages"][-1]["role"] == "assistant":
                return "Prefilling assistant messages is not supported for this model."
            if thinking.get("type") == "disabled":
                return "thinking.type.disabled is not supported for this model; use between_tools or adaptive"
        return ""


@pytest.fixture
def documented():
    """``documented(*recordings)`` -> (client, api): a DocumentedModel serving those recordings in order."""
    import anthropic

    clients = []

    def make(*names: str):
        api = DocumentedModel([r for name in names for r in load_recording(name)])
        clients.append(anthropic.Anthropic(api_key="test-key", max_retries=0,
                                           http_client=httpx2.Client(transport=httpx2.MockTransport(api))))
        return clients[-1], api

    yield make
    for client in clients:
        client.close()


def provider_on(client, model: str | None = None, **options):
    from engine.llm.anthropic_provider import AnthropicProvider

    return AnthropicProvider(model, client=client, models=ModelResolver(), **options)


def forbidden_shapes(body: dict[str, Any]) -> list[str]:
    """The five shapes Sonnet 5.5 and Opus 5.5 refuse, as found in ``body``."""
    found = [name for name in SAMPLING if name in body]
    if (body.get("tool_choice") or {}).get("type") in ("tool", "any"):
        found.append("forced tool_choice")
    if body["messages"][-1]["role"] == "assistant":
        found.append("prefill")
    thinking = body.get("thinking") or {}
    if thinking.get("type") in ("enabled", "disabled") or "budget_tokens" in thinking:
        found.append(f"thinking {thinking.get('type')}")
    return found


# --- the documented 400 ------------------------------------------------------------------------

def test_a_forced_tool_on_sonnet_5_5_gets_the_documented_400_and_says_what_to_do(replay):
    provider, api = replay("forced_tool_400", model="claude-sonnet-5-5", models="models_list_current")

    with pytest.raises(ProviderRequestError) as caught:
        provider.chat([{"role": "user", "content": "Review this."}], tools=[REVIEW_TOOL],
                      tool_choice={"type": "tool", "name": "submit_review"})

    error = caught.value
    assert error.status_code == 400 and error.request_id == "req_011CXa8Fq5Rt7Uv9Wx2Yz4Ab"
    assert "forced tool use" in str(error) and "invalid_request_error" in str(error)
    assert "claude-sonnet-5-5 does not take a forced tool_choice" in str(error)
    assert api.calls == 1  # a 400 is not retried


@pytest.mark.parametrize("model", REFUSING_LINE)
def test_the_review_on_a_5_5_model_is_not_refused(documented, model):
    client, api = documented(f"json_review_{model.removeprefix('claude-').replace('-', '_')}")
    reviewer = LLMReviewer(provider_on(client), model)

    review = reviewer.review(QUESTION, EVIDENCE, WRONG)

    assert not any(issue.type == "format" for issue in review.issues), review.issues
    assert review.valid is False and review.issues[0].type == "fact"
    assert [(c.original, c.corrected) for c in review.corrections] == [("250 lbf.ft", "150 lbf.ft")]
    assert len(api.requests) == 1 and forbidden_shapes(api.bodies[0]) == []


# --- the request shape per model line ------------------------------------------------------------

LINES = [
    # model, recording, how the review is asked for, thinking sent
    ("claude-sonnet-5-5", "json_review_sonnet_5_5", "json_output", {"type": "between_tools"}),
    ("claude-opus-5-5", "json_review_opus_5_5", "json_output", None),
    ("claude-haiku-5-5", "json_review_haiku_5_5", "json_output", {"type": "disabled"}),
    ("claude-sonnet-4-5", "json_review_sonnet_5_5", "json_output", {"type": "disabled"}),
    ("claude-3-5-haiku-20241022", "tool_review_haiku_3_5", "forced_tool", None),
]


@pytest.mark.parametrize("model, recording, mode, thinking", LINES, ids=[line[0] for line in LINES])
def test_each_model_line_gets_the_review_request_it_accepts(documented, model, recording, mode, thinking):
    client, api = documented(recording)
    provider = provider_on(client, model)

    review = LLMReviewer(provider, model, max_tokens=1500).review(QUESTION, EVIDENCE, WRONG)

    assert provider.capabilities(model).listed and provider.capabilities(model).structured_mode == mode
    assert review.valid is False and [i.type for i in review.issues] == ["fact"]
    body = api.bodies[0]
    assert body["model"] == model and body["max_tokens"] == 1500
    assert body.get("thinking") == thinking
    assert not any(name in body for name in SAMPLING)
    assert body["messages"][-1]["role"] == "user"
    if mode == "json_output":
        assert set(body) <= {"model", "max_tokens", "messages", "system", "output_config", "thinking"}
        assert body["output_config"]["format"]["type"] == "json_schema"
        schema = body["output_config"]["format"]["schema"]
        assert schema["required"] == REVIEW_SCHEMA["required"] and schema["additionalProperties"] is False
        assert "minimum" not in schema["properties"]["confidence"]  # moved into the description for the API
    else:
        assert body["tool_choice"] == {"type": "tool", "name": "submit_review"}
        assert "strict" not in body["tools"][0] and "output_config" not in body
    if model in REFUSING_LINE:
        assert forbidden_shapes(body) == []


@pytest.mark.parametrize("model, thinking", [(line[0], line[3]) for line in LINES], ids=[line[0] for line in LINES])
def test_each_model_line_gets_a_draft_and_an_agent_turn_it_accepts(documented, model, thinking):
    client, api = documented("draft_sonnet_5_5", "agent_turn_sonnet_5_5")
    provider = provider_on(client, model)

    LLMGenerator(provider, model).draft(QUESTION, EVIDENCE, intent(QUESTION))
    provider.chat([{"role": "user", "content": "Find the axle nut torque."}], tools=[SEARCH], max_tokens=900)

    draft, agent = api.bodies
    assert set(draft) <= {"model", "max_tokens", "messages", "system", "thinking", "stream"}
    assert draft["stream"] is True  # drafts stream to the reader
    assert set(agent) <= {"model", "max_tokens", "messages", "system", "thinking", "tools"}
    assert draft.get("thinking") == agent.get("thinking") == thinking
    if model in REFUSING_LINE:
        assert forbidden_shapes(draft) == forbidden_shapes(agent) == []


def test_the_newest_models_are_chosen_and_a_whole_loop_runs_on_them(documented):
    client, api = documented("draft_sonnet_5_5", "json_review_haiku_5_5")
    provider = provider_on(client)

    loop = ReflectionLoop(LLMGenerator(provider, provider.resolve_model("generator")),
                          LLMReviewer(provider, provider.resolve_model("reviewer")), max_rounds=0)
    result = loop.run(QUESTION, EVIDENCE, intent(QUESTION))

    assert (loop.generator.model, loop.reviewer.model) == ("claude-sonnet-5-5", "claude-haiku-5-5")
    assert [body["model"] for body in api.bodies] == ["claude-sonnet-5-5", "claude-haiku-5-5"]
    assert [body.get("thinking") for body in api.bodies] == [{"type": "between_tools"}, {"type": "disabled"}]
    assert "output_config" in api.bodies[1] and "tool_choice" not in api.bodies[1]
    assert result.reviews[0].issues[0].type == "fact"  # read, not a format failure


def test_up_front_thinking_can_be_left_to_the_model(documented):
    client, api = documented("json_review_sonnet_5_5")

    LLMReviewer(provider_on(client, up_front_thinking=True), "claude-sonnet-5-5").review(QUESTION, EVIDENCE, WRONG)

    assert "thinking" not in api.bodies[0]


def test_without_the_model_list_structured_outputs_are_used_and_no_thinking_is_sent(replay):
    provider, api = replay("json_review_sonnet_5_5", model="claude-sonnet-5-5")  # the list 404s

    review = LLMReviewer(provider, "claude-sonnet-5-5").review(QUESTION, EVIDENCE, WRONG)

    assert provider.capabilities() == CURRENT_CLAUDE
    assert review.issues[0].type == "fact"
    assert "output_config" in api.bodies[0] and "thinking" not in api.bodies[0] and "tools" not in api.bodies[0]


def test_an_alias_the_list_does_not_show_is_described_by_id(routed):
    opus = next(m for m in load_recording("models_list_current")[0]["body"]["data"] if m["id"] == "claude-opus-5-5")
    client, api = routed({"/v1/models": "models_list_current",
                          "/v1/models/claude-opus-latest": [{"status": 200, "body": opus}]})
    provider = provider_on(client, "claude-opus-latest")

    assert provider.capabilities().thinking_types == {"adaptive"}
    assert provider.capabilities() == provider.capabilities("claude-opus-latest")
    assert api.calls("/v1/models/claude-opus-latest") == 1  # asked once, then remembered


# --- thinking blocks, prefill, refusals and cut-offs ---------------------------------------------

def test_thinking_blocks_are_not_text_and_go_back_unchanged(documented):
    client, api = documented("agent_turn_sonnet_5_5", "draft_sonnet_5_5")
    provider = provider_on(client, "claude-sonnet-5-5")
    question = [{"role": "user", "content": "Find the axle nut torque."}]

    turn = provider.chat(question, tools=[SEARCH])

    assert turn.text == "" and [use.name for use in turn.tool_uses] == ["search_knowledge_base"]
    recorded = load_recording("agent_turn_sonnet_5_5")[0]["body"]["content"]
    assert turn.to_message() == {"role": "assistant", "content": recorded}
    result = {"type": "tool_result", "tool_use_id": turn.tool_uses[0].id, "content": "[1] 150 lbf.ft"}
    provider.chat([*question, turn.to_message(), {"role": "user", "content": [result]}], tools=[SEARCH])
    assert api.bodies[1]["messages"][1]["content"] == recorded  # signature and all, as received


def test_the_opus_review_is_read_from_its_text_block_not_its_thinking(replay):
    provider, _ = replay("json_review_opus_5_5", model="claude-opus-5-5", models="models_list_current")

    payload = structured_call(provider, [{"role": "user", "content": "Review."}], tool=REVIEW_TOOL)

    assert payload["confidence"] == 0.93
    response = provider.chat([{"role": "user", "content": "Review."}])
    assert "fact issue with a direct substitution" not in response.text


def test_a_prefill_is_refused_before_sending(replay):
    provider, api = replay("text_end_turn", model="claude-sonnet-5-5", models="models_list_current")

    with pytest.raises(ProviderRequestError, match="ends with an assistant turn \\(prefill\\)"):
        provider.chat([{"role": "user", "content": "Answer in JSON."}, {"role": "assistant", "content": "{"}])
    assert api.calls == 0


def test_a_refused_review_raises_and_the_reviewer_fails_the_answer(replay):
    provider, _ = replay("review_refusal", model="claude-sonnet-5-5", models="models_list_current")

    with pytest.raises(ModelRefusalError, match="declined while filling 'submit_review'.*general_harms") as caught:
        structured_call(provider, [{"role": "user", "content": "Review."}], tool=REVIEW_TOOL)
    assert caught.value.category == "general_harms"

    review = LLMReviewer(provider, "claude-sonnet-5-5").review(QUESTION, EVIDENCE, "Torque it to 150 lbf.ft [1].")
    assert review.valid is False and [i.type for i in review.issues] == ["format"]
    assert "declined" in review.issues[0].description and "general_harms" in review.issues[0].description


def test_a_review_cut_off_at_max_tokens_fails_the_answer(replay):
    provider, _ = replay([*load_recording("draft_sonnet_5_5"), *load_recording("review_max_tokens")],
                         model="claude-haiku-5-5", models="models_list_current")
    loop = ReflectionLoop(LLMGenerator(provider, "claude-sonnet-5-5"),
                          LLMReviewer(provider, "claude-haiku-5-5", max_tokens=256), max_rounds=0)

    result = loop.run(QUESTION, EVIDENCE, intent(QUESTION))

    assert result.status == "refused" and result.final != "Torque the axle nut to 150 lbf.ft [1]."
    issue = result.reviews[0].issues[0]
    assert issue.type == "format" and "cut off at max_tokens=256" in issue.description
    assert "Raise max_tokens" in result.refusal_reason
    with pytest.raises(OutputCutOffError):
        structured_call(provider, [{"role": "user", "content": "Review."}], tool=REVIEW_TOOL, max_tokens=256)


def test_capabilities_read_from_the_api_and_what_they_choose():
    assert ModelCapabilities.from_api(None) is None
    always = ModelCapabilities(listed=True, json_output=False, strict_tools=False,
                               thinking_types=frozenset({"adaptive"}))
    assert always.always_thinks and not always.forced_tool_choice and always.structured_mode == "tool"
    assert always.least_thinking() is None
    assert ModelCapabilities(listed=True).structured_mode == "forced_tool"  # no thinking, no structured outputs
    assert ModelCapabilities(listed=False, thinking_types=frozenset({"disabled"})).least_thinking() is None
