"""Model resolution: the newest Sonnet and Haiku from the Models API, the fallback, unknown ids."""

from __future__ import annotations

import threading

import pytest

from engine.config import Settings
from engine.errors import EngineError
from engine.llm.anthropic_provider import AnthropicProvider
from engine.llm.errors import ProviderRequestError, UnknownModelError
from engine.llm.models import FALLBACK_MODELS, ModelResolver
from engine.assemble import build_reflection

pytestmark = pytest.mark.unit

QUESTION = [{"role": "user", "content": "How much did revenue grow in Q3 2024?"}]
NEWEST_SONNET = "claude-sonnet-4-5-20250929"
NEWEST_HAIKU = "claude-haiku-4-5-20251001"


def anthropic_on(client, resolver: ModelResolver | None = None, model: str | None = None) -> AnthropicProvider:
    return AnthropicProvider(model, client=client, models=resolver or ModelResolver())


def test_newest_sonnet_drafts_and_newest_haiku_reviews(routed):
    client, api = routed({"/v1/models": "models_list"})
    provider = anthropic_on(client)

    loop = build_reflection("anthropic", provider=provider)

    assert provider.model == NEWEST_SONNET
    assert (loop.generator.model, loop.reviewer.model) == (NEWEST_SONNET, NEWEST_HAIKU)
    assert loop.provider_label("anthropic") == f"anthropic:{NEWEST_SONNET} / anthropic:{NEWEST_HAIKU}"
    assert api.calls("/v1/models") == 1  # listed once, then cached
    assert api.requests[0].url.params["limit"] == "1000"
    assert provider.available_models()[:2] == (NEWEST_HAIKU, NEWEST_SONNET)  # newest first


def test_the_list_is_fetched_once_across_threads(routed):
    client, api = routed({"/v1/models": "models_list"})
    resolver = ModelResolver()
    chosen: list[str] = []
    threads = [threading.Thread(target=lambda: chosen.append(resolver.resolve(client, "reviewer"))) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=10)

    assert chosen == [NEWEST_HAIKU] * 8
    assert api.calls("/v1/models") == 1


@pytest.mark.parametrize(
    "failure",
    [
        {"status": 401, "body": {"type": "error", "error": {"type": "authentication_error", "message": "bad key"}}},
        {"raise": "ConnectError", "message": "Name or service not known"},
    ],
    ids=["key-rejected", "no-network"],
)
def test_the_documented_ids_are_used_when_the_list_cannot_be_fetched(routed, failure):
    client, api = routed({"/v1/models": [failure]})
    resolver = ModelResolver()

    provider = anthropic_on(client, resolver)
    asked = api.calls("/v1/models")  # 1, or 2 when the SDK retried a dropped connection
    loop = build_reflection("anthropic", provider=provider)

    assert provider.model == FALLBACK_MODELS["generator"] == "claude-sonnet-5-5"
    assert loop.reviewer.model == FALLBACK_MODELS["reviewer"] == "claude-haiku-5-5"
    assert resolver.resolve(client, "generator", "claude-anything") == "claude-anything"  # cannot be checked
    assert provider.available_models() == ()
    assert 1 <= asked <= 2 and api.calls("/v1/models") == asked  # the failure is remembered, not asked again


def test_a_configured_id_the_api_does_not_offer_names_the_available_ones(routed):
    client, api = routed({"/v1/models": "models_list", "/v1/models/claude-sonnet-9": "not_found_404"})
    provider = anthropic_on(client)

    with pytest.raises(UnknownModelError) as caught:
        build_reflection("anthropic:claude-sonnet-9", provider=provider)

    error = caught.value
    assert isinstance(error, EngineError) and error.model == "claude-sonnet-9"
    assert "'claude-sonnet-9' is not available" in str(error)
    assert "Set WORKBENCH_GENERATOR_MODEL" in str(error) and NEWEST_SONNET in str(error)
    assert error.available[0] == NEWEST_HAIKU and len(error.available) == 6
    assert api.calls("/v1/models/claude-sonnet-9") == 1  # asked once whether it is an alias the list hides

    settings = Settings(reviewer_model="claude-haiku-9")
    with pytest.raises(UnknownModelError, match="WORKBENCH_REVIEWER_MODEL"):
        build_reflection("anthropic", provider=provider, settings=settings)


def test_configured_ids_the_api_offers_are_kept(routed):
    client, api = routed({"/v1/models": "models_list"})
    provider = anthropic_on(client)

    loop = build_reflection("anthropic", provider=provider, generator_model="claude-sonnet-4-5",
                            settings=Settings(reviewer_model="claude-3-5-haiku-20241022"))
    single = build_reflection("anthropic:claude-opus-4-1", "single", provider=provider)

    assert (loop.generator.model, loop.reviewer.model) == ("claude-sonnet-4-5", "claude-3-5-haiku-20241022")
    assert single.provider_label("anthropic") == "anthropic:claude-opus-4-1"
    assert [r.url.path for r in api.requests] == ["/v1/models"]  # aliases of listed snapshots need no lookup


def test_a_404_for_the_model_at_call_time_names_it_and_the_available_ids(routed):
    client, _ = routed({"/v1/models": "models_list", "/v1/messages": "not_found_404"})
    provider = anthropic_on(client, model="claude-sonnet-9")  # named directly: checked only when called

    with pytest.raises(UnknownModelError) as caught:
        provider.chat(QUESTION)

    error = caught.value
    assert isinstance(error, ProviderRequestError) and error.status_code == 404
    assert error.request_id == "req_011CWZGi3aXt1Qd6kFa5Se9W"
    assert "'claude-sonnet-9' is not available" in str(error) and "not_found_error" in str(error)
    assert f"pick one of {NEWEST_HAIKU}, {NEWEST_SONNET}" in str(error)
    assert "WORKBENCH_GENERATOR_MODEL or WORKBENCH_REVIEWER_MODEL" in str(error)
