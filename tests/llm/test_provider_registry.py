"""Provider registry: string ids, defaults, lazy loading, extension."""

from __future__ import annotations

import subprocess
import sys
import types

import pytest

from engine.errors import EngineError, MissingKeyError, ProviderError
from engine.llm import registry
from engine.llm.registry import (
    default_provider_id,
    get_provider,
    known_provider_ids,
    load_object,
    register_provider,
    unregister_provider,
)
from engine.llm.scripted import ScriptedProvider

pytestmark = pytest.mark.unit


@pytest.fixture
def anthropic_client(replay):
    provider, _ = replay("text_end_turn")
    return provider._client


def test_anthropic_with_a_model(anthropic_client):
    provider = get_provider("anthropic:claude-opus-4-1", client=anthropic_client)
    assert provider.name == "anthropic:claude-opus-4-1"


def test_anthropic_alone_uses_the_newest_sonnet_model(routed):
    client, _ = routed({"/v1/models": "models_list"})
    assert get_provider(" Anthropic ", client=client).name == "anthropic:claude-sonnet-4-5-20250929"


def test_anthropic_without_a_key_says_what_to_do():
    with pytest.raises(MissingKeyError, match="choose the offline provider"):
        get_provider("anthropic")


def test_scripted_takes_its_replies_and_a_name_from_the_id():
    provider = get_provider("scripted:reviewer", responses=["ok"])
    assert isinstance(provider, ScriptedProvider)
    assert provider.name == "scripted:reviewer"
    assert provider.chat([{"role": "user", "content": "x"}]).text == "ok"
    assert get_provider("scripted").name == "scripted"


def test_unknown_id_lists_the_known_ones():
    with pytest.raises(ProviderError) as caught:
        get_provider("openai:gpt")
    assert isinstance(caught.value, EngineError)
    assert "Unknown provider 'openai:gpt'" in str(caught.value)
    assert "anthropic, offline, scripted" in str(caught.value)


@pytest.mark.parametrize("bad", ["", "   ", ":model"])
def test_empty_ids_are_rejected(bad):
    with pytest.raises(ProviderError):
        get_provider(bad)


def test_default_provider_id_follows_the_key(monkeypatch):
    assert default_provider_id() == "offline"
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-x")
    assert default_provider_id() == "anthropic"


def test_offline_missing_module_is_a_clear_error(monkeypatch):
    monkeypatch.setitem(sys.modules, "engine.llm.offline", None)  # import of this name now fails

    with pytest.raises(ProviderError, match="engine.llm.offline.*choose another provider"):
        get_provider("offline")


def test_offline_is_loaded_lazily_from_its_module(monkeypatch):
    class FakeOffline:
        def __init__(self, **options):
            self.name, self.options = "offline", options

    monkeypatch.setitem(sys.modules, "engine.llm.offline", types.SimpleNamespace(OfflineProvider=FakeOffline))

    assert get_provider("offline", seed=1).options == {"seed": 1}
    assert get_provider("offline:extractive").options == {"model": "extractive"}
    assert get_provider().name == "offline"  # no key: the default


def test_register_a_new_prefix(monkeypatch):
    monkeypatch.setattr(registry, "_factories", dict(registry._factories))
    made = []

    def factory(model, **options):
        made.append((model, options))
        return ScriptedProvider(name=f"echo:{model}")

    register_provider("echo", factory)

    assert get_provider("echo:v2", temperature=0).name == "echo:v2"
    assert made == [("v2", {"temperature": 0})]
    assert "echo" in known_provider_ids()
    with pytest.raises(ValueError, match="already registered"):
        register_provider("echo", factory)
    register_provider("echo", factory, replace=True)
    unregister_provider("echo")
    assert "echo" not in known_provider_ids()


@pytest.mark.parametrize("prefix", ["", "a:b"])
def test_bad_prefixes_are_rejected(prefix):
    with pytest.raises(ValueError):
        register_provider(prefix, ScriptedProvider)


def test_load_object_reports_missing_module_and_attribute():
    with pytest.raises(ProviderError, match="not available"):
        load_object("engine.llm.no_such_module:Thing")
    with pytest.raises(ProviderError, match="has no 'Nope'"):
        load_object("engine.llm.scripted:Nope")


def test_offline_and_scripted_paths_do_not_import_the_sdk():
    code = (
        "import sys, engine.llm as llm; llm.get_provider('scripted');"
        "assert 'anthropic' not in sys.modules, 'anthropic imported'"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)
